"""Read-only admin for the ratings: every number is derived, so nothing here is editable."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from .models import RatingChange

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
    """Viewable by those with the view permission; written only by ``ratings.services``."""

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
    verbose_name = "rating change"
    verbose_name_plural = "Rating history (newest first)"

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
