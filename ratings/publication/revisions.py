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
from django.db.models import Exists, F, OuterRef, Q

from ladder.records import (
    EventType,
    Game,
    PeriodLog,
    Player,
    PlayerMerge,
    RatingPeriod,
    kept_lists,
    webhooks,
)
from ratings import selectors
from ratings.models import Publication, PublishedRating, RatingChange
from ratings.recompute import bulk

# A line as published: status, rating, change, K applied, games, total games, adjustment.
_Line = tuple[str, int | None, int, int | None, int, int, int]
LINE_FIELDS = ("status", "rating", "change", "k", "games", "total_games", "adjustment")
_RATING, _CHANGE, _ADJUSTMENT = (LINE_FIELDS.index(f) for f in ("rating", "change", "adjustment"))


def publish(period: RatingPeriod, *, user: Any = None) -> list[Publication]:
    """Publish the lists that close ``period`` (revision 1, or a revision of each list that
    changed since its last publication, with the reason the period was reopened); return the
    publications made."""
    return _publish(period, user=user, reason=_reopen_reason(period))


def revise_later(period: RatingPeriod, *, user: Any = None) -> list[Publication]:
    """Publish a revision of every later closed period whose list a correction in ``period``
    changed (its ratings flowed forward), up to the first open period after it: the lists
    beyond it would carry that period's correction still in progress, and are revised when it
    closes."""
    published = Publication.objects.filter(period=OuterRef("pk"))
    after = RatingPeriod.objects.filter(start__gt=period.start).annotate(
        published=Exists(published)
    )
    made: list[Publication] = []
    for other in after.order_by("start"):
        if not other.is_closed:
            break
        if other.published:  # else closed before lists were kept as published
            made += _publish(other, user=user, reason="")
    return made


def revise_from(period: RatingPeriod, *, reason: str, user: Any = None) -> list[Publication]:
    """Publish, with ``reason``, a revision of every closed period's lists from ``period`` on
    that changed, up to the first open period (a merge or an unmerge: the change is made in
    every one of them at once, no period being reopened)."""
    published = Publication.objects.filter(period=OuterRef("pk"))
    periods = RatingPeriod.objects.filter(start__gte=period.start).annotate(
        published=Exists(published)
    )
    made: list[Publication] = []
    for other in periods.order_by("start"):
        if not other.is_closed:
            break
        if other.published:
            made += _publish(other, user=user, reason=reason)
    return made


@transaction.atomic
def _publish(period: RatingPeriod, *, user: Any, reason: str) -> list[Publication]:
    made = []
    for rating_list in kept_lists():
        previous = (
            Publication.objects.filter(period=period, rating_list=rating_list)
            .order_by("-revision")
            .first()
        )
        published = _published_lines(previous) if previous is not None else None
        lines = _lines_now(period, rating_list, published)
        differences: list[list[Any]] = []
        if published is not None:
            differences = _differences(published, lines)
            if not differences:
                continue  # the list is as published: nothing to revise
        publication = Publication.objects.create(
            period=period,
            rating_list=rating_list,
            revision=previous.revision + 1 if previous else 1,
            published_by=user if user is not None and user.is_authenticated else None,
            reason=reason if previous else "",
            corrected_in=_corrected_in(period, previous) if previous else None,
            players_changed=len(differences),
            differences=differences,
        )
        bulk.insert_rows(
            PublishedRating,
            ("publication", "player", *LINE_FIELDS),
            ((publication.pk, pid, *line) for pid, line in lines.items()),
        )
        webhooks.emit(
            EventType.LIST_REVISED if previous else EventType.LIST_PUBLISHED, _event(publication)
        )
        made.append(publication)
    return made


def _event(publication: Publication) -> dict[str, Any]:
    """What a webhook event says of a publication: stable ids (period label, list, revision)."""
    corrected_in = publication.corrected_in.label if publication.corrected_in else None
    return {
        "period": publication.period.label,
        "period_id": publication.period_id,
        "list": publication.rating_list,
        "revision": publication.revision,
        "published_at": publication.published_at,
        "players_changed": publication.players_changed,
        "reason": publication.reason,
        "corrected_in": corrected_in,
    }


def _lines_now(
    period: RatingPeriod, rating_list: str, published: dict[int, _Line] | None
) -> dict[int, _Line]:
    """The lines of the list that closes ``period`` as it reads now, by player id (``published``:
    the lines of its last publication, if any).

    A first publication lists every player. A revision lists the players of the one before it
    and those who have played by the period (a correction may add a game); a player who joined
    later is on the lists of the periods after they joined only. The line of a player who never
    had a game by the period is carried as published: entry data shape the lists from a
    player's first game on (``check_entry_change``), so a change to them made since is no
    correction of this list.
    """
    entries = selectors.rating_list(period, rating_list)
    lines = {
        e.player.pk: (e.status, e.rating, e.change, e.k, e.games, e.total_games, e.adjustment)
        for e in entries
    }
    if published is None:
        return lines
    played = set(
        RatingChange.objects.filter(rating_list=rating_list, period__start__lte=period.start)
        .values_list("player_id", flat=True)
        .distinct()
    )
    back = _listed_again(period, rating_list, set(lines) - published.keys() - played)
    lines = {
        pid: line for pid, line in lines.items() if pid in published or pid in played or pid in back
    }
    differing = {
        pid for pid, line in lines.items()
        if pid not in played and pid in published and published[pid] != line
    }  # fmt: skip
    for pid in differing - _ever_played(differing, period, rating_list):
        lines[pid] = published[pid]
    return lines


def _listed_again(period: RatingPeriod, rating_list: str, candidates: set[int]) -> set[int]:
    """The ``candidates`` that an unmerge brings back to a list that named them before their
    merge took them off it (a player is never taken off a published list otherwise). One
    small query (the players ever unmerged), two when one of them is a candidate."""
    if not candidates:
        return set()
    undone = PlayerMerge.objects.filter(undone_at__isnull=False).values_list("merged_id", flat=True)
    unmerged = set(undone) & candidates
    if not unmerged:
        return set()
    lines = PublishedRating.objects.filter(
        publication__period=period, publication__rating_list=rating_list, player_id__in=unmerged
    )
    return set(lines.values_list("player_id", flat=True).distinct())


def _ever_played(players: set[int], period: RatingPeriod, rating_list: str) -> set[int]:
    """The ``players`` who had a game on the list by the end of ``period`` at any time (its
    history keeps the games since deleted or moved). One query; none for no players."""
    if not players:
        return set()
    versions = Game.history.filter(
        Q(white_id__in=players) | Q(black_id__in=players),
        date__lte=period.end,
        rating_list=rating_list,
    ).values_list("white_id", "black_id")
    return {pid for pair in versions for pid in pair} & players


def _corrected_in(period: RatingPeriod, previous: Publication) -> RatingPeriod | None:
    """The period whose correction a revision of ``period``'s list publishes: the earliest
    earlier period closed again since the list was last published (None: the correction was
    made in ``period`` itself)."""
    closed_since = PeriodLog.objects.filter(
        action=PeriodLog.Action.CLOSED,
        at__gt=previous.published_at,
        period__start__lt=period.start,
    )
    first = closed_since.select_related("period").order_by("period__start").first()
    return first.period if first is not None else None


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
    rows = publication.lines.values_list("player_id", *LINE_FIELDS)
    return {pid: tuple(line) for pid, *line in rows}


def _differences(old: dict[int, _Line], new: dict[int, _Line]) -> list[list[Any]]:
    """Per player whose line changed: [player id, old rating, new rating, old change, new
    change] (a player off one of the lists: unrated, no change)."""
    rows = []
    for pid in sorted(old.keys() | new.keys()):
        before, after = old.get(pid), new.get(pid)
        if _shown(before) != _shown(after):
            was = (before[_RATING], before[_CHANGE]) if before else (None, 0)
            now = (after[_RATING], after[_CHANGE]) if after else (None, 0)
            rows.append([pid, was[0], now[0], was[1], now[1]])
    return rows


def _shown(line: _Line | None) -> tuple[Any, ...] | None:
    """What a line shows, the adjustment aside: it is part of the rating shown (a line
    published before lines kept it reads 0), so it alone makes no revision."""
    return line[:_ADJUSTMENT] if line is not None else None


def _reopen_reason(period: RatingPeriod) -> str:
    reopen = period.last_reopen()
    return reopen.reason if reopen is not None else ""
