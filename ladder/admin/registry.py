"""The admin for club administrators: players, games (and round entry), periods.

Every write goes through ``ladder.writes.actions``; every message after a write says what the rating
run did (immediate mode) or that it is queued, with a link (background mode). Periods live in
``admin_periods``, round entry in ``admin_rounds``.
"""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.options import csrf_protect_m
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy

from ladder.admin import periods as admin_periods  # noqa: F401  (registers RatingPeriod and PeriodLog)
from ladder.admin import previews as admin_previews
from ladder.admin.fide_list import import_fide_list_view
from ladder.admin.guards import DeleteThroughActionAdmin, RevertThroughChangeAdmin, refusal_of
from ladder.admin.merges import PlayerMergeAdmin
from ladder.admin.privacy import PlayerPrivacyAdmin
from ladder.admin.ratings import RatingHistoryInline
from ladder.admin.rounds import enter_round_view, list_choice
from ladder.admin.runs import report_run
from ladder.admin.tournaments import TOURNAMENT_LOOKUP, export_event_trf, import_tournament_view
from ladder.admin.widgets import PlayerSelect
from ladder.exceptions import PeriodClosedError
from ladder.records import (
    LIST_FIELDS,
    PLAYER_ENTRY_FIELDS,
    FideIdFormField,
    Game,
    Player,
    RatingList,
    RatingPeriod,
    closed_message,
    kept_lists,
)
from ladder.writes import actions
from ladder.writes.actions import GAME_FIELDS
from ladder.writes.validation import (
    GameEntry,
    check_entry_change,
    check_games,
    check_player_deletion,
    check_player_name,
    ensure_open,
)
from ratings.rules import fide
from ratings.selectors import active_players, current_k, inactive_players, junior_players

NOTHING_DELETED = gettext_lazy("Nothing was deleted.")

admin.site.site_header = format_lazy(
    gettext_lazy("{club} administration"), club=settings.LADDER_CLUB_NAME
)
admin.site.site_title = format_lazy(gettext_lazy("{club} admin"), club=settings.LADDER_CLUB_NAME)
admin.site.index_title = gettext_lazy("Club records and ratings")


# --- players -------------------------------------------------------------------------------


class RatedFilter(admin.SimpleListFilter):
    title = "rated"
    parameter_name = "rated"

    def lookups(self, request, model_admin):
        return (("yes", "Rated"), ("no", "Unrated"))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.rated()
        if self.value() == "no":
            return queryset.unrated()
        return queryset


class InactiveFilter(admin.SimpleListFilter):
    """Rated players with no rated game for 12 months, as on today's list (FIDE.md 7)."""

    title = "activity"
    parameter_name = "inactive"

    def lookups(self, request, model_admin):
        return (("yes", "Inactive"), ("no", "Active"))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return inactive_players(queryset)
        if self.value() == "no":
            return active_players(queryset)
        return queryset


class JuniorFilter(admin.SimpleListFilter):
    """Juniors in the year being rated: 18 or younger that calendar year (8.3.3)."""

    title = "junior"
    parameter_name = "junior"

    def lookups(self, request, model_admin):
        return (("yes", "Junior"), ("no", "Not junior"))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return junior_players(queryset)
        if self.value() == "no":
            return queryset.exclude(pk__in=junior_players(queryset).values("pk"))
        return queryset


class LevelFilter(admin.SimpleListFilter):
    """The display levels of ``ratings.rules.fide.LEVELS`` ("IM level"), by current rating."""

    title = "level"
    parameter_name = "level"

    def lookups(self, request, model_admin):
        return [(str(threshold), label) for threshold, label in fide.LEVELS]

    def queryset(self, request, queryset):
        bounds = {str(low): (low, high) for (low, _), high in _level_bounds()}
        value = self.value() or ""
        if value not in bounds:
            return queryset
        low, high = bounds[value]
        queryset = queryset.filter(rating__gte=low)
        return queryset.filter(rating__lt=high) if high is not None else queryset


def _level_bounds():
    """Pair each level with the threshold of the level above it (None for the top one)."""
    ordered = sorted(fide.LEVELS, reverse=True)
    return zip(ordered, [None, *(low for low, _ in ordered[:-1])], strict=True)


def _k_display(rating_list: str) -> Any:
    """A read-only admin column: the player's K on one list now, with its reason."""

    @admin.display(description=f"{RatingList(rating_list).label} K")
    def k_on_list(self: Any, obj: Player) -> str:
        k = current_k(obj, rating_list=rating_list) if obj.pk else None
        return str(k) if k is not None else "none while unrated"

    return k_on_list


class PlayerForm(forms.ModelForm):
    """The admin's player form: a change to entry data behind a published list is refused by
    the write path's validator, with its message, before anything is saved."""

    class Meta:
        model = Player
        # The admin's fieldsets choose the fields shown; these are the ones a user may edit.
        fields = ("name", "fide_id", "birth_year", "sex", "federation", "title",
                  "national_federation", "national_id", *PLAYER_ENTRY_FIELDS)  # fmt: skip
        field_classes = {"fide_id": FideIdFormField}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "name" in data:
            named = copy.copy(self.instance)
            named.name = data["name"]
            try:
                check_player_name(named)
            except ValidationError as error:
                self.add_error("name", error.message_dict["name"])
        if self.instance.pk is None:
            return data
        candidate = copy.copy(self.instance)
        for name in PLAYER_ENTRY_FIELDS:
            if name in data:
                setattr(candidate, name, data[name])
        try:
            check_entry_change(candidate)
        except ValidationError as error:
            for name, found in error.message_dict.items():
                self.add_error(name if name in self.fields else None, found)
        return data


@admin.register(Player)
class PlayerAdmin(
    PlayerMergeAdmin, PlayerPrivacyAdmin, DeleteThroughActionAdmin, RevertThroughChangeAdmin
):
    form = PlayerForm
    actions = ("erase_players", "merge_selected", "unmerge_selected")
    list_filter = (RatedFilter, InactiveFilter, JuniorFilter, LevelFilter, "title", "federation")
    search_fields = ("name",)
    search_help_text = "Search by part of the name, the exact FIDE id or national id."
    inlines = (RatingHistoryInline,)
    k_standard = _k_display(RatingList.STANDARD)
    k_rapid = _k_display(RatingList.RAPID)
    k_blitz = _k_display(RatingList.BLITZ)

    def get_list_display(self, request):
        ratings = [LIST_FIELDS[name].rating for name in kept_lists()]
        return ("name", "fide_id", "title", "federation", "birth_year", *ratings,
                "rated_games", "last_change", "last_rated_on")  # fmt: skip

    def get_readonly_fields(self, request, obj=None):
        return ("level", *(f for name in kept_lists() for f in self._derived(name)))

    def get_fieldsets(self, request, obj=None):
        """The player, then each kept list's entry data and derived state."""
        sets: list[tuple[str | None, dict[str, Any]]] = [
            (
                None,
                {
                    "fields": (
                        "name",
                        "fide_id",
                        "birth_year",
                        "sex",
                        "federation",
                        "title",
                        "national_federation",
                        "national_id",
                    )
                },
            )  # fmt: skip
        ]
        for name in kept_lists():
            label = RatingList(name).label
            sets.append((f"{label}: entry data", {
                "fields": LIST_FIELDS[name].entry,
                "description": "For players who arrive with a history; blank rating = unrated.",
            }))  # fmt: skip
            sets.append((f"{label}: now (derived from the games, read-only)",
                         {"fields": self._derived(name)}))  # fmt: skip
        sets[2][1]["fields"] = ("level", *sets[2][1]["fields"])
        return sets

    @staticmethod
    def _derived(rating_list: str) -> tuple[str, ...]:
        fields = LIST_FIELDS[rating_list]
        return (fields.rating, f"k_{rating_list}", *fields.derived[1:])

    def get_search_results(self, request, queryset, search_term):
        match = getattr(request, "resolver_match", None)
        if match is not None and match.url_name == "autocomplete":
            # A game's white or black, a correction's player: a merged record takes none.
            queryset = queryset.current()
        return queryset.search(search_term), False

    def get_urls(self):
        fide_view = self.admin_site.admin_view(lambda r: import_fide_list_view(r, self))
        return [
            path("import-fide-list/", fide_view, name="ladder_player_import_fide_list"),
            *super().get_urls(),
        ]

    @admin.display(description=gettext_lazy("Level"))
    def level(self, obj: Player) -> str:
        return fide.level(obj.title, obj.rating) or "-"

    def save_model(self, request, obj, form, change):
        actions.save_player(player=obj, user=request.user)
        report_run(self, request)

    def delete_refusal(self, objects):
        return refusal_of(check_player_deletion, objects)

    def delete_objects(self, request, objects):
        actions.delete_players(players=objects, user=request.user)


# --- games ---------------------------------------------------------------------------------


class GameForm(forms.ModelForm):
    """The admin's game form: the write path's validator decides, with its own messages."""

    rating_list = list_choice()

    class Meta:
        model = Game
        fields = GAME_FIELDS

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if any(name in self.errors for name in GAME_FIELDS):
            return data
        entry = GameEntry(
            date=data.get("date"), white=data["white"], black=data["black"],
            result=data.get("result") or "", event=data.get("event") or "",
            round=data.get("round") or "", rating_list=data.get("rating_list") or "",
            time_control=data.get("time_control") or "",
        )  # fmt: skip
        instance = self.instance if self.instance.pk else None
        for name, found in check_games([entry], instance=instance)[0].problems.items():
            for message in found:
                self.add_error(None if name not in self.fields else name, message)
        return data


def remind_to_close(modeladmin, request, period: RatingPeriod) -> None:
    """After a correction in a reopened period, offer to close it again."""
    if not period.is_reopened:
        return
    url = reverse("admin:ladder_ratingperiod_changelist") + "?status__exact=open"
    modeladmin.message_user(
        request,
        format_html(
            gettext(
                "The period {} was reopened for corrections. When they are done, "
                '<a href="{}">close it again</a> to publish the corrected list.'
            ),
            period.label,
            url,
        ),
        messages.WARNING,
    )


def delete_selected_games(modeladmin, request, queryset):
    """Delete the selected games, unless any belongs to a closed period (asked before the
    confirmation page, with the write path's own rule and sentence)."""
    try:
        ensure_open(RatingPeriod.objects.filter(pk__in=queryset.values("period")))
    except PeriodClosedError as error:
        modeladmin.message_user(request, f"{NOTHING_DELETED} " + " ".join(error.messages),
                                messages.ERROR)  # fmt: skip
        return None
    response = delete_selected(modeladmin, request, queryset)
    if isinstance(response, TemplateResponse) and response.context_data is not None:
        # The confirmation page: say what the deletion would do to the ratings.
        response.context_data.update(admin_previews.deletion_context(request, list(queryset)))
    return response


@admin.register(Game)
class GameAdmin(RevertThroughChangeAdmin):
    # Result beside the players, so that it shows at 1280 px; the period follows from the date.
    list_display = ("date", "white", "result", "black", "event", "round", "rating_list")
    list_filter = ("period", "rating_list", "event", "result")
    ordering = ("-date", "-pk")  # the evening's games first
    list_select_related = ("white", "black", "period")
    date_hierarchy = "date"
    search_fields = ("white__name", "black__name", "event")
    search_help_text = "Search by a player's name or the event."
    autocomplete_fields = ("white", "black")
    fields = (*GAME_FIELDS, "period")
    readonly_fields = ("period",)
    form = GameForm
    actions = (export_event_trf,)

    def get_queryset(self, request):
        return super().get_queryset(request).with_players()

    def lookup_allowed(self, lookup, value, request=None):
        # A tournament file's import lands on that tournament's games.
        return lookup == TOURNAMENT_LOOKUP or super().lookup_allowed(lookup, value, request)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.autocomplete_fields:
            kwargs["widget"] = PlayerSelect(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_urls(self):
        round_view = self.admin_site.admin_view(lambda request: enter_round_view(request, self))
        file_view = self.admin_site.admin_view(lambda r: import_tournament_view(r, self))
        return [
            path("enter-round/", round_view, name="ladder_game_enter_round"),
            path("import-file/", file_view, name="ladder_game_import_tournament"),
            *super().get_urls(),
        ]

    def get_fields(self, request, obj=None):
        if len(kept_lists()) == 1:  # a club that keeps one list sees no list
            return tuple(name for name in self.fields if name != "rating_list")
        return self.fields

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.period.is_closed:
            return (*GAME_FIELDS, "period")
        return self.readonly_fields

    def revert_refusal(self, obj):
        return closed_message(obj.period) if obj.period.is_closed else None

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            description = actions["delete_selected"][2]
            actions["delete_selected"] = (delete_selected_games, "delete_selected", description)
        return actions

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """A frozen game's page offers no Save or Delete: one message and a button that reopens
        its period (the period admin's reopen action, which asks the reason)."""
        game = self.get_object(request, unquote(object_id))
        if game is not None and game.period.is_closed:
            if request.method == "POST" and self.has_change_permission(request, game):
                return HttpResponseRedirect(request.path)  # the page says why, once
            extra_context = {
                **(extra_context or {}),
                "frozen_message": closed_message(game.period),
                "frozen_period": game.period,
                "can_reopen": request.user.has_perm("ladder.change_ratingperiod"),
                "show_save": False,
                "show_save_and_continue": False,
                "show_save_and_add_another": False,
                "show_delete": False,
            }
        return super().change_view(request, object_id, form_url, extra_context)

    @csrf_protect_m
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """The form's Preview button shows what saving would do, and saves nothing."""
        if admin_previews.wants_preview(request):
            return admin_previews.preview_change_view(self, request, object_id, form_url)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        game = self.get_object(request, unquote(object_id))
        if game is not None and game.period.is_closed and self.has_delete_permission(request, game):
            return HttpResponseRedirect(reverse("admin:ladder_game_change", args=[game.pk]))
        if game is not None and request.method != "POST" and self.has_delete_permission(request):
            # The confirmation page says what the deletion would do to the ratings.
            preview = admin_previews.deletion_context(request, [game])
            extra_context = {**(extra_context or {}), **preview}
        return super().delete_view(request, object_id, extra_context)

    def save_model(self, request, obj, form, change):
        data = {name: form.cleaned_data.get(name, "") for name in GAME_FIELDS}
        if change:
            actions.correct_game(game=obj, changes=data, user=request.user)
            remind_to_close(self, request, obj.period)
        else:
            (game,) = actions.enter_games(
                games=[GameEntry(**data)], user=request.user, reason="Game entered in the admin"
            )
            obj.pk, obj.period = game.pk, game.period  # the admin links to the new game
        report_run(self, request)

    def delete_model(self, request, obj):
        actions.delete_games(games=[obj], user=request.user)
        report_run(self, request)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():  # the delete_selected action runs outside one
            actions.delete_games(games=queryset, user=request.user)
            report_run(self, request)
