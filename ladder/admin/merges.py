"""The admin's doors to who is who: the Duplicates page (likely pairs, each with its score and
evidence, "Merge" and "Not a duplicate"), the Merge page (two ids and a reason), the players
list's actions (merge the two selected, undo the merge of the selected), and the merges and
not-a-duplicate answers as read-only records. Every write goes through ``ladder.writes.actions``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext, gettext_lazy

from ladder.admin.runs import report_run
from ladder.exceptions import ReopenRefused
from ladder.records import NotDuplicate, Player, PlayerMerge
from ladder.records.duplicates import find_duplicates
from ladder.writes import actions

SHOWN = 200  # pairs on the Duplicates page


class MergeForm(forms.Form):
    keep = forms.IntegerField(label=gettext_lazy("Keep player (id)"), min_value=1)
    other = forms.IntegerField(
        label=gettext_lazy("Merge player (id)"),
        min_value=1,
        help_text=gettext_lazy("Their games become the kept player's."),
    )
    reason = forms.CharField(
        required=False,  # the write path says what is missing
        widget=forms.TextInput(attrs={"size": 60}),
        help_text=gettext_lazy(
            "Why (recorded; the reason of the revisions of closed lists it changes)."
        ),
    )


class UnmergeForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"), required=False, widget=forms.TextInput(attrs={"size": 60})
    )


def apply_errors(form: forms.Form, error: ValidationError) -> None:
    """Put the action's field errors on the form's fields (the rest above the form)."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error.messages)
        return
    for name, found in error.message_dict.items():
        form.add_error(name if name in form.fields else None, found)


class PlayerMergeAdmin:
    """Mixed into the player admin: the Duplicates and Merge pages and the list's actions."""

    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view  # type: ignore[attr-defined]
        return [
            path("duplicates/", wrap(self.duplicates_view), name="ladder_player_duplicates"),
            path("merge/", wrap(self.merge_view), name="ladder_player_merge"),
            path(
                "not-duplicate/",
                wrap(self.not_duplicate_view),
                name="ladder_player_not_duplicate",
            ),
        ] + super().get_urls()  # type: ignore[misc]

    def _context(self, request: HttpRequest, title: str, **more: Any) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "opts": Player._meta,
            "title": title,
            **more,
        }

    def _may_change(self, request: HttpRequest) -> None:
        if not self.has_change_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied

    def duplicates_view(self, request: HttpRequest) -> HttpResponse:
        """The likely duplicate pairs, best first."""
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        found = find_duplicates()
        context = self._context(
            request,
            gettext("Likely duplicates"),
            pairs=found[:SHOWN],
            total=len(found),
            shown=SHOWN,
        )
        return TemplateResponse(request, "admin/ladder/player/duplicates.html", context)

    def not_duplicate_view(self, request: HttpRequest) -> HttpResponse:
        """Remember that the pair posted are two people."""
        self._may_change(request)
        back = HttpResponseRedirect(reverse("admin:ladder_player_duplicates"))
        if request.method != "POST":
            return back
        ids = [request.POST.get("first", ""), request.POST.get("second", "")]
        players = Player.objects.in_bulk([int(i) for i in ids if i.isdigit()])
        if len(players) != 2:
            self.message_user(request, gettext("Choose two players."), messages.ERROR)  # type: ignore[attr-defined]
            return back
        first, second = players.values()
        try:
            actions.mark_not_duplicate(first=first, second=second, user=request.user)
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)  # type: ignore[attr-defined]
            return back
        self.message_user(  # type: ignore[attr-defined]
            request,
            gettext("%(first)s and %(second)s are two people: they are not proposed again.")
            % {"first": first, "second": second},
        )
        return back

    def merge_view(self, request: HttpRequest) -> HttpResponse:
        """Merge one player into another: the ids (filled in from the Duplicates page or the
        players list) and a reason."""
        self._may_change(request)
        form = MergeForm(request.POST if request.method == "POST" else None, initial=request.GET)
        if form.is_bound and form.is_valid():
            data = form.cleaned_data
            try:
                outcome = actions.merge_players(
                    keep=data["keep"], other=data["other"], reason=data["reason"],
                    user=request.user,
                )  # fmt: skip
            except ReopenRefused as error:
                form.add_error(None, error.messages)
            except ValidationError as error:
                apply_errors(form, error)
            else:
                self.message_user(request, outcome.describe())  # type: ignore[attr-defined]
                report_run(self, request)
                kept = outcome.record.kept_id
                return HttpResponseRedirect(reverse("admin:ladder_player_change", args=[kept]))
        shown = Player.objects.in_bulk(
            [v for v in (form["keep"].value(), form["other"].value()) if str(v or "").isdigit()]
        )
        context = self._context(
            request, gettext("Merge two players"), form=form, players=shown.values()
        )
        return TemplateResponse(request, "admin/ladder/player/merge.html", context)

    @admin.action(description=gettext_lazy("Merge the two selected players (asks which to keep)"))
    def merge_selected(self, request: HttpRequest, queryset: Any) -> HttpResponse | None:
        players = list(queryset.order_by("pk")[:3])
        if len(players) != 2:
            self.message_user(  # type: ignore[attr-defined]
                request, gettext("Select exactly two players to merge."), messages.ERROR
            )
            return None
        url = reverse("admin:ladder_player_merge")
        return HttpResponseRedirect(f"{url}?keep={players[0].pk}&other={players[1].pk}")

    @admin.action(description=gettext_lazy("Undo the merge of the selected players"))
    def unmerge_selected(self, request: HttpRequest, queryset: Any) -> None:
        for player in queryset.order_by("pk"):
            try:
                outcome = actions.unmerge_players(other=player.pk, user=request.user)
            except ValidationError as error:
                self.message_user(request, " ".join(error.messages), messages.ERROR)  # type: ignore[attr-defined]
            else:
                self.message_user(request, outcome.describe())  # type: ignore[attr-defined]
        report_run(self, request)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records the write path keeps: read here, written by the actions only."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PlayerMerge)
class PlayerMergeRecordAdmin(ReadOnlyAdmin):
    list_display = ("merged", "kept", "reason", "at", "user", "undone_at")
    list_select_related = ("merged", "kept", "user")
    list_filter = ("undone_at",)
    actions = ("undo",)

    def has_unmerge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("ladder.change_player")

    @admin.action(description=gettext_lazy("Undo the selected merges"), permissions=["unmerge"])
    def undo(self, request: HttpRequest, queryset: Any) -> TemplateResponse | None:
        form = UnmergeForm(request.POST if "apply" in request.POST else None)
        records = list(queryset.active().select_related("merged", "kept"))
        if form.is_bound and form.is_valid():
            for record in records:
                try:
                    outcome = actions.unmerge_players(
                        other=record.merged_id, reason=form.cleaned_data["reason"],
                        user=request.user,
                    )  # fmt: skip
                except ValidationError as error:
                    self.message_user(request, " ".join(error.messages), messages.ERROR)
                else:
                    self.message_user(request, outcome.describe())
            report_run(self, request)
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": PlayerMerge._meta,
            "title": gettext("Undo merges"),
            "records": records,
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/ladder/playermerge/undo.html", context)


@admin.register(NotDuplicate)
class NotDuplicateAdmin(ReadOnlyAdmin):
    list_display = ("first", "second", "note", "user", "at")
    list_select_related = ("first", "second", "user")
