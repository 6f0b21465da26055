"""Bulk reads: a period's whole rating list and a player's whole history, row by row.

Each read is one query whose rows come from a server-side cursor (``QuerySet.iterator``), as
plain tuples in the order of its ``*_COLUMNS``: memory stays the same whatever the number of
players, and no model instance is built (building a Player and a RatingChange for each of
100,000 lines cost 4 s, measured). The lines are those of the paginated reads:

- ``live_lines``: ``selectors.rating_list`` (``ListEntry.as_dict()`` plus ``level``), in its
  order (names compared as Python compares them, by code point);
- ``published_lines``: a list as published (``publication.as_published``), as the API's
  ``PublishedLineSerializer`` gives them;
- ``history_lines``: ``selectors.player_history``, newest period first.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Case, F, FilteredRelation, OuterRef, Q, Subquery, When
from django.db.models.functions import Collate

from ladder.records import LIST_FIELDS, Player, RatingPeriod
from ratings.models import Publication, PublishedRating, RatingChange, Status
from ratings.rules import eras, fide

# Rows fetched from the cursor at a time.
CHUNK_SIZE = 2000

LIVE_COLUMNS = (
    "id", "name", "fide_id", "rating_before", "rating", "change", "k", "k_published", "games",
    "total_games", "status", "score", "expected", "change_exact", "performance", "inactive",
    "level",
)  # fmt: skip
PUBLISHED_COLUMNS = (
    "id", "name", "fide_id", "rating", "change", "k", "games", "total_games", "status",
    "level", "revision",
)  # fmt: skip
HISTORY_COLUMNS = (
    "period_id", "period", "start", "end", "status", "rating_before", "k", "k_reason",
    "k_applied", "games", "score", "expected", "change_exact", "change", "rating_after",
    "performance", "rated_games_after", "adjustment", "adjusted_on", "adjustment_reason",
)  # fmt: skip

_LABELS = {status.value: status.label for status in Status}
_RATED, _UNRATED = Status.RATED.label, Status.UNRATED.label
_ZERO = str(Decimal("0.00"))


@functools.lru_cache(maxsize=65536)
def _decimal(units: int) -> str:
    """An amount in units as the API writes it ("0.76"); few values recur over a list."""
    return str(fide.units_to_decimal(units))


# The rules, kept for the values that recur over a list (titles and ratings, the dates of
# the last rated game).
_level = functools.lru_cache(maxsize=65536)(fide.level)
_inactive = functools.lru_cache(maxsize=65536)(fide.is_inactive)


def publication_of(
    period: RatingPeriod, rating_list: str, revision: int | None = None
) -> Publication | None:
    """The publication of a period's list: its latest revision, or ``revision``; None if it
    was never published. One query."""
    publications = Publication.objects.filter(period=period, rating_list=rating_list)
    if revision is not None:
        publications = publications.filter(revision=revision)
    return publications.order_by("-revision").first()


# A published line's fields: PUBLISHED_COLUMNS up to ``status``, then the title (for the level).
_PUBLISHED = (
    "player_id", "player__name", "player__fide_id", "rating", "change", "k", "games",
    "total_games", "status", "player__title",
)  # fmt: skip


def published_lines(publication: Publication) -> Iterator[tuple[Any, ...]]:
    """The lines of a list as published, best first (``PUBLISHED_COLUMNS``). One query."""
    rows = (
        PublishedRating.objects.filter(publication=publication)
        .order_by(F("rating").desc(nulls_last=True), "player__name", "player_id")
        .values_list(*_PUBLISHED)
    )
    revision = publication.revision
    for *line, title in rows.iterator(chunk_size=CHUNK_SIZE):
        yield (*line, _level(title, line[3]), revision)


# The RatingChange fields a line reads, in the model's order.
_CHANGE = (
    "period_id", "status", "rating_before", "k", "k_applied", "games", "score_units",
    "expected_units", "change_exact_units", "change", "rating_after", "performance",
    "rated_games_after", "last_rated_on",
)  # fmt: skip


def live_lines(period: RatingPeriod | None, rating_list: str) -> Iterator[tuple[Any, ...]]:
    """Every player's line on the list that closes ``period`` (None: no period yet, every
    player from the entry data), read live: each player's latest RatingChange at or before
    it, else the entry data (``selectors.rating_list``). ``LIVE_COLUMNS``; one query."""
    fields = LIST_FIELDS[rating_list]
    players = Player.objects.all()
    if period is not None:
        latest = (
            RatingChange.objects.filter(
                player=OuterRef("pk"), rating_list=rating_list, period__start__lte=period.start
            )
            .order_by("-period__start")
            .values("period_id")[:1]
        )
        players = players.annotate(
            change=FilteredRelation(
                "rating_changes",
                condition=Q(
                    rating_changes__rating_list=rating_list,
                    rating_changes__period_id=Subquery(latest),
                ),
            )
        )
        changed = [f"change__{name}" for name in _CHANGE]
        rating: Case | F = Case(
            When(change__player_id__isnull=True, then=F(fields.entry_rating)),
            default=F("change__rating_after"),
        )
    else:
        changed, rating = [], F(fields.entry_rating)
    # Python compares names by code point (selectors.rating_list sorts in Python): so does
    # the "C" collation on PostgreSQL, and SQLite's default one.
    name = Collate("name", "C") if connection.vendor == "postgresql" else F("name")
    rows = (
        players.annotate(list_rating=rating)
        .order_by(F("list_rating").desc(nulls_last=True), name, "pk")
        .values_list(
            "pk",
            "name",
            "fide_id",
            "title",
            fields.entry_rating,
            fields.entry_rated_games,
            *changed,
        )
    )
    on, here = (period.end, period.pk) if period is not None else (None, None)
    for row in rows.iterator(chunk_size=CHUNK_SIZE):
        yield _live_line(row, on, here)


def _live_line(row: tuple[Any, ...], on: Any, here: int | None) -> tuple[Any, ...]:
    """One line from the query's row, as ``selectors``' ``_entry_from_player``,
    ``_entry_from_change`` and ``_entry_carried`` make it."""
    pk, name, fide_id, title, entry_rating, entry_games, *change = row
    if not change or change[0] is None:  # no RatingChange on the list: the entry data
        status = _RATED if entry_rating is not None else _UNRATED
        return (pk, name, fide_id, entry_rating, entry_rating, 0, None, None, 0, entry_games,
                status, _ZERO, _ZERO, _ZERO, None, False, _level(title, entry_rating))  # fmt: skip
    (period_id, status, before, k, k_applied, games, score, expected, exact, delta, after,
     performance, total, last_rated) = change  # fmt: skip
    inactive = after is not None and _inactive(last_rated, on)
    if period_id == here:
        return (pk, name, fide_id, before, after, delta, k_applied, k, games, total,
                _LABELS[status], _decimal(score), _decimal(expected), _decimal(exact),
                performance, inactive, _level(title, after))  # fmt: skip
    status = _RATED if after is not None else _UNRATED  # carried from an earlier period
    return (pk, name, fide_id, after, after, 0, None, None, 0, total, status, _ZERO, _ZERO,
            _ZERO, None, inactive, _level(title, after))  # fmt: skip


# A history row's fields: HISTORY_COLUMNS with the amounts in units.
_HISTORY = (
    "period_id", "period__label", "period__start", "period__end", "status", "rating_before",
    "k", "k_reason", "k_applied", "games", "score_units", "expected_units",
    "change_exact_units", "change", "rating_after", "performance", "rated_games_after",
    "adjustment", "adjusted_on",
)  # fmt: skip


def history_lines(player: Player, rating_list: str) -> Iterator[tuple[Any, ...]]:
    """A player's RatingChange rows on a list, newest period first (``HISTORY_COLUMNS``; as
    ``selectors.player_history``). One query."""
    rows = (
        RatingChange.objects.filter(player=player, rating_list=rating_list)
        .order_by("-period__start")
        .values_list(*_HISTORY)
    )
    for row in rows.iterator(chunk_size=CHUNK_SIZE):
        reason = eras.adjustment_reason(row[18], rating_list) if row[18] is not None else ""
        yield (*row[:10], _decimal(row[10]), _decimal(row[11]), _decimal(row[12]), *row[13:],
               reason)  # fmt: skip
