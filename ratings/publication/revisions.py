"""Published lists and their revisions: what a closed period's list said, kept as it said it.

Closing a period publishes, for each list the club keeps, the list that closes it (revision 1):
every player's rating, change, K and games, as ``selectors.rating_list`` gives them. Closing it
again after a correction publishes revision 2, 3, ... if the list changed, with the reason the
period was reopened and, per player whose line changed, the line before and after. A
correction flows into every later period's ratings, so closing a period also publishes a
revision of each later closed period whose list it changed, naming the period where the
correction was made. Nothing here is ever updated: a published list changes only by a new,
visible revision.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from ladder.records import PeriodStatus, Player, RatingPeriod, kept_lists
from ratings import selectors
from ratings.models import Publication, PublishedRating
from ratings.recompute import bulk

# A line as compared between revisions: rating, change.
_Line = tuple[int | None, int]


@transaction.atomic
def publish(
    period: RatingPeriod,
    *,
    user: Any = None,
    rating_lists: Sequence[str] | None = None,
    corrected_in: RatingPeriod | None = None,
) -> list[Publication]:
    """Publish the lists that close ``period`` (first publication, or a revision when a list
    changed since its last one); return the publications made."""
    made = []
    for rating_list in rating_lists or kept_lists():
        entries = selectors.rating_list(period, rating_list)
        lines = {e.player.pk: (e.rating, e.change) for e in entries}
        previous = (
            Publication.objects.filter(period=period, rating_list=rating_list)
            .order_by("-revision")
            .first()
        )
        differences: list[list[Any]] = []
        if previous is not None:
            differences = _differences(_published_lines(previous), lines)
            if not differences:
                continue  # the list is as published: nothing to revise
        publication = Publication.objects.create(
            period=period,
            rating_list=rating_list,
            revision=previous.revision + 1 if previous else 1,
            published_by=user if user is not None and user.is_authenticated else None,
            reason=_reopen_reason(period) if previous and corrected_in is None else "",
            corrected_in=corrected_in,
            players_changed=len(differences),
            differences=differences,
        )
        bulk.insert_rows(
            PublishedRating,
            ("publication", "player", "status", "rating", "change", "k", "games", "total_games"),
            (
                (publication.pk, e.player.pk, e.status, e.rating, e.change, e.k, e.games,
                 e.total_games)
                for e in entries
            ),
        )  # fmt: skip
        made.append(publication)
    return made


def revise_later(period: RatingPeriod, *, user: Any = None) -> list[Publication]:
    """Publish a revision of every later closed period whose list a correction in ``period``
    changed (its ratings flowed forward)."""
    later = RatingPeriod.objects.filter(
        start__gt=period.start, status=PeriodStatus.CLOSED, publications__isnull=False
    ).distinct()
    made: list[Publication] = []
    for other in later.order_by("start"):
        made += publish(other, user=user, corrected_in=period)
    return made


@dataclass(frozen=True)
class Difference:
    player: Player | None
    player_id: int
    old_rating: int | None
    new_rating: int | None
    old_change: int
    new_change: int


def differences(publications: Iterable[Publication]) -> dict[int, list[Difference]]:
    """Each publication's per-player differences with the one before, with the players (one
    query for all)."""
    publications = list(publications)
    ids = {row[0] for p in publications for row in p.differences}
    players = Player.objects.in_bulk(ids)
    return {
        p.pk: [Difference(players.get(row[0]), *row) for row in p.differences] for p in publications
    }


def revisions(period: RatingPeriod, rating_list: str) -> list[tuple[Publication, list[Difference]]]:
    """A period's publications on a list, oldest first, each with what it changed (three
    queries: publications, their people, the players they changed)."""
    found = list(
        period.publications.filter(rating_list=rating_list).select_related(
            "published_by", "corrected_in"
        )
    )
    changed = differences(found)
    return [(p, changed[p.pk]) for p in found]


def all_revisions(period: RatingPeriod) -> dict[str, list[tuple[Publication, list[Difference]]]]:
    """A period's publications on every list, by list, oldest first, each with what it
    changed (three queries, whatever the number of lists: publications, their people, the
    players they changed)."""
    found = list(
        period.publications.select_related("published_by", "corrected_in").order_by(
            "rating_list", "revision"
        )
    )
    changed = differences(found)
    by_list: dict[str, list[tuple[Publication, list[Difference]]]] = {}
    for p in found:
        by_list.setdefault(p.rating_list, []).append((p, changed[p.pk]))
    return by_list


def player_revisions(
    player: Player, rating_lists: Sequence[str], periods: Iterable[int]
) -> dict[tuple[str, int], list[tuple[Publication, Difference]]]:
    """Each revision of the lists of ``periods`` (ids) that changed ``player``'s line, by
    (list, period id), oldest first, with the player's difference. One query (the revisions'
    differences are read in Python)."""
    found: dict[tuple[str, int], list[tuple[Publication, Difference]]] = {}
    revised = (
        Publication.objects.filter(
            rating_list__in=list(rating_lists), period_id__in=list(periods), revision__gt=1
        )
        .select_related("corrected_in")
        .order_by("period_id", "revision")
    )
    for p in revised:
        for row in p.differences:
            if row[0] == player.pk:
                key = (p.rating_list, p.period_id)
                found.setdefault(key, []).append((p, Difference(player, *row)))
    return found


def as_published(period: RatingPeriod, rating_list: str, revision: int | None = None) -> Any:
    """The lines of a period's list as published (the latest revision, or ``revision``),
    best first; None if it was never published."""
    publications = Publication.objects.filter(period=period, rating_list=rating_list)
    if revision is not None:
        publications = publications.filter(revision=revision)
    publication = (
        publications.select_related("published_by", "corrected_in").order_by("-revision").first()
    )
    if publication is None:
        return None
    best_first = (F("rating").desc(nulls_last=True), "player__name", "player_id")
    return publication, list(publication.lines.select_related("player").order_by(*best_first))


def _published_lines(publication: Publication) -> dict[int, _Line]:
    return {
        pid: (rating, change)
        for pid, rating, change in publication.lines.values_list("player_id", "rating", "change")
    }


def _differences(old: dict[int, _Line], new: dict[int, _Line]) -> list[list[Any]]:
    rows = []
    for pid in sorted(old.keys() | new.keys()):
        before, after = old.get(pid, (None, 0)), new.get(pid, (None, 0))
        if before != after:
            rows.append([pid, before[0], after[0], before[1], after[1]])
    return rows


def _reopen_reason(period: RatingPeriod) -> str:
    reopen = period.last_reopen()
    return reopen.reason if reopen is not None else ""
