"""Official and provisional ratings: the last published list, and the live rating beside it.

A player's **official** rating on a list is their line on the last list published there: the
latest revision of the latest period whose list was published. The **provisional** (live)
rating is the one the rating runs keep on the player, which already counts the games of the
periods after it (the open period's games so far, or a correction not yet published). A list
stays official as published until a revision replaces it, so a period reopened for a
correction keeps its published list official until it is closed again.

Reads only, in a constant number of queries whatever the number of players or lists.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.core.paginator import Page
from django.db.models import F, FilteredRelation, Q, QuerySet, Subquery

from ladder.records import Player, RatingPeriod
from ladder.records.compiled import Compiled
from ladder.records.paging import Paginator
from ratings import selectors
from ratings.models import Publication, PublishedRating, Status
from ratings.recompute.states import latest_changes
from ratings.rules import fide


@dataclass(frozen=True)
class Standing:
    """One player on one list: the official rating and the live (provisional) one."""

    official: int | None  # None: unrated on the published list, or not on it, or none published
    live: int | None
    publication: Publication | None  # the list the official rating is read from
    on_list: bool  # the player has a line on that published list

    @property
    def provisional(self) -> bool:
        """Tell whether the live rating differs from the official one (it is provisional)."""
        return self.live != self.official

    @property
    def difference(self) -> int | None:
        """Live minus official, when both are ratings."""
        if self.live is None or self.official is None:
            return None
        return self.live - self.official


_READ: Any = object()  # ``OfficialList.standing``: the live rating read from the player


@dataclass(frozen=True)
class OfficialList:
    """The last published list on one rating list, with the lines of the players asked for."""

    rating_list: str
    publication: Publication | None
    # each player's line (a page of players reads only its rating: ``RatingLine``)
    lines: dict[int, PublishedRating | RatingLine] = field(default_factory=dict)

    def standing(self, player: Player, *, live: int | None = _READ) -> Standing:
        """The player's official rating on this list beside their live one (``live``: the
        live rating, when the caller has read the player's state on the list already)."""
        line = self.lines.get(player.pk)
        return Standing(
            official=line.rating if line is not None else None,
            live=player.on_list(self.rating_list).rating if live is _READ else live,
            publication=self.publication,
            on_list=line is not None,
        )

    def official(self, player_id: int, live: int | None) -> tuple[int | None, bool]:
        """``standing``'s official rating of a player and whether ``live`` differs from it
        (provisional), without making a ``Standing``: a page of players asks it a row and
        list."""
        line = self.lines.get(player_id)
        official = None if line is None else line.rating
        return official, live != official


def latest_publications(
    rating_lists: Sequence[str], *, people: bool = True
) -> dict[str, Publication]:
    """The last list published on each of ``rating_lists`` (latest period, latest revision),
    with its period and (``people``) who published it and what it corrected. One query.

    Without ``people`` the row is read without its differences too: what an official rating
    names (the period, the revision, when) is read on every player's read, and the joins and
    the differences' JSON were half of a player's detail."""
    return {p.rating_list: p for p in _latest(tuple(rating_lists), people).objects()}


@functools.lru_cache(maxsize=32)
def _latest(rating_lists: tuple[str, ...], people: bool) -> Compiled[Publication]:
    """``latest_publications``' query, compiled once per process (every player's read asks
    it), run afresh each time."""
    return Compiled(lambda: _latest_query(rating_lists, people))


def _latest_query(rating_lists: tuple[str, ...], people: bool) -> QuerySet[Publication]:
    # One subquery per list, each run once: correlated on the list, the subquery ran once per
    # publication of the lists, each time over that list's publications, and a club ten years
    # old (360 of them) took 4 ms a read, growing with the square of its history.
    def latest(rating_list: str) -> Subquery:
        newest = (
            Publication.objects.filter(rating_list=rating_list)
            .order_by("-period__start", "-revision")
            .values("pk")[:1]
        )
        return Subquery(newest)

    found = Publication.objects.filter(pk__in=[latest(name) for name in rating_lists])
    if people:
        return found.select_related("period", "published_by", "corrected_in")
    return found.select_related("period").defer("differences")


def official_lists(
    rating_lists: Sequence[str], players: Iterable[Player] | None = None
) -> dict[str, OfficialList]:
    """The official list of each of ``rating_lists`` with the lines of ``players`` (default:
    every line). Two queries, whatever the number of players and lists; one for one player."""
    players = None if players is None else list(players)
    if players is not None and len(players) == 1:
        return _one_players_lists(tuple(rating_lists), players[0])
    publications = latest_publications(rating_lists, people=False)
    found = tuple(p.pk for p in publications.values())
    by_publication: dict[int, dict[int, PublishedRating | RatingLine]] = {}
    if not found:  # nothing published: no lines (and no query, as the ORM asks none)
        pass
    elif players is None:
        for line in _lines(found).order_by():
            by_publication.setdefault(line.publication_id, {})[line.player_id] = line
    else:  # a page's lines, on every read of a page of players: the SQL compiled once
        rows = _PLAYERS_LINES.rows(found, tuple(p.pk for p in players))
        for publication, player, rating in rows:
            by_publication.setdefault(publication, {})[player] = RatingLine(rating)
    return {
        name: OfficialList(
            name,
            publications.get(name),
            by_publication.get(publications[name].pk, {}) if name in publications else {},
        )
        for name in rating_lists
    }


def _lines(publications: tuple[int, ...]) -> QuerySet[PublishedRating]:
    return PublishedRating.objects.filter(publication__in=publications)


_PLAYERS_LINES = Compiled(
    lambda publications, players: (
        _lines(publications)
        .filter(player_id__in=players)
        .order_by()
        .values_list("publication_id", "player_id", "rating")
    )
)


class RatingLine(NamedTuple):
    """What a page of players reads of each one's published line: its rating (a line made as
    a model instance a player and list was a fifth of an uncached 42-player page)."""

    rating: int | None


# A line's columns, read beside its publication for one player.
_LINE_FIELDS = tuple(
    f.attname for f in PublishedRating._meta.concrete_fields if f.name != "publication"
)


def _one_players_lists(rating_lists: tuple[str, ...], player: Player) -> dict[str, OfficialList]:
    """``official_lists`` for one player (a player's read, on every request): each list's
    publication with the player's line joined to it, one query rather than two."""
    lines = {}
    publications = {}
    for publication in _one_players_query(rating_lists).objects(player.pk):
        publications[publication.rating_list] = publication
        values = {name: vars(publication).pop(f"line_{name}") for name in _LINE_FIELDS}
        if values["id"] is not None:
            line = PublishedRating(publication_id=publication.pk, **values)
            lines[publication.rating_list] = line
    return {
        name: OfficialList(
            name,
            publications.get(name),
            {player.pk: lines[name]} if name in lines else {},
        )
        for name in rating_lists
    }


@functools.lru_cache(maxsize=32)
def _one_players_query(rating_lists: tuple[str, ...]) -> Compiled[Publication]:
    return Compiled(
        lambda player: (
            _latest_query(rating_lists, False)
            .annotate(line=FilteredRelation("lines", condition=Q(lines__player_id=player)))
            .annotate(**{f"line_{name}": F(f"line__{name}") for name in _LINE_FIELDS})
        )
    )


def official_list(rating_list: str, players: Iterable[Player] | None = None) -> OfficialList:
    """The official list of one rating list with the lines of ``players``. Two queries."""
    return official_lists([rating_list], players)[rating_list]


def live_periods(publication: Publication | None) -> list[RatingPeriod]:
    """The periods whose games the live ratings count beyond the official list (those after
    its period; every period when no list is published yet), oldest first. One query."""
    if publication is None:
        return _EVERY_PERIOD.objects()
    return _PERIODS_AFTER.objects(publication.period.start)


# ``live_periods``' queries, compiled once per process (every standings page reads one).
_EVERY_PERIOD = Compiled(lambda: RatingPeriod.objects.order_by("start"))
_PERIODS_AFTER = Compiled(
    lambda start: RatingPeriod.objects.order_by("start").filter(start__gt=start)
)


# --- the list that closes a period ---------------------------------------------------------


@dataclass(frozen=True)
class PublishedEntry:
    """One player's line on a closed period's list, as published (the latest revision)."""

    player: Player
    rating: int | None
    change: int
    k: int | None  # applied
    games: int  # rated games in the period
    total_games: int
    status: str
    inactive: bool  # not stored: read from the period's own rated games, which it froze
    revision: int
    adjustment: int = 0  # a one-off adjustment's points in ``rating`` (FIDE.md 10.2)

    @property
    def level(self) -> str:
        return fide.level(self.player.title, self.rating)

    def as_dict(self) -> dict[str, Any]:
        """Return the line as the ``rating_list`` contract names it (DESIGN Contracts); what a
        publication does not store (the opening rating, the expected score) is None."""
        opening = (
            self.rating - self.change - self.adjustment
            if self.rating is not None and self.status in (Status.RATED, Status.ADJUSTED)
            else None
        )
        return {
            "id": self.player.pk,
            "name": self.player.name,
            "fide_id": self.player.fide_id,
            "rating_before": opening,
            "rating": self.rating,
            "change": self.change,
            "k": self.k,
            "games": self.games,
            "total_games": self.total_games,
            "status": self.status,
            "inactive": self.inactive,
            "revision": self.revision,
        }


@dataclass(frozen=True)
class PeriodList:
    """The list that closes a period as the doors show it: ``publication`` is the revision its
    lines were read from (None: the period is open, or was never published, and the lines are
    the live ``selectors.ListEntry`` ones)."""

    publication: Publication | None
    entries: list[PublishedEntry] | list[selectors.ListEntry]


def period_list(period: RatingPeriod | None, rating_list: str) -> PeriodList:
    """The list that closes ``period`` (default: the latest): as last published when the
    period is closed, never rebuilt from today's players; live while it is open. Three
    queries for a closed period (the publication, its lines, the inactivity dates)."""
    period = period or RatingPeriod.objects.latest_period()
    publication = _closing_publication(period, rating_list)
    if period is None or publication is None:
        return PeriodList(None, selectors.rating_list(period, rating_list))
    lines = list(publication.lines.select_related("player").order_by(*_BEST_FIRST))
    entries = _published_entries(publication, period, lines, rating_list, every_player=True)
    return PeriodList(publication, entries)


def period_list_page(
    period: RatingPeriod, rating_list: str, number: str | None, per_page: int
) -> tuple[Publication | None, Page[Any]]:
    """One page (``Paginator.get_page(number)``) of ``period_list``. A closed period's list
    is read a page at a time: its lines counted, the page's lines, the inactivity dates of
    the page's players (a federation's list is half a million lines). An open period's live
    list is worked out whole, as ``period_list`` does, and paged."""
    publication = _closing_publication(period, rating_list)
    if publication is None:
        live = selectors.rating_list(period, rating_list)
        return None, Paginator(live, per_page).get_page(number)
    ordered = publication.lines.select_related("player").order_by(*_BEST_FIRST)
    page: Page[Any] = Paginator(ordered, per_page).get_page(number)
    lines = list(page.object_list)
    page.object_list = _published_entries(publication, period, lines, rating_list)
    return publication, page


_BEST_FIRST = (F("rating").desc(nulls_last=True), "player__name", "player_id")


def _closing_publication(period: RatingPeriod | None, rating_list: str) -> Publication | None:
    """The latest revision of a closed period's list (None: open, or closed before lists were
    kept as published)."""
    if period is None or not period.is_closed:
        return None
    return (
        Publication.objects.filter(period=period, rating_list=rating_list)
        .select_related("published_by", "corrected_in")
        .order_by("-revision")
        .first()
    )


def _published_entries(
    publication: Publication,
    period: RatingPeriod,
    lines: list[PublishedRating],
    rating_list: str,
    *,
    every_player: bool = False,
) -> list[PublishedEntry]:
    """The lines as the doors show them, each with whether its player was inactive at the
    period's end: read for these lines' players (a page), or for ``every_player`` of the list
    in one pass (the whole list: no parameter a player)."""
    rows = latest_changes(through=period.start, rating_list=rating_list)
    if not every_player:
        rows = rows.filter(player_id__in=[line.player_id for line in lines])
    last_rated = dict(rows.values_list("player_id", "last_rated_on"))
    return [
        PublishedEntry(
            line.player,
            line.rating,
            line.change,
            line.k,
            line.games,
            line.total_games,
            line.status,
            line.rating is not None
            and fide.is_inactive(last_rated.get(line.player_id), period.end),
            publication.revision,
            line.adjustment,
        )  # fmt: skip
        for line in lines
    ]
