"""Tournaments in the admin: their dates, list and the period that rates them, and base
corrections (FIDE.md 10.1).

Saves and deletes go through the actions (``save_tournament``, ``delete_tournaments``), so a
tournament's games follow it and a closed period's stay frozen.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.utils.translation import gettext_lazy

from ladder.admin.guards import DeleteThroughActionAdmin, RevertThroughChangeAdmin, refusal_of
from ladder.admin.runs import report_run
from ladder.records import BaseCorrection, Tournament, closed_message
from ladder.writes import actions
from ladder.writes.validation.tournaments import (
    check_tournament_change,
    check_tournament_deletion,
)


class TournamentForm(forms.ModelForm):
    """The tournament form: the write path's checks, as form errors."""

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                check_tournament_change(self.instance)
            except ValidationError as error:
                self.add_error(None, error)
            stored = Tournament.objects.filter(pk=self.instance.pk).first()
            for period in {self.instance.rated_in, *([stored.rated_in] if stored else [])}:
                if period.is_closed:  # a closed period's tournament is read-only: say why
                    field = "rated_in" if "rated_in" in self.fields else None
                    self.add_error(field, closed_message(period))
        return data


@admin.register(Tournament)
class TournamentAdmin(DeleteThroughActionAdmin, RevertThroughChangeAdmin):
    list_display = ("name", "start", "end", "rating_list", "rated_in", "origin", "game_count")
    list_filter = ("rating_list", "rated_in", "origin")
    list_select_related = ("rated_in",)
    search_fields = ("name",)
    search_help_text = "Search by part of the name."
    ordering = ("-start", "-pk")
    date_hierarchy = "start"
    fields = ("name", "start", "end", "rating_list", "time_control", "rated_in", "origin",
              "origin_file")  # fmt: skip
    readonly_fields = ("origin", "origin_file")
    form = TournamentForm

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(game_count=Count("games"))

    @admin.display(description=gettext_lazy("Games"), ordering="game_count")
    def game_count(self, obj: Tournament) -> int:
        return obj.game_count  # type: ignore[attr-defined]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.rated_in.is_closed:
            return self.fields
        return self.readonly_fields

    def revert_refusal(self, obj):
        return closed_message(obj.rated_in) if obj.rated_in.is_closed else None

    def save_model(self, request, obj, form, change):
        actions.save_tournament(tournament=obj, user=request.user)
        report_run(self, request)

    def delete_refusal(self, objects):
        return refusal_of(check_tournament_deletion, objects)

    def delete_objects(self, request, objects):
        actions.delete_tournaments(tournaments=objects, user=request.user)


class BaseCorrectionForm(forms.ModelForm):
    """A base correction's form: a closed period's list is published, so it is refused here
    with the sentence every door gives."""

    def clean(self):
        data = super().clean() or {}
        period = data.get("period") or getattr(self.instance, "period", None)
        stored = BaseCorrection.objects.filter(pk=self.instance.pk).select_related("period")
        for found in {period, *(c.period for c in stored)}:
            if found is not None and found.is_closed:
                self.add_error("period" if "period" in self.fields else None,
                               closed_message(found))  # fmt: skip
        return data


@admin.register(BaseCorrection)
class BaseCorrectionAdmin(DeleteThroughActionAdmin, RevertThroughChangeAdmin):
    """Base corrections (FIDE.md 10.1): saved and deleted through the actions, which rate the
    period again; a closed period's are read-only."""

    list_display = ("player", "rating_list", "period", "rating", "reason", "user", "at")
    list_filter = ("rating_list", "period")
    list_select_related = ("player", "period", "user")
    search_fields = ("player__name", "reason")
    autocomplete_fields = ("player",)
    fields = ("player", "rating_list", "period", "rating", "reason")
    form = BaseCorrectionForm

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.period.is_closed:
            return self.fields
        return ()

    def revert_refusal(self, obj):
        return closed_message(obj.period) if obj.period.is_closed else None

    def save_model(self, request, obj, form, change):
        actions.save_base_correction(correction=obj, user=request.user)
        report_run(self, request)

    def delete_refusal(self, objects):
        closed = [c.period for c in objects if c.period.is_closed]
        return " ".join(closed_message(p) for p in dict.fromkeys(closed)) or None

    def delete_objects(self, request, objects):
        actions.delete_base_corrections(corrections=objects, user=request.user)
