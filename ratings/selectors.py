"""Rating reads shared by the admin, the API, the pages and the commands.

Every function here reads in a fixed number of queries whatever the number of rows; none holds a
rule of its own: the arithmetic comes from ``ratings.rules.fide``.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, NamedTuple

from django.db import connections, router
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils import timezone

from ladder.records import (
    LIST_FIELDS,
    BaseCorrection,
    Game,
    ListState,
    PeriodStatus,
    Player,
    PlayerQuerySet,
    RatingList,
    RatingPeriod,
    Tournament,
)
from ladder.records.compiled import Compiled, CompiledPages, prepared_cursor
from ratings.models import RatingChange, Status
from ratings.recompute.bulk import int_array
from ratings.recompute.states import current_club_k as current_club_k  # for the doors' pages
from ratings.recompute.states import latest_changes, ratings_in_force, rules
from ratings.rules import engine, eras, fide

# --- the rating list -----------------------------------------------------------------------


@dataclass(frozen=True)
class ListEntry:
    """One player's line on the list that closes a period."""

    player: Player
    rating_before: int | None
    rating: int | None
    change: int
    k: int | None  # applied
    k_published: int | None
    games: int  # rated games in the period
    total_games: int
    status: str  # rated, first rating, unrated, fell below floor
    score: Decimal
    expected: Decimal
    change_exact: Decimal
    performance: int | None
    inactive: bool
    adjustment: int = 0  # a one-off adjustment's points in ``rating`` (FIDE.md 10.2)

    @property
    def level(self) -> str:
        return fide.level(self.player.title, self.rating)

    def as_dict(self) -> dict[str, Any]:
        """Return the row as the ``rating_list`` JSON contract names it (DESIGN Contracts)."""
        return {
            "id": self.player.pk,
            "name": self.player.name,
            "fide_id": self.player.fide_id,
            "rating_before": self.rating_before,
            "rating": self.rating,
            "change": self.change,
            "k": self.k,
            "k_published": self.k_published,
            "games": self.games,
            "total_games": self.total_games,
            "status": self.status,
            "score": str(self.score),
            "expected": str(self.expected),
            "change_exact": str(self.change_exact),
            "performance": self.performance,
            "inactive": self.inactive,
        }


def rating_list(
    period: RatingPeriod | None = None, rating_list: str = RatingList.STANDARD
) -> list[ListEntry]:
    """Return every player's line on the list (standard, rapid or blitz) that closes ``period``
    (default: the latest).

    Rated players come first by rating, then the unrated by name. Two queries.
    """
    period = period or RatingPeriod.objects.latest_period()
    if period is None:
        players = Player.objects.current().standings(rating_list)
        return [_entry_from_player(p, rating_list) for p in players]
    changes = latest_changes(through=period.start, rating_list=rating_list)
    latest = {rc.player_id: rc for rc in changes.select_related("period")}
    entries = []
    for player in Player.objects.current().order_by("name", "pk"):
        change = latest.get(player.pk)
        if change is None:
            entries.append(_entry_from_player(player, rating_list))
        elif change.period_id == period.pk:
            entries.append(_entry_from_change(player, change, period.end))
        else:
            entries.append(_entry_carried(player, change, period.end))
    entries.sort(key=lambda e: (e.rating is None, -(e.rating or 0), e.player.name, e.player.pk))
    return entries


_ZERO = Decimal("0.00")


def _entry_from_player(player: Player, rating_list: str) -> ListEntry:
    fields = LIST_FIELDS[rating_list]
    rating = getattr(player, fields.entry_rating)
    return ListEntry(
        player, rating, rating, 0, None, None, 0, getattr(player, fields.entry_rated_games),
        Status.RATED.label if rating is not None else Status.UNRATED.label,
        _ZERO, _ZERO, _ZERO, None, False,
    )  # fmt: skip


def _entry_from_change(player: Player, rc: RatingChange, on: date) -> ListEntry:
    return ListEntry(
        player, rc.rating_before, rc.rating_after, rc.change, rc.k_applied, rc.k, rc.games,
        rc.rated_games_after, Status(rc.status).label, rc.score, rc.expected, rc.change_exact,
        rc.performance, rc.rating_after is not None and fide.is_inactive(rc.last_rated_on, on),
        rc.adjustment,
    )  # fmt: skip


def _entry_carried(player: Player, rc: RatingChange, on: date) -> ListEntry:
    rating = rc.rating_after
    return ListEntry(
        player, rating, rating, 0, None, None, 0, rc.rated_games_after,
        Status.RATED.label if rating is not None else Status.UNRATED.label,
        _ZERO, _ZERO, _ZERO, None,
        rating is not None and fide.is_inactive(rc.last_rated_on, on),
    )  # fmt: skip


# --- reports and histories -----------------------------------------------------------------


def periods_with_counts(periods: QuerySet[RatingPeriod] | None = None) -> QuerySet[RatingPeriod]:
    """Annotate periods with ``game_count`` and ``player_count`` (players with a RatingChange
    on any list), each counted in a subquery: no join, no query per period."""
    periods = RatingPeriod.objects.all() if periods is None else periods
    return periods.annotate(
        game_count=_count_per_period(Game.objects.all(), "pk"),
        player_count=_count_per_period(RatingChange.objects.all(), "player"),
    )


def _count_per_period(rows: QuerySet[Game] | QuerySet[RatingChange], what: str) -> Coalesce:
    counted = (
        rows.filter(period=OuterRef("pk"))
        .order_by()
        .values("period")
        .annotate(count=Count(what, distinct=what != "pk"))
        .values("count")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


# A period's report shown a page at a time (the public period page's ``?rpage=``, the admin's
# period page): every row of a month is tens of thousands in a federation.
REPORT_PER_PAGE = 100


def period_report(
    period: RatingPeriod, rating_list: str = RatingList.STANDARD
) -> QuerySet[RatingChange]:
    """Every RatingChange of a period on a list with its player: those rated after it by
    rating, then the unrated by name."""
    return (
        RatingChange.objects.for_period(period)
        .filter(rating_list=rating_list)
        .select_related("player", "period")
        .order_by(F("rating_after").desc(nulls_last=True), "player__name", "player_id")
    )


def report_size(period: RatingPeriod, rating_list: str = RatingList.STANDARD) -> tuple[int, bool]:
    """The rows of a period's report on a list, and whether the 700 rule (8.3.3) lowered the K
    of any of them: one query, for a report read a page at a time."""
    found = (
        RatingChange.objects.for_period(period)
        .filter(rating_list=rating_list)
        .aggregate(
            rows=Count("pk"),
            reduced=Count(
                "pk",
                filter=Q(k_applied__isnull=False) & (Q(k__isnull=True) | ~Q(k_applied=F("k"))),
            ),
        )
    )
    return found["rows"], found["reduced"] > 0


class Mover(NamedTuple):
    """One of the top movers: their player's id and name, the gain and the rating after it,
    the period's label and start (plain values: as model instances, a row of the period, its
    period and a deferred player each, they were a ninth of the standings' CPU)."""

    player_id: int
    name: str
    change: int
    rating_after: int | None
    period_label: str
    period_start: date


def top_movers(rating_list: str = RatingList.STANDARD, *, limit: int = 3) -> list[Mover]:
    """The biggest gains of the latest period with rated games on a list, ties in the players'
    name order, with their players' names and the period; empty before any rated period. Two
    queries: the biggest gains, then their players by id. Joined in one statement, the
    planner cannot know how few rows pass and hashed every player of the club.

    The gains are read as the ``limit + _TIES`` biggest, one pass over the period's rows (a
    top-N sort): enough unless more than ``_TIES`` players tie on the ``limit``-th gain, when
    every row at or above it is read again (the names order the ties)."""
    rows = _top_movers(rating_list, limit).rows()
    if not rows:
        return []
    if len(rows) >= limit:
        threshold = rows[limit - 1][_GAIN]
        if len(rows) == limit + _TIES and rows[-1][_GAIN] == threshold:
            rows = _top_movers_tied(rating_list, limit).rows()  # ties past the window
        rows = [row for row in rows if row[_GAIN] >= threshold]
    players = _MOVERS_PLAYERS.rows(tuple(sorted({row[0] for row in rows})))
    place = {pk: (number, name) for number, (pk, name) in enumerate(players)}
    movers = [Mover(pk, place[pk][1], *rest) for pk, *rest in rows]
    movers.sort(key=lambda mover: (-mover.change, place[mover.player_id][0]))
    return movers[:limit]


# Rows read past the ``limit``-th gain for the players tied on it (``top_movers``).
_TIES = 20


@functools.lru_cache(maxsize=16)
def _top_movers(rating_list: str, limit: int) -> Compiled[Any]:
    """``top_movers``' query, compiled once per process and list (its subqueries' building
    was a quarter of it), run afresh each time."""
    return Compiled(
        lambda: (
            _latest_gains(rating_list)
            .order_by("-change", "player_id")
            .values_list(*_MOVER)[: limit + _TIES]
        )
    )


@functools.lru_cache(maxsize=16)
def _top_movers_tied(rating_list: str, limit: int) -> Compiled[Any]:
    """Every gain at or above the ``limit``-th, for more ties than ``_top_movers`` reads."""
    return Compiled(lambda: _top_movers_query(rating_list, limit))


def _latest_gains(rating_list: str) -> QuerySet[RatingChange]:
    """The gains of the latest period with rated games on a list."""
    rated = RatingChange.objects.filter(rating_list=rating_list, status=Status.RATED)
    # The periods newest first, each probed for a rated row (an index probe each): ordering
    # the rows by their period's start read every row of the list (1 s at 5,000 players).
    latest = (
        RatingPeriod.objects.filter(Exists(rated.filter(period_id=OuterRef("pk"))))
        .order_by("-start")
        .values("pk")[:1]
    )
    return rated.filter(period_id=Subquery(latest), change__gt=0)


def _top_movers_query(rating_list: str, limit: int) -> QuerySet[RatingChange, tuple[Any, ...]]:
    movers = _latest_gains(rating_list)
    # Only the rows at or above the ``limit``-th gain: every row tied on it, since the
    # players' names order the ties.
    threshold = movers.order_by("-change").values("change")[limit - 1 : limit]
    return movers.filter(change__gte=Coalesce(Subquery(threshold), 1)).values_list(*_MOVER)


# What the standings show of a mover (their name is read apart), in ``Mover``'s order after
# the name; ``_GAIN``: where the gain is in such a row.
_MOVER = ("player_id", "change", "rating_after", "period__label", "period__start")
_GAIN = _MOVER.index("change")


# The top movers' players, in the database's order of their names (the ties' order).
_MOVERS_PLAYERS = Compiled(
    lambda ids: Player.objects.filter(pk__in=ids).order_by("name", "pk").values_list("pk", "name")
)


def player_history(
    player: Player | int, rating_list: str = RatingList.STANDARD
) -> QuerySet[RatingChange]:
    """A player's RatingChange rows on a list, newest period first."""
    return (
        RatingChange.objects.filter(player=player, rating_list=rating_list)
        .select_related("period")
        .order_by("-period__start")
    )


# ``player_history`` a page at a time (the API's history), by SQL compiled once a page.
player_history_pages = CompiledPages(player_history)


def current_year() -> int:
    """The calendar year of the period that is being rated now (the latest open one)."""
    found = _LATEST_OPEN_START.rows()
    return year_from(found[0][0] if found else None)


def year_from(open_start: date | None) -> int:
    """``current_year`` from the latest open period's start (``latest_open_start``)."""
    return open_start.year if open_start is not None else timezone.localdate().year


def latest_open_start() -> Subquery:
    """The start of the latest open period, as a subquery: a read that fetches a player
    anyway annotates it and learns the year K is counted in without a query of its own."""
    return Subquery(_latest_open_start()[:1].values("start"))


def _latest_open_start() -> QuerySet[RatingPeriod]:
    return RatingPeriod.objects.filter(status=PeriodStatus.OPEN).order_by("-start")


# ``current_year``'s query, compiled once per process (every player's read asks it).
_LATEST_OPEN_START = Compiled(lambda: _latest_open_start().values_list("start")[:1])


def current_k(
    player: Player, *, year: int | None = None, rating_list: str = RatingList.STANDARD
) -> fide.KFactor | None:
    """Return the K a player has now on a list, with its reason (None while unrated there).

    Eligibility counts that list's games and peak only (FIDE.md 9)."""
    return k_on_list(player.on_list(rating_list), birth_year=player.birth_year, year=year)


_SETTINGS: Any = object()  # ``k_on_list``: the club K read from the settings


def k_on_list(
    state: ListState,
    *,
    birth_year: int | None,
    year: int | None = None,
    club_k: int | None = _SETTINGS,
) -> fide.KFactor | None:
    """``current_k`` of a player's state on a list already read (``Player.on_list``);
    ``club_k``: ``current_club_k()``, when the caller has read it for many players."""
    if state.rating is None:
        return None
    if club_k is _SETTINGS:
        club_k = current_club_k()
    year = year or current_year()
    return _k_factor(state.peak_rating, state.rated_games, birth_year, year, club_k)


@functools.lru_cache(maxsize=8192)
def _k_factor(
    peak_rating: int | None, rated_games: int, birth_year: int | None, year: int, club_k: int | None
) -> fide.KFactor:
    """``fide.k_factor``, kept by its arguments: a page of players asks it three times a row,
    mostly the same questions request after request (a K is frozen, safe to share)."""
    return fide.k_factor(
        peak_rating=peak_rating,
        rated_games=rated_games,
        birth_year=birth_year,
        year=year,
        club_k=club_k,
    )


def inactive_players(
    players: PlayerQuerySet, *, on: date | None = None, rating_list: str = RatingList.STANDARD
) -> PlayerQuerySet:
    """Filter rated players with no rated game on a list for 12 months (as ``is_inactive``)."""
    cutoff = fide.inactive_cutoff(on or timezone.localdate())
    last = LIST_FIELDS[rating_list].last_rated_on
    return players.rated(rating_list).filter(**{f"{last}__lte": cutoff})


def active_players(
    players: PlayerQuerySet, *, on: date | None = None, rating_list: str = RatingList.STANDARD
) -> PlayerQuerySet:
    """Exclude the inactive players of a list (unrated players stay)."""
    cutoff = fide.inactive_cutoff(on or timezone.localdate())
    return active_since(players, cutoff=cutoff, rating_list=rating_list)


def active_since(players: PlayerQuerySet, *, cutoff: date, rating_list: str) -> PlayerQuerySet:
    """``active_players`` by the cutoff (``fide.inactive_cutoff``): rated after it, or unrated."""
    return players.filter(active_since_condition(cutoff=cutoff, rating_list=rating_list))


def active_since_condition(*, cutoff: date, rating_list: str) -> Q:
    """``active_since`` as a condition, for a query that counts the active apart."""
    fields = LIST_FIELDS[rating_list]
    return ~Q(**{f"{fields.rating}__isnull": False, f"{fields.last_rated_on}__lte": cutoff})


def junior_players(players: PlayerQuerySet, *, year: int | None = None) -> PlayerQuerySet:
    """Filter the players who are juniors in the year being rated (8.3.3)."""
    return players.filter(birth_year__gte=fide.junior_born_from(year or current_year()))


def is_inactive(
    player: Player, *, on: date | None = None, rating_list: str = RatingList.STANDARD
) -> bool:
    """Tell whether a rated player has had no rated game on a list for 12 months (FIDE.md 7)."""
    return inactive_on_list(player.on_list(rating_list), on=on)


def inactive_on_list(state: ListState, *, on: date | None = None) -> bool:
    """``is_inactive`` of a player's state on a list already read (``Player.on_list``)."""
    return state.rating is not None and fide.is_inactive(
        state.last_rated_on, on or timezone.localdate()
    )


# --- per-game lines ------------------------------------------------------------------------


class TournamentSeen(NamedTuple):
    """What a line shows of a game's tournament."""

    name: str
    start: date


class GameSeen(NamedTuple):
    """What a line shows of a game, read as plain values: a history's 150 games made as
    model instances, each with its tournament's, and their related fields read through
    descriptors were a third of the API's history at 5,000 players."""

    pk: int
    date: date
    result: str
    event: str
    round: str
    white_id: int
    black_id: int
    period_id: int
    tournament_id: int | None
    tournament: TournamentSeen | None


class Line(NamedTuple):
    """One game of a player in a period, with the numbers it contributed (or why none).

    A named tuple, not a frozen dataclass: a history page makes one a game, and a frozen
    dataclass sets each field through ``object.__setattr__``."""

    game: Game | GameSeen
    opponent: Player | OpponentSeen
    colour: str  # "white" or "black"
    score: Decimal | None  # None for an unplayed game
    # from the list in force when the game's tournament started (most often the one that
    # opened the period, FIDE.md 10.1)
    opponent_rating: int | None
    rated: bool
    note: str
    calculation: fide.GameLine | None  # D, D used, PD, dR when the game was rated


def game_lines(
    player: Player,
    periods: QuerySet[RatingPeriod] | list[RatingPeriod] | None = None,
    rating_list: str = RatingList.STANDARD,
) -> dict[int, list[Line]]:
    """Return a player's games on a list explained, by period id. Three queries whatever the
    count; one for a list of periods (a page of history's) on PostgreSQL (``_joined``).

    Ratings used are those of the list that opened each period (8.3.2), read from both
    players' RatingChange rows of that period on that list.
    """
    starts: dict[int, date]
    if isinstance(periods, list):  # a page of history's: the SQL compiled once
        starts = {p.pk: p.start for p in periods}
        found = _joined(player.pk, rating_list, list(starts)) or _apart(
            _GAMES_IN.rows(player.pk, rating_list, tuple(starts)), rating_list
        )
    else:
        selected = _games(player.pk, rating_list)
        if periods is not None:
            selected = selected.filter(period__in=periods)
        rows = list(selected.values_list(*_SEEN, "period__start"))
        starts = {row[_SEEN_PERIOD]: row[-1] for row in rows}
        found = _apart(rows, rating_list)
    games, players, opening = found
    earlier = _earlier_ratings(
        [(g.white_id, g.black_id, _started(g), starts[g.period_id]) for g in games], rating_list
    )
    method = rules().method
    pk = player.pk
    exempt = {period: fide.cap_exemption_in_force(start) for period, start in starts.items()}
    lines: dict[int, list[Line]] = defaultdict(list)
    for game in games:
        white = game.white_id == pk
        opponent = game.black_id if white else game.white_id
        period = game.period_id
        ratings = _ratings_used(
            pk, opponent, _started(game), starts[period], period, opening, earlier
        )
        lines[period].append(_line(game, players[opponent], white, ratings, method, exempt[period]))
    return dict(lines)


def _apart(rows: Sequence[tuple[Any, ...]], rating_list: str) -> _Read:
    """The games of ``rows`` (``_SEEN``, and anything after), with their players and opening
    rows read in two queries of their own."""
    games = [_seen(row) for row in rows]
    ids = {game.white_id for game in games} | {game.black_id for game in games}
    # The players apart, by id: joined to the games, both colours' were hashed whole (the
    # planner's choice for a player's 150 games: 12 ms of 14 at 5,000 players).
    players = {p.pk: p for p in _opponents(sorted(ids))}
    # The rows of both players of each game in its period, through the players' index: the
    # opponents named by subqueries of every game had the rows of the periods scanned whole
    # (0.4 s on a 5,000-player club), and every opponent's rows of every period read 3,500
    # rows for a player's 150 games.
    by_period: dict[int, set[int]] = defaultdict(set)
    for game in games:
        by_period[game.period_id].update((game.white_id, game.black_id))
    opening = _opening(by_period, rating_list) if by_period else {}
    return games, players, opening


def _joined(player: int, rating_list: str, periods: list[int]) -> _Read | None:
    """On PostgreSQL, a player's games of ``periods`` on a list with what ``game_lines``
    reads beside them, in one statement: each game's opponent and both players' rows of its
    period (``_JOINED_SQL``). None on any other database: three queries there, as before.

    A history page's three reads were three round trips, each with its own parameters to
    write and rows to read; joined, each game probes the players' key once and the rows'
    unique index once (the opponent's row), and the player's rows are read once a period."""
    connection = connections[router.db_for_read(Game)]
    if connection.vendor != "postgresql":
        return None
    with prepared_cursor(connection) as cursor:
        values = {"player": player, "list": rating_list, "periods": int_array(periods)}
        cursor.execute(_JOINED_SQL, values)
        rows = cursor.fetchall()  # at once: iterating the cursor fetched a row a call
    games: list[GameSeen] = []
    players: dict[int, OpponentSeen] = {}
    opening: _Opening = {}
    width = len(_SEEN)
    for row in rows:
        game = _seen(row)
        games.append(game)
        opponent = row[width]
        if opponent not in players:
            players[opponent] = OpponentSeen(*row[width : width + 5])
        period = game.period_id
        if row[width + 5] is not None:  # the player's own row of the period
            opening[(player, period)] = (row[width + 5], row[width + 6])
        if row[width + 7] is not None:  # the opponent's
            opening[(opponent, period)] = (row[width + 7], row[width + 8])
    return games, players, opening


# ``_GAMES_IN`` (``_SEEN`` of a player's games in some periods, oldest first), each game with
# its opponent (``_OPPONENT``), then the player's row of its period on the list and the
# opponent's (status, rating before; none when a player has no row). The player's rows are
# read once a period (``m``), not once a game: a probe of the rows' unique index fewer a game
# (13 % less of the statement's server CPU for a player's 127 games at 5,000 players).
# ``OFFSET 0`` keeps each lateral subquery a probe a game: pulled up into a join, the
# planner may hash every player or every row of the periods.
_JOINED_SQL = f"""
SELECT g.id, g.date, g.result, g.event, g.round, g.white_id, g.black_id, g.period_id,
       g.tournament_id, t.name, t.start,
       o.id, o.name, o.fide_id, o.title, o.rating,
       m.status, m.rating_before, r.status, r.rating_before
FROM "{Game._meta.db_table}" g
LEFT JOIN "{Tournament._meta.db_table}" t ON t.id = g.tournament_id
LEFT JOIN (
  SELECT rc.period_id, rc.status, rc.rating_before FROM "{RatingChange._meta.db_table}" rc
  WHERE rc.player_id = %(player)s AND rc.rating_list = %(list)s
    AND rc.period_id = ANY(%(periods)s::bigint[])
) m ON m.period_id = g.period_id
CROSS JOIN LATERAL (
  SELECT p.id, p.name, p.fide_id, p.title, p.rating FROM "{Player._meta.db_table}" p
  WHERE p.id = CASE WHEN g.white_id = %(player)s THEN g.black_id ELSE g.white_id END OFFSET 0
) o
LEFT JOIN LATERAL (
  SELECT rc.status, rc.rating_before FROM "{RatingChange._meta.db_table}" rc
  WHERE rc.player_id = o.id AND rc.rating_list = %(list)s AND rc.period_id = g.period_id
  OFFSET 0
) r ON true
WHERE (g.white_id = %(player)s OR g.black_id = %(player)s) AND g.rating_list = %(list)s
  AND g.period_id = ANY(%(periods)s::bigint[])
ORDER BY g.date, g.id
"""


def _seen(row: tuple[Any, ...]) -> GameSeen:
    """A row of ``_SEEN`` (and anything after) as a ``GameSeen``."""
    *game, tournament, name, start = row[: len(_SEEN)]
    seen = None if tournament is None else TournamentSeen(name, start)
    return GameSeen._make((*game, tournament, seen))


def _started(game: Game | GameSeen) -> date | None:
    """The start of a game's tournament (None: no tournament)."""
    tournament = game.tournament
    return None if tournament is None else tournament.start


def _opening(by_period: dict[int, set[int]], rating_list: str) -> _Opening:
    """The players' rows of their periods on a list (``by_period``: the players of each
    period), for what a line shows of the list that opened each period: one query.

    On PostgreSQL the (player, period) pairs go as two arrays, so that the statement is the
    same whatever the games: a term a period, each with its players, was built and compiled
    by the ORM for every request (a third of a history page's time at 5,000 players)."""
    alias = router.db_for_read(RatingChange)
    connection = connections[alias]
    if connection.vendor != "postgresql":
        wanted = Q()
        for period_id, ids in by_period.items():
            wanted |= Q(period_id=period_id, player_id__in=sorted(ids))
        rows = (
            RatingChange.objects.using(alias)
            .filter(wanted, rating_list=rating_list)
            .order_by()
            .values_list("player_id", "period_id", "status", "rating_before")
        )
        return {(pid, period_id): (status, before) for pid, period_id, status, before in rows}
    players: list[int] = []
    periods: list[int] = []
    for period_id, ids in by_period.items():
        players += ids
        periods += [period_id] * len(ids)
    with prepared_cursor(connection) as cursor:
        cursor.execute(_OPENING_SQL, [int_array(players), int_array(periods), rating_list])
        rows = cursor.fetchall()  # at once: iterating the cursor fetched a row a call
        return {(pid, period_id): (status, before) for pid, period_id, status, before in rows}


# Through the rows' unique index (player, list, period), a probe a pair.
_OPENING_SQL = f"""
SELECT rc.player_id, rc.period_id, rc.status, rc.rating_before
FROM unnest(%s::bigint[], %s::bigint[]) AS wanted(player_id, period_id)
JOIN "{RatingChange._meta.db_table}" rc
  ON rc.player_id = wanted.player_id AND rc.period_id = wanted.period_id AND rc.rating_list = %s
"""

# What a line shows of a game's players (an API line's opponent, a page's link): a player's
# other forty-odd columns made a history's opponents a third of its time.
_OPPONENT = ("name", "fide_id", "title", "rating")


def _games(player: int, rating_list: str) -> QuerySet[Game]:
    """A player's games on a list, oldest first (``game_lines`` reads ``_SEEN`` of them)."""
    return Game.objects.for_player(player).on_list(rating_list).order_by("date", "pk")


# What ``GameSeen`` reads of a game, in its order.
_SEEN = (
    "pk", "date", "result", "event", "round", "white_id", "black_id", "period_id",
    "tournament_id", "tournament__name", "tournament__start",
)  # fmt: skip
_SEEN_PERIOD = _SEEN.index("period_id")
# A player's games in the periods given (``game_lines``).
_GAMES_IN = Compiled(
    lambda player, rating_list, periods: (
        _games(player, rating_list).filter(period__in=periods).values_list(*_SEEN)
    )
)
# ``in_bulk`` of the opponents, as a query compiled once per count of players; on PostgreSQL
# once, the ids one array: psycopg parses a statement of more than 50 parameters afresh on
# every call (148 ids: 0.75 ms of the client's time, against 0.33 ms as one array).
_OPPONENTS = Compiled(lambda ids: Player.objects.filter(pk__in=ids).values_list("pk", *_OPPONENT))
_OPPONENTS_ANY = Compiled(
    lambda ids: Player.objects.filter(
        RawSQL(f'"{Player._meta.db_table}"."id" = ANY(%s::bigint[])', [ids], BooleanField())
    ).values_list("pk", *_OPPONENT)
)


class OpponentSeen:
    """What a line shows of a game's opponent, read as plain values (a model instance an
    opponent was a seventh of the API's history at 5,000 players). A plain object, not a
    tuple: the player's page gives each its links (``ladder.web.views``)."""

    def __init__(self, pk: int, name: str, fide_id: int | None, title: str, rating: int | None):
        self.pk = self.id = pk
        self.name, self.fide_id, self.title, self.rating = name, fide_id, title, rating

    def __repr__(self) -> str:
        return f"<OpponentSeen {self.pk}: {self.name}>"


def _opponents(ids: list[int]) -> list[OpponentSeen]:
    """The players ``ids`` with what a line shows of them."""
    if connections[router.db_for_read(Player)].vendor == "postgresql":
        rows = _OPPONENTS_ANY.rows(int_array(ids))
    else:
        rows = _OPPONENTS.rows(tuple(ids))
    return [OpponentSeen(*row) for row in rows]


def _earlier_ratings(
    games: list[tuple[int, int, date | None, date]], rating_list: str
) -> dict[date, dict[int, int | None]]:
    """For the games (White, Black, their tournament's start or None, their period's start) of
    tournaments that started before their period, both players' ratings on the list in force
    at the start (FIDE.md 10.1): two queries a start, usually none."""
    starts: dict[date, set[int]] = defaultdict(set)
    for white, black, started, period_start in games:
        if started is not None and started < period_start:
            starts[started].update((white, black))
    found = {day: ratings_in_force(day, players, rating_list) for day, players in starts.items()}
    options = rules(rating_list)
    for day, then in found.items():
        # R&B 7.2.1: unrated on rapid or blitz then, rated with the standard rating then.
        unrated = [pid for pid, rating in then.items() if rating is None]
        if unrated and options.era(day).seeded_from_standard.value:
            standard = ratings_in_force(day, unrated, RatingList.STANDARD)
            then.update((pid, r) for pid, r in standard.items() if r is not None)
    return found


def _ratings_used(
    player: int,
    opponent: int,
    started: date | None,
    period_start: date,
    period_id: int,
    opening: _Opening,
    earlier: dict[date, dict[int, int | None]],
) -> tuple[int | None, int | None]:
    """The rating ``player`` is rated with in a game (against ``opponent``, both ids; of a
    tournament ``started`` then, None: of none) and the opponent's as they count it: the
    opening list's, or for a tournament that started earlier the list then (8.2.4: a player
    unrated then but rated now uses their current rating, and counts as unrated for the
    opponent), as ``engine.rate_period`` rates it."""
    own = opening.get((player, period_id), _NO_ROW)[1]
    opp = opening.get((opponent, period_id), _NO_ROW)[1]
    if started is None or started >= period_start:
        return own, opp
    then = earlier[started]
    own_then = then.get(player)
    return (None if own is None else (own_then if own_then is not None else own)), then.get(
        opponent
    )


_NO_ROW = (None, None)


# (player id, period id) -> (status, rating on the list that opened the period)
_Opening = dict[tuple[int, int], tuple[str, int | None]]
# A player's games (``_SEEN``), their players by id and both players' opening rows.
_Read = tuple[list[GameSeen], dict[int, OpponentSeen], _Opening]


def _line(
    game: Game | GameSeen,
    opponent: Player | OpponentSeen,
    white: bool,
    ratings: tuple[int | None, int | None],
    method: str,
    exemption: bool,
) -> Line:
    """A game's line for the player who had ``white`` or not, against ``opponent``, in a
    period whose rules exempt 2650+ players from the cap or not (``exemption``:
    ``fide.cap_exemption_in_force`` of its start)."""
    own_rating, opp_rating = ratings
    white_score = engine.WHITE_SCORE.get(game.result)
    colour = "white" if white else "black"
    if white_score is None:
        return Line(game, opponent, colour, None, opp_rating, False, "unplayed: not rated", None)
    score_units = white_score if white else fide.UNIT - white_score
    score = _score(score_units)
    if opp_rating is None:
        note = (
            "opponent unrated: counts for nobody"
            if own_rating is None
            else ("opponent unrated: not rated for you")
        )
        return Line(game, opponent, colour, score, None, False, note, None)
    if own_rating is None:
        return Line(
            game, opponent, colour, score, opp_rating, True, "counts toward a first rating", None
        )
    calculation, _ = _game_line(own_rating, opp_rating, score_units, method, exemption)
    return Line(game, opponent, colour, score, opp_rating, True, "rated", calculation)


# A game's score as a decimal, kept by its units (a win, a draw, a loss).
_score = functools.lru_cache(maxsize=16)(fide.units_to_decimal)


@functools.lru_cache(maxsize=8192)
def _game_line(
    own: int, opponent: int, score_units: int, method: str, exemption: bool
) -> tuple[fide.GameLine, int]:
    """``fide.game_line``, kept by its arguments, all positional (a key of keywords costs
    more to make): a few thousand questions cover a club's lines, asked again by every read
    of a history; a line is frozen, safe to share."""
    return fide.game_line(own, opponent, score_units, method=method, exemption=exemption)


@dataclass(frozen=True)
class NextGame:
    """What a next game would do, counted the FIDE way (8.3.2): every game of a period counts
    from the rating that opened it, so the change shown is the period's whole change from
    ``start``, the games already rated this period included; ``live`` is the rating shown now
    (``start`` plus the change so far)."""

    period: RatingPeriod
    start: int  # the rating on the list that opened the period
    live: int | None  # the player's live rating now
    k: int
    games_rated: int  # games already rated this period
    outcomes: dict[str, fide.EventCalculation]  # win, draw, loss

    @property
    def so_far(self) -> int | None:
        """The live rating's change this period so far (live minus start)."""
        return None if self.live is None else self.live - self.start

    @property
    def rows(self) -> list[tuple[str, fide.EventCalculation, int | None]]:
        """Each outcome with what it does against the live rating (new rating minus live)."""
        return [
            (name, calc, None if self.live is None else calc.rating_after - self.live)
            for name, calc in self.outcomes.items()
        ]


def next_game(
    player: Player, opponent_rating: int, rating_list: str = RatingList.STANDARD
) -> NextGame | None:
    """What a win, a draw or a loss against ``opponent_rating`` on a list would do to the
    player in the current open period.

    Uses the player's real K and the games already rated in the period, so the 700 rule and
    the single rounding apply to the period as a whole. None while unrated or with no open
    period.
    """
    period = RatingPeriod.objects.filter(status=PeriodStatus.OPEN).order_by("-start").first()
    rating = player.on_list(rating_list).rating
    if period is None or rating is None:
        return None
    row = RatingChange.objects.filter(
        player=player, period=period, status=Status.RATED, rating_list=rating_list
    ).first()
    own: int | None
    k: int | None
    played: list[tuple[int, int]] = []
    if row is None:
        k_now = current_k(player, year=period.start.year, rating_list=rating_list)
        own, k = rating, k_now.value if k_now else None
    else:
        own, k = row.rating_before, row.k
        played = [
            (line.calculation.opponent_rating, int(line.calculation.score * fide.UNIT))
            for line in game_lines(player, [period], rating_list).get(period.pk, [])
            if line.calculation is not None
        ]
    if own is None or k is None:
        return None  # the engine writes both on a rated row; without either, no preview
    exemption = fide.cap_exemption_in_force(period.start)
    outcomes = {
        outcome: fide.event_calculation(
            own, [*played, (opponent_rating, units)], k=k, method=rules().method,
            exemption=exemption,
        )
        for outcome, units in (("win", fide.UNIT), ("draw", fide.UNIT // 2), ("loss", 0))
    }  # fmt: skip
    return NextGame(period, own, rating, k, len(played), outcomes)


def what_if(
    player: Player, opponent_rating: int, rating_list: str = RatingList.STANDARD
) -> dict[str, fide.EventCalculation] | None:
    """The outcomes of ``next_game`` (win, draw, loss), or None when there is no preview."""
    found = next_game(player, opponent_rating, rating_list)
    return None if found is None else found.outcomes


# --- head-to-head --------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One player's side of a game between two: the game explained as ``game_lines`` explains
    it, the K their period applied, and the game's effect on their rating, K × dR, before the
    period's one rounding (None when the game was not rated for them, or counted toward a first
    rating)."""

    line: Line
    k: int | None
    effect: Decimal | None


@dataclass(frozen=True)
class Meeting:
    """A game between two players, seen from each side (``first`` is the player asked about)."""

    game: Game
    first: Side
    second: Side


@dataclass(frozen=True)
class Record:
    """The games between two players on one list, oldest first, with their totals (played
    games only: an unplayed game is listed, never scored)."""

    rating_list: str
    meetings: list[Meeting]

    @property
    def label(self) -> str:
        return str(RatingList(self.rating_list).label)

    def _played(self) -> list[Meeting]:
        return [m for m in self.meetings if m.first.line.score is not None]

    @property
    def played(self) -> int:
        return len(self._played())

    @property
    def unplayed(self) -> int:
        return len(self.meetings) - self.played

    @property
    def wins(self) -> int:
        return sum(m.first.line.score == 1 for m in self._played())

    @property
    def draws(self) -> int:
        return sum(m.first.line.score == Decimal("0.5") for m in self._played())

    @property
    def losses(self) -> int:
        return self.played - self.wins - self.draws

    @property
    def score(self) -> tuple[Decimal, Decimal]:
        """Each player's points: (first, second)."""
        first = sum((m.first.line.score or _ZERO for m in self._played()), _ZERO)
        return first, Decimal(self.played) - first

    @property
    def expected(self) -> tuple[Decimal | None, Decimal | None]:
        """Each player's expected score (ΣPD) over the games rated for them; None: none was."""
        return _total(m.first.line.calculation for m in self.meetings), _total(
            m.second.line.calculation for m in self.meetings
        )

    @property
    def effect(self) -> tuple[Decimal | None, Decimal | None]:
        """The sum of the games' effects on each player (K × dR), before any rounding."""
        return _sum(m.first.effect for m in self.meetings), _sum(
            m.second.effect for m in self.meetings
        )


def _total(calculations: Any) -> Decimal | None:
    return _sum(c.expected if c is not None else None for c in calculations)


def _sum(values: Any) -> Decimal | None:
    present = [v for v in values if v is not None]
    return sum(present, _ZERO) if present else None


@dataclass(frozen=True)
class HeadToHead:
    """Every game between two players, by list (the lists with games, FIDE's order)."""

    first: Player
    second: Player
    records: list[Record]

    @property
    def games(self) -> int:
        return sum(len(r.meetings) for r in self.records)

    @property
    def played(self) -> int:
        return sum(r.played for r in self.records)

    @property
    def score(self) -> tuple[Decimal, Decimal]:
        """Each player's points over every list: (first, second)."""
        first = sum((r.score[0] for r in self.records), _ZERO)
        return first, Decimal(self.played) - first

    @property
    def wins(self) -> int:
        return sum(r.wins for r in self.records)

    @property
    def draws(self) -> int:
        return sum(r.draws for r in self.records)

    @property
    def losses(self) -> int:
        return sum(r.losses for r in self.records)


def head_to_head(first: Player, second: Player) -> HeadToHead:
    """Every game between two players on every list, each explained from both sides as
    ``game_lines`` explains it, from the ratings on the list that opened its period (8.3.2),
    with each side's K applied. Two queries whatever the count (one when they never met)."""
    games = list(
        Game.objects.filter(Q(white=first, black=second) | Q(white=second, black=first))
        .with_players()
        .select_related("tournament")
        .order_by("date", "pk")
    )
    opening: dict[str, _Opening] = defaultdict(dict)
    earlier = {
        name: _earlier_ratings(
            [
                (g.white_id, g.black_id, _started(g), g.period.start)
                for g in games
                if g.rating_list == name
            ],
            name,
        )
        for name in {g.rating_list for g in games}
    }
    k_applied: dict[tuple[int, int, str], int | None] = {}
    if games:
        rows = RatingChange.objects.filter(
            player__in=[first.pk, second.pk], period_id__in={g.period_id for g in games}
        ).values_list(
            "player_id", "period_id", "rating_list", "status", "rating_before", "k_applied"
        )
        for pid, period_id, name, status, before, k in rows:
            opening[name][(pid, period_id)] = (status, before)
            k_applied[(pid, period_id, name)] = k
    method = rules().method

    def side(player: Player, game: Game) -> Side:
        white = game.white_id == player.pk
        opponent = game.black_id if white else game.white_id
        name = game.rating_list
        start = game.period.start
        used = _ratings_used(
            player.pk, opponent, _started(game), start, game.period_id, opening[name],
            earlier[name],
        )  # fmt: skip
        exemption = fide.cap_exemption_in_force(start)
        line = _line(game, game.black if white else game.white, white, used, method, exemption)
        k = k_applied.get((player.pk, game.period_id, game.rating_list))
        effect = None
        if line.calculation is not None and k is not None:
            effect = line.calculation.delta * k
        return Side(line, k, effect)

    by_list: dict[str, list[Meeting]] = defaultdict(list)
    for game in games:
        by_list[game.rating_list].append(Meeting(game, side(first, game), side(second, game)))
    records = [Record(name, by_list[name]) for name in RatingList.values if name in by_list]
    return HeadToHead(first, second, records)


# --- the rules that rated a period, and its tournaments' sums ------------------------------


@dataclass(frozen=True)
class RulesUsed:
    """The rule set that rated a period on a list (FIDE.md 10.2), for a card to name."""

    on: date  # the day it is chosen for (the period's start)
    since: str  # the day its newest rule took effect ("1 Oct 2025")
    articles: tuple[str, ...]
    lines: tuple[eras.RuleLine, ...]


def rules_used(period: RatingPeriod, rating_list: str = RatingList.STANDARD) -> RulesUsed:
    """Name the rule set that rated ``period`` on a list (the club's ``LADDER_RULES``): its
    date, articles and rules. No query."""
    options = rules(rating_list)
    rule_set = options.era(period.start)
    newest = max(rule_set.rules(), key=lambda rule: rule.since)
    articles = tuple(dict.fromkeys(rule.article for rule in rule_set.rules()))
    # A club that rates its history by one day's rules (LADDER_RULES) names that day.
    on = period.start if options.fixed is None else min(options.fixed, timezone.localdate())
    return RulesUsed(on, newest.since_text, articles, rule_set.describe())


@dataclass(frozen=True)
class TournamentSum:
    """One tournament's part of a player's period: its rated games and K x its sum of dR."""

    name: str
    start: date | None
    games: int
    delta: Decimal  # sum of dR
    change: Decimal  # K applied x sum of dR, unrounded (8.3.4 rounds the period's total once)


def tournament_sums(lines: list[Line], k_applied: int | None) -> list[TournamentSum]:
    """Split a player's rated games of a period by tournament (FIDE.md 10.1): the period's
    change is their total, rounded once. Empty when there is only one tournament."""
    found: dict[Any, list[Line]] = defaultdict(list)
    for line in lines:
        if line.calculation is not None:
            found[line.game.tournament_id or line.game.event].append(line)
    if len(found) < 2 or k_applied is None:
        return []
    sums = []
    for part in found.values():
        tournament = part[0].game.tournament
        delta = sum((line.calculation.delta for line in part if line.calculation), Decimal(0))
        sums.append(
            TournamentSum(
                tournament.name if tournament else part[0].game.event,
                tournament.start if tournament else None,
                len(part),
                delta,
                k_applied * delta,
            )
        )
    return sorted(sums, key=lambda s: (s.start or date.min, s.name))


@dataclass(frozen=True)
class CorrectedBase:
    """A base correction with the rating the list gave (FIDE.md 10.1)."""

    correction: BaseCorrection
    listed: int | None  # the rating on the list in force before the correction


def base_corrections(player: Player) -> dict[tuple[str, int], CorrectedBase]:
    """A player's base corrections by (list, period id), each with the list's own rating: one
    query, and one more per correction (they are rare)."""
    found = {}
    for correction in BaseCorrection.objects.filter(player=player).select_related("period"):
        name = correction.rating_list
        before = (
            latest_changes(ended_before=correction.period.start, rating_list=name)
            .filter(player=player)
            .values_list("rating_after", flat=True)
            .first()
        )
        entry = getattr(player, LIST_FIELDS[name].entry[0])
        found[name, correction.period_id] = CorrectedBase(
            correction, before if before is not None else entry
        )
    return found
