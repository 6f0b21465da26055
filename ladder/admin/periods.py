"""The admin of rating periods: status and counts, close / reopen / recompute, the report."""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_lazy

from ladder.admin.guards import DeleteThroughActionAdmin, RevertThroughChangeAdmin, refusal_of
from ladder.admin.ratings import ReadOnlyMixin
from ladder.admin.runs import report_run
from ladder.admin.simulations import simulate_view
from ladder.records import PeriodLog, RatingList, RatingPeriod, kept_lists
from ladder.records.paging import Paginator
from ladder.writes import actions, correction_window
from ladder.writes.actions import close_period, recompute, reopen_period
from ladder.writes.validation import check_period, check_period_deletion
from ratings.models import Publication
from ratings.publication import all_revisions
from ratings.selectors import REPORT_PER_PAGE, period_report, periods_with_counts


class PeriodLogInline(ReadOnlyMixin, admin.TabularInline):
    model = PeriodLog
    fields = ("at", "action", "reason", "user")
    readonly_fields = fields
    extra = 0
    verbose_name_plural = gettext_lazy("Closed and reopened")


@admin.register(PeriodLog)
class PeriodLogAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("period", "action", "reason", "user", "at")
    list_filter = ("action",)
    list_select_related = ("period", "user")
    search_fields = ("period__label", "reason")


class ReopenForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        required=False,
        help_text=gettext_lazy("Why the period is reopened; it is recorded with your name."),
    )


class PeriodForm(forms.ModelForm):
    """The admin's period form: the write path's period rules decide, with their messages."""

    class Meta:
        model = RatingPeriod
        fields = ("label", "start", "end")

    def clean(self):
        data = super().clean() or {}
        stored = (
            RatingPeriod.objects.filter(pk=self.instance.pk).first() if self.instance.pk else None
        )
        candidate = copy.copy(self.instance)
        for name in ("label", "start", "end"):
            if name in data:
                setattr(candidate, name, data[name])
        try:
            check_period(candidate, stored=stored)
        except ValidationError as error:
            for name, found in error.message_dict.items():
                self.add_error(name if name in self.fields else None, found)
        return data


@admin.register(RatingPeriod)
class RatingPeriodAdmin(DeleteThroughActionAdmin, RevertThroughChangeAdmin):
    form = PeriodForm
    list_display = ("label", "status", "start", "end", "game_count", "player_count", "closed_at")
    list_filter = ("status",)
    search_fields = ("label",)
    readonly_fields = ("status", "closed_at", "correction_window")
    inlines = (PeriodLogInline,)
    actions = ("close_periods", "reopen_periods", "recompute_periods")
    ordering = ("-start",)
    object_history_template = "admin/ladder/ratingperiod/object_history.html"
    change_list_template = "admin/ladder/ratingperiod/change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view(lambda request: simulate_view(request, self))
        return [
            path("simulate/", view, name="ladder_ratingperiod_simulate"),
            *super().get_urls(),
        ]

    def get_queryset(self, request):
        return periods_with_counts(super().get_queryset(request))

    @admin.display(description=gettext_lazy("games"), ordering="game_count")
    def game_count(self, obj: RatingPeriod) -> int:
        return int(getattr(obj, "game_count", 0))  # annotated by periods_with_counts

    @admin.display(description=gettext_lazy("players"), ordering="player_count")
    def player_count(self, obj: RatingPeriod) -> int:
        return int(getattr(obj, "player_count", 0))

    @admin.display(description=gettext_lazy("correction window"))
    def correction_window(self, obj: RatingPeriod) -> str:
        return correction_window.describe(obj) if obj.pk else "-"

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.is_closed:
            return ("label", "start", "end", *self.readonly_fields)
        return self.readonly_fields

    def change_view(self, request, object_id, form_url="", extra_context=None):
        period = self.get_object(request, unquote(object_id))
        if period is not None:
            extra_context = {
                **(extra_context or {}),
                # A page of the report at a time, as on the period's public page: a
                # federation's month is tens of thousands of rows.
                "report": Paginator(period_report(period), REPORT_PER_PAGE).get_page(
                    request.GET.get("rpage")
                ),
                "publications": _publications(period),
            }
        return super().change_view(request, object_id, form_url, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        period = self.get_object(request, unquote(object_id))
        if period is not None:
            extra_context = {**(extra_context or {}), "publications": _publications(period)}
        return super().history_view(request, object_id, extra_context)

    def revert_refusal(self, obj: Any) -> str:
        return (
            "A period is not reverted from its history: its status changes only by closing or "
            "reopening it (admin actions 'Close' and 'Reopen'), and an open period's label and "
            "dates on its change page."
        )

    def save_model(self, request, obj, form, change):
        actions.save_period(period=obj, user=request.user)
        report_run(self, request)

    def delete_refusal(self, objects):
        return refusal_of(check_period_deletion, objects)

    def delete_objects(self, request, objects):
        actions.delete_periods(periods=objects, user=request.user)

    @admin.action(description=gettext_lazy("Close the selected periods"), permissions=["change"])
    def close_periods(self, request, queryset):
        for period in queryset.order_by("start"):
            try:
                close_period(period=period, user=request.user)
            except ValidationError as error:
                self.message_user(request, " ".join(error.messages), messages.ERROR)
            else:
                self.message_user(request, _closed_message(period))

    @admin.action(
        description=gettext_lazy("Reopen the selected periods (asks for a reason)"),
        permissions=["change"],
    )
    def reopen_periods(self, request, queryset):
        form = ReopenForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            for period in queryset.order_by("start"):
                try:
                    reopen_period(
                        period=period, reason=form.cleaned_data["reason"], user=request.user
                    )
                except ValidationError as error:
                    if hasattr(error, "error_dict") and "reason" in error.error_dict:
                        form.add_error("reason", error.error_dict["reason"])
                        break
                    self.message_user(request, " ".join(error.messages), messages.ERROR)
                else:
                    self.message_user(
                        request,
                        gettext(
                            "The period %(label)s is reopened; its games can be corrected. "
                            "Close it again when they are."
                        )
                        % {"label": period.label},
                    )
            if form.is_valid():
                back = request.POST.get("_return_to", "")
                if back and url_has_allowed_host_and_scheme(back, {request.get_host()}):
                    return HttpResponseRedirect(back)  # the game the reopening started from
                return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Reopen rating periods",
            "periods": queryset.order_by("start"),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "return_to": request.POST.get("_return_to", ""),
        }
        return TemplateResponse(request, "admin/ladder/ratingperiod/reopen.html", context)

    @admin.action(
        description=gettext_lazy("Recompute from the earliest selected period"),
        permissions=["change"],
    )
    def recompute_periods(self, request, queryset):
        with transaction.atomic():  # admin actions run outside one
            recompute(period=queryset.order_by("start").first(), user=request.user)
            report_run(self, request)


def _closed_message(period: RatingPeriod) -> str:
    """What closing published: each list's newest revision, linked to the period's page that
    shows it (revision 1 on a first close; a higher one when it closed again)."""
    newest: dict[str, Publication] = {}
    for item in Publication.objects.filter(period=period).order_by("revision"):
        newest[item.rating_list] = item
    url = reverse("admin:ladder_ratingperiod_change", args=[period.pk])
    published = [
        format_html(
            '<a href="{}#period-publications">{}</a>',
            url,
            gettext("%(list)s list, revision %(revision)s")
            % {"list": RatingList(name).label.lower(), "revision": item.revision},
        )
        for name, item in newest.items()
    ]
    closed = gettext("The period %(label)s is closed; its games are frozen.")
    text = format_html("{}", closed % {"label": period.label})
    if published:
        listed = format_html_join(", ", "{}", ((p,) for p in published))
        text = format_html("{} {} {}.", text, gettext("Published:"), listed)
    return text


def _publications(period: RatingPeriod) -> list[tuple[str, list]]:
    """The period's publications per kept list (label, [(publication, differences)])."""
    found = all_revisions(period)
    return [(str(RatingList(name).label), found[name]) for name in kept_lists() if name in found]
