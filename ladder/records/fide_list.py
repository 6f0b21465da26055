"""FIDE's monthly rating list, kept as dated snapshots: one row per FIDE id and month.

A row is what FIDE published of a player on the 1st of that month: identity (name, federation,
sex, titles, birth year, flag) and, per list, the rating, the games rated in the last period and
the K. Written whole by the FIDE list import (``actions.import_fide_list``), read beside the
club's own ratings on the player pages and in the API (``latest_for``; the API's player reads
take it with the player, ``latest_row_of``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from django.db import models
from django.db.models import Max
from django.db.models.functions import JSONObject
from django.utils.translation import gettext_lazy

from ladder.records.compiled import Compiled

# The columns a snapshot row carries, in the order the FIDE list reader yields them (as COPY
# text). ``month`` is added by the writer.
ROW_FIELDS = (
    "fide_id", "name", "federation", "sex", "title", "women_title", "other_titles", "foa_title",
    "standard_rating", "standard_games", "standard_k",
    "rapid_rating", "rapid_games", "rapid_k",
    "blitz_rating", "blitz_games", "blitz_k",
    "birth_year", "flag",
)  # fmt: skip
IDENTITY_FIELDS = ROW_FIELDS[:8] + ("birth_year", "flag")
LIST_COLUMNS = {
    name: (f"{name}_rating", f"{name}_games", f"{name}_k")
    for name in ("standard", "rapid", "blitz")
}


def _rating(label: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(f"{label} rating", null=True, blank=True)


def _games(label: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        f"{label} games", null=True, blank=True, help_text="Rated games in FIDE's last period."
    )


def _k(label: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(f"{label} K", null=True, blank=True)


class FideListQuerySet(models.QuerySet["FideListEntry"]):
    def latest_month(self) -> date | None:
        """The month of the newest list imported, or None."""
        return self.aggregate(month=Max("month"))["month"]

    def latest_for(self, fide_ids: Iterable[int | None]) -> dict[int, FideListEntry]:
        """The rows of the newest list imported for these FIDE ids, by FIDE id: one query."""
        wanted = sorted({i for i in fide_ids if i})
        if not wanted:
            return {}
        if self.query.is_sliced or self.query.has_filters() or self.query.order_by:
            rows = list(_latest_for(self, tuple(wanted)))  # a QuerySet of its own: as it is
        else:
            rows = _LATEST_FOR.objects(tuple(wanted))  # the SQL compiled once (every player read)
        return {row.fide_id: row for row in rows}


def _latest_for(
    entries: models.QuerySet[FideListEntry], fide_ids: tuple[int, ...]
) -> models.QuerySet[FideListEntry]:
    return entries.filter(month=models.Subquery(_newest_month()), fide_id__in=fide_ids)


def _newest_month() -> models.QuerySet[FideListEntry, Any]:
    return FideListEntry.objects.values("month").order_by("-month")[:1]


def latest_row_of() -> models.Subquery:
    """A player's row of the newest list imported, as a subquery on the players' query (by
    their ``fide_id``): the row's fields as one JSON object, or null. A player's read takes
    it with the player (``row_from``) rather than in a query of its own (``latest_for``)."""
    row = JSONObject(**{f.attname: f.attname for f in FideListEntry._meta.concrete_fields})
    found = FideListEntry.objects.filter(
        month=models.Subquery(_newest_month()), fide_id=models.OuterRef("fide_id")
    )
    return models.Subquery(found.order_by().values(row=row)[:1])


def row_from(data: dict[str, Any] | None) -> FideListEntry | None:
    """The row ``latest_row_of`` read (None: none), as ``latest_for`` would have read it."""
    if data is None:
        return None
    fields = FideListEntry._meta.concrete_fields
    return FideListEntry(**{f.attname: f.to_python(data[f.attname]) for f in fields})


_LATEST_FOR = Compiled(lambda fide_ids: _latest_for(FideListEntry.objects.all(), fide_ids))


class FideListEntry(models.Model):
    """A player on FIDE's rating list of one month. Numbers are as FIDE writes them: a rating,
    K or birth year of 0 is "none" (unrated, not known); null is a list the file imported did
    not carry (a one-list file)."""

    month = models.DateField(help_text="The list's month: its first day.")
    fide_id = models.PositiveBigIntegerField("FIDE id")
    name = models.CharField(max_length=100)
    federation = models.CharField(max_length=3, blank=True)
    sex = models.CharField(max_length=1, blank=True)
    title = models.CharField(max_length=5, blank=True)
    women_title = models.CharField(max_length=5, blank=True)
    other_titles = models.CharField(max_length=40, blank=True)
    foa_title = models.CharField("FOA title", max_length=5, blank=True)
    standard_rating = _rating("standard")
    standard_games = _games("standard")
    standard_k = _k("standard")
    rapid_rating = _rating("rapid")
    rapid_games = _games("rapid")
    rapid_k = _k("rapid")
    blitz_rating = _rating("blitz")
    blitz_games = _games("blitz")
    blitz_k = _k("blitz")
    birth_year = models.PositiveSmallIntegerField(null=True, blank=True)
    flag = models.CharField(max_length=3, blank=True, help_text="i: inactive, w: woman.")

    objects = FideListQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("FIDE list entry")
        verbose_name_plural = gettext_lazy("FIDE list entries")
        constraints = [
            # Also the index of every read: a month, then the ids wanted.
            models.UniqueConstraint(fields=["month", "fide_id"], name="fide_list_once_a_month")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.fide_id}), FIDE list {self.month:%Y-%m}"

    @property
    def inactive(self) -> bool:
        return "i" in self.flag

    def on_list(self, rating_list: str) -> tuple[int | None, int | None, int | None]:
        """Rating, games and K on one list (``standard``, ``rapid``, ``blitz``); the rating and
        K None while unrated there."""
        rating, games, k = (getattr(self, name) for name in LIST_COLUMNS[rating_list])
        return rating or None, games, (k or None) if rating else None
