"""Ratings on any date: the official list in force on a day, the revision it comes from, and
the live rating then.

The list in force on a day is the one published for the last period that ended before it
(as FIDE publishes a period's list on the 1st of the next month: the list of 2026-02 is in
force from 1 March), read as it stood that day: the latest revision published by the end
of that day, or, when the list was published only after it (a period closed late), as first
published. ``latest_revision`` says whether a revision has corrected it since. A period whose
list was never published (still open, or closed before lists were kept) is passed over: the
list in force is the one published before it.

Reads only, in a fixed number of queries; nothing here imports a writer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Subquery
from django.utils import timezone

from ladder.records import LIST_FIELDS, Player, RatingPeriod
from ratings.models import Publication, PublishedRating, RatingChange


@dataclass(frozen=True)
class InForce:
    """The published list in force on ``day`` on one list (``publication`` None: no list had
    been published for a period ending before it)."""

    day: date
    rating_list: str
    publication: Publication | None
    latest_revision: int | None  # the period's latest revision, today

    @property
    def revised_since(self) -> bool:
        """Whether a revision published after ``day`` has corrected the list since."""
        return self.publication is not None and self.latest_revision != self.publication.revision


def in_force(day: date, rating_list: str) -> InForce:
    """The list in force on ``day`` on ``rating_list``, with its period and people. One query
    (every revision of the period, a handful of rows)."""
    last_period = (
        Publication.objects.filter(rating_list=rating_list, period__end__lt=day)
        .order_by("-period__start")
        .values("period_id")[:1]
    )
    revisions = list(
        Publication.objects.filter(rating_list=rating_list, period_id=Subquery(last_period))
        .select_related("period", "published_by", "corrected_in")
        .order_by("revision")
    )
    if not revisions:
        return InForce(day, rating_list, None, None)
    end = _end_of(day)
    by_then = [p for p in revisions if end is None or p.published_at < end]
    chosen = by_then[-1] if by_then else revisions[0]
    return InForce(day, rating_list, chosen, revisions[-1].revision)


def _end_of(day: date) -> datetime | None:
    """The first moment after ``day`` in the club's time zone (None after the last date)."""
    if day == date.max:
        return None
    return datetime.combine(
        day + timedelta(days=1), time.min, tzinfo=timezone.get_current_timezone()
    )


@dataclass(frozen=True)
class LiveRating:
    """The live rating on a day, as the rating runs read it now: the rating after the latest
    period that had started by then in which the player had a game on the list (every game of
    that period counted, and every correction since, published or not), else the entry
    rating. For a day in the open period it is the live rating the player's page shows."""

    rating: int | None
    period: RatingPeriod | None  # the period it is the rating after; None: the entry data


@dataclass(frozen=True)
class RatingOn:
    """A player's official rating on a day (their line on the list in force), and the live
    one when asked for."""

    player: Player
    in_force: InForce
    line: PublishedRating | None  # None: not on that list, or no list in force
    live: LiveRating | None

    @property
    def official(self) -> int | None:
        return self.line.rating if self.line is not None else None


def rating_on(player: Player, day: date, rating_list: str, *, live: bool = False) -> RatingOn:
    """``player``'s rating on ``day`` on ``rating_list``: the official one, and the live one
    with ``live``. At most three queries."""
    found = in_force(day, rating_list)
    line = None
    if found.publication is not None:
        line = PublishedRating.objects.filter(publication=found.publication, player=player).first()
    return RatingOn(player, found, line, _live(player, day, rating_list) if live else None)


def _live(player: Player, day: date, rating_list: str) -> LiveRating:
    change = (
        RatingChange.objects.filter(player=player, rating_list=rating_list, period__start__lte=day)
        .select_related("period")
        .order_by("-period__start")
        .first()
    )
    if change is None:
        return LiveRating(getattr(player, LIST_FIELDS[rating_list].entry_rating), None)
    return LiveRating(change.rating_after, change.period)
