"""The player admin's privacy tools: a player's data export, and erasure with a reason.

The export is two links on the player's page (JSON, or a zip of CSV files), for staff who may
view players; erasure is an action on the players list (and a button on the player's page),
for those who may delete players, asking for the reason on a confirmation page that says what
is removed and what is kept. Both go through the files and the write path as the commands do.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext, gettext_lazy

from ladder.files import player_export
from ladder.records import Player
from ladder.writes import actions, privacy

_TYPES = {"json": "application/json", "csv": "application/zip"}


class ErasureForm(forms.Form):
    reason = forms.CharField(
        required=False,  # the write path's check says what is missing (privacy.check_reason)
        widget=forms.TextInput(attrs={"size": 60}),
        help_text="Why the data is erased (e.g. the player's request of 1 March); it is "
        "recorded with your name in each player's history.",
    )


class PlayerPrivacyAdmin:
    """Mixed into the player admin: the export's URLs and the erase action."""

    actions: tuple[str, ...] = ("erase_players",)

    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view  # type: ignore[attr-defined]
        return [
            path(
                f"<path:object_id>/export/{kind}/",
                wrap(self.export_view),
                {"kind": kind},
                name=f"ladder_player_export_{kind}",
            )
            for kind in _TYPES
        ] + super().get_urls()  # type: ignore[misc]

    def export_view(self, request: HttpRequest, object_id: str, kind: str) -> HttpResponse:
        """Everything stored about the player, as a file: ``json`` or ``csv`` (a zip)."""
        player = self.get_object(request, unquote(object_id))  # type: ignore[attr-defined]
        if player is None:
            raise Http404("No such player.")
        if not self.has_view_permission(request, player):  # type: ignore[attr-defined]
            raise PermissionDenied
        data = player_export.player_data(player)
        body = player_export.as_json(data) if kind == "json" else player_export.as_zip(data)
        response = HttpResponse(body, content_type=_TYPES[kind])
        name = player_export.export_name(player, "json" if kind == "json" else "zip")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @admin.action(
        description=gettext_lazy("Erase the selected players' personal data (asks for a reason)"),
        permissions=["delete"],
    )
    def erase_players(self, request: HttpRequest, queryset: Any) -> TemplateResponse | None:
        """Erase the selected players' personal data, once the reason is given."""
        form = ErasureForm(request.POST if "apply" in request.POST else None)
        players = list(queryset.order_by("pk"))
        if form.is_bound and form.is_valid():
            try:
                privacy.check_reason(form.cleaned_data["reason"])
            except ValidationError as error:
                form.add_error("reason", error.message_dict["reason"])
            else:
                for player in players:
                    self._erase(request, player, form.cleaned_data["reason"])
                return None
        context = {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "opts": Player._meta,
            "title": "Erase players' personal data",
            "players": players,
            "erased": privacy.erased_ids(players),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/ladder/player/erase.html", context)

    def _erase(self, request: HttpRequest, player: Player, reason: str) -> None:
        try:
            erasure = actions.erase_player(player=player, reason=reason, user=request.user)
        except (ValidationError, Player.DoesNotExist) as error:
            text = " ".join(getattr(error, "messages", [str(error)]))
            self.message_user(request, text, messages.ERROR)  # type: ignore[attr-defined]
            return
        self.message_user(  # type: ignore[attr-defined]
            request,
            gettext("Player #%(pk)s is erased: now '%(name)s'. Games and ratings are unchanged.")
            % {"pk": player.pk, "name": erasure.player.name},
        )
