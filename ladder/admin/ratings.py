"""Read-only admin for the ratings: every number is derived, so nothing here is editable."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from ratings.models import RatingChange, RatingRun

REPORT_FIELDS = (
    "period",
    "status",
    "rating_before",
    "k",
    "k_reason",
    "k_applied",
    "games",
    "score",
    "expected",
    "change",
    "rating_after",
    "performance",
)


class ReadOnlyMixin:
    """Viewable by those with the view permission; written only by
    ``ratings.recompute.services``."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class RatingHistoryInline(ReadOnlyMixin, admin.TabularInline):
    """A player's rating history on the player's page, newest period first."""

    model = RatingChange
    fields = REPORT_FIELDS
    readonly_fields = REPORT_FIELDS
    extra = 0
    verbose_name = gettext_lazy("rating change")
    verbose_name_plural = gettext_lazy("Rating history (newest first)")

    def get_queryset(self, request: HttpRequest) -> QuerySet[RatingChange]:
        return (
            super()
            .get_queryset(request)
            .select_related("player", "period")
            .order_by("-period__start")
        )


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("player", *REPORT_FIELDS)
    list_filter = ("period", "status")
    list_select_related = ("player", "period")
    search_fields = ("player__name",)
    readonly_fields = ("player", *REPORT_FIELDS)
    ordering = ("-period__start", "-rating_after")


@admin.register(RatingRun)
class RatingRunAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Every rating run: what asked for it, from which period, and what it did."""

    list_display = ("id", "status", "reason", "requested_by", "from_period", "changes",
                    "requested_at", "started_at", "finished_at", "periods", "players_changed",
                    "attempts")  # fmt: skip
    list_filter = ("status",)
    list_select_related = ("requested_by", "from_period")
    search_fields = ("reason", "summary", "error")
    fields = (
        "status", "reason", "requested_by", "changes", "from_period", "players", "requested_at",
        "last_change_at", "started_at", "finished_at", "attempts", "periods", "players_changed",
        "rows_written", "summary", "error", "folded_into", "task_id",
    )  # fmt: skip
    readonly_fields = fields
    date_hierarchy = "requested_at"

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        # Runs say how fresh the ratings are: every staff user who can see the ratings may.
        return super().has_view_permission(request, obj) or request.user.has_perm(
            "ratings.view_ratingchange"
        )
