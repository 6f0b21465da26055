"""The players' opening states, read: the rule options, entry data and latest rows.

Read only (``ratings.selectors`` imports it): what opens a period for a player is their latest
RatingChange on the list before it, else their entry data. A full replay reads every player's
entry data once as columns (``EntryTable``) and builds a state only when a list asks for it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import date
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import F, Min, Q, QuerySet, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import RowNumber

from ladder.records import LIST_FIELDS, BaseCorrection, Game, Player, RatingList, RatingPeriod
from ratings.models import RatingChange, Status
from ratings.recompute import bulk, columns, storage
from ratings.recompute.rows import Row
from ratings.rules import engine


def rules(rating_list: str = RatingList.STANDARD) -> engine.Rules:
    """Return the club's rule options for a list from settings (``LADDER_RULES``: FIDE's rule
    sets by date, or one day's for everything)."""
    return engine.Rules(
        method=settings.LADDER_RATING_METHOD,
        club_k=current_club_k(),
        rating_list=rating_list,
        fixed=settings.LADDER_RULES_FIXED,
    )


def current_club_k() -> int | None:
    """The club K of ``rules()`` (``LADDER_CLUB_K``; None: FIDE's K), without building the
    rules: a page of players reads it once for all its rows."""
    return settings.LADDER_CLUB_K


def load_players(
    rating_list: str, players: Q | None = None
) -> tuple[dict[int, engine.PlayerState], dict[int, Row]]:
    """Every player's entry state and stored derived state on a list, in one query.

    Reading all players is cheaper than selecting those of a period: a federation's player
    table is small next to its games, and the selection would scan the games again.
    """
    queryset = Player.objects.filter(players) if players is not None else Player.objects.all()
    fields = LIST_FIELDS[rating_list]
    rows = bulk.fetch_rows(
        queryset.order_by().values_list("pk", *fields.entry, "birth_year", *fields.derived)
    )
    entry, derived = {}, {}
    for pk, rating, games, peak, born, *current in rows:
        entry[pk] = entry_state(rating, games, peak, born)
        current[3] = bulk.as_date(current[3])
        derived[pk] = tuple(current)
    return entry, derived


def entry_state(
    rating: int | None, games: int, peak: int | None, born: int | None
) -> engine.PlayerState:
    """A player's state on a list from their entry data (the peak defaults to the rating)."""
    return engine.PlayerState(rating, games, peak if peak is not None else rating, born)


class EntryTable:
    """Every player's id, birth year and, on each list read, entry rating, rated games, peak
    and stored rating, as integer columns in id order (-1 for none), read in one query.

    A full replay starts every player of every list at their entry state, but most players of
    a federation play on one list: a state is built only when a list asks for it
    (``EntryStates``), and the columns, read packed on PostgreSQL, cost a three-list replay
    little more than a replay of one list (as Python tuples, twice as much: measured).
    """

    def __init__(self, rating_lists: Sequence[str]) -> None:
        names = ["birth_year"]
        for rating_list in rating_lists:
            fields = LIST_FIELDS[rating_list]
            names += [*fields.entry, fields.rating]
        ids, values = bulk.fetch_int_columns(Player, names)
        order = np.argsort(ids, kind="stable")
        self.ids, self.values = ids[order], values[order]
        self.at = {name: 1 + 4 * index for index, name in enumerate(rating_lists)}

    @functools.cached_property
    def position(self) -> dict[int, int]:
        """Each player's position in the columns, by id."""
        return dict(zip(self.ids.tolist(), range(len(self.ids)), strict=True))

    @functools.cached_property
    def born(self) -> list[int | None]:
        """Each player's birth year."""
        return self._plain(self.values[:, 0])

    def prepare(self) -> None:
        """Build now what building a state one by one needs (``EntryStates.__getitem__``)."""
        self.position, self.born  # noqa: B018 - computed and kept

    @staticmethod
    def _plain(column: np.ndarray) -> list[int | None]:
        """A column as Python values, None for none."""
        return columns.nullable(column, column < 0)

    def stored(self, rating_list: str) -> np.ndarray:
        """Each player's stored rating on a list (-1 for none), in id order."""
        return self.values[:, self.at[rating_list] + 3]


class EntryStates(dict[int, engine.PlayerState]):
    """A list's states over every player of an ``EntryTable``: columns (rating, rated games,
    peak, last rated day, first event; one entry per player in the table's id order), at first
    the entry data, then what each rated period leaves (``put_rated``); the states columns
    cannot hold (an unrated player's pool) are kept as objects over them (the dict's entries).

    A full replay carries every player's state from period to period: as columns, a period's
    rated players are taken and put back with numpy, and a ``PlayerState`` is built only for a
    player asked for one by one (a newcomer, a correction).
    """

    def __init__(self, table: EntryTable, rating_list: str) -> None:
        super().__init__()
        self._table, self._list = table, rating_list
        at, values = table.at[rating_list], table.values
        rating, peak = values[:, at].copy(), values[:, at + 2]
        self._rating, self._games = rating, values[:, at + 1].copy()
        self._peak = np.where(peak < 0, rating, peak)
        self._last = np.full(len(table.ids), -1, np.int64)
        self._events = np.full(len(table.ids), None, object)
        # Whether each player's state is held as an object (an entry of the dict): a replay
        # asks it of every period's players; the dict's keys made an array each time, and
        # searched, cost 5 s of a federation's ten years.
        self._held = np.zeros(len(table.ids), bool)

    def __setitem__(self, pid: int, state: engine.PlayerState) -> None:
        super().__setitem__(pid, state)
        self._held[self._table.position[pid]] = True

    def __delitem__(self, pid: int) -> None:
        super().__delitem__(pid)
        self._held[self._table.position[pid]] = False

    def __missing__(self, pid: int) -> engine.PlayerState:
        k = self._table.position[pid]
        rating, peak, last = int(self._rating[k]), int(self._peak[k]), int(self._last[k])
        return engine.PlayerState(
            None if rating < 0 else rating, int(self._games[k]), None if peak < 0 else peak,
            self._table.born[k], None if last < 0 else date.fromordinal(last), (),
            self._events[k],
        )  # fmt: skip

    def fresh(self) -> EntryStates:
        """The entry states again (what a replay's states start from)."""
        return EntryStates(self._table, self._list)

    def state_columns(self, ids: np.ndarray) -> engine.StateColumns:
        """The states of the players ``ids`` (sorted) as columns (``engine.state_columns``):
        the columns at their positions, with the states held as objects put over them."""
        position = np.searchsorted(self._table.ids, ids)
        found = engine.StateColumns(
            self._rating[position], self._games[position], self._peak[position],
            self._table.values[position, 0], self._last[position],
            self._events[position].tolist(),
        )  # fmt: skip
        if self:
            at_held = np.flatnonzero(self._held[position])
            if len(at_held):
                states = engine.StateColumns.of([self[pid] for pid in ids[at_held].tolist()])
                for mine, theirs in zip(found[:5], states[:5], strict=True):
                    mine[at_held] = theirs
                for k, event in zip(at_held.tolist(), states.first_event, strict=True):
                    found.first_event[k] = event
        return found

    def put_rated(self, rated: engine.RatedColumns) -> None:
        """Take the states the rated players of a period leave on the closing list (as
        ``engine.rated_results`` give them), as columns."""
        ids = np.asarray(rated.ids, np.int64)
        position = np.searchsorted(self._table.ids, ids)
        opening, below = rated.opening, rated.below_floor()
        self._rating[position] = np.where(below, -1, rated.after)
        self._games[position] = opening.rated_games + rated.games
        self._peak[position] = np.where(below, opening.peak, rated.peak)
        self._last[position] = rated.last
        self._events[position] = _objects(opening.first_event)
        self._release(ids, position)

    def put_states(self, states: Mapping[int, engine.PlayerState]) -> None:
        """Take these states: those with no pool as columns, the others as objects."""
        plain = [(pid, state) for pid, state in states.items() if not state.pool]
        if plain:
            ids = np.fromiter((pid for pid, _ in plain), np.int64, len(plain))
            position = np.searchsorted(self._table.ids, ids)
            columns = engine.StateColumns.of([state for _, state in plain])
            self._rating[position], self._games[position] = columns.rating, columns.rated_games
            self._peak[position], self._last[position] = columns.peak, columns.last
            self._events[position] = _objects(columns.first_event)
            self._release(ids, position)
        for pid, state in states.items():
            if state.pool:
                self[pid] = state

    def put_columns(self, ids: np.ndarray, states: engine.StateColumns) -> None:
        """Take these players' states (none holding a pool) as columns."""
        position = np.searchsorted(self._table.ids, ids)
        self._rating[position], self._games[position] = states.rating, states.rated_games
        self._peak[position], self._last[position] = states.peak, states.last
        self._events[position] = _objects(states.first_event)
        self._release(ids, position)

    def _release(self, ids: np.ndarray, position: np.ndarray) -> None:
        """Forget the states held as objects of players now held in the columns (``ids``, at
        ``position`` in them)."""
        if self:
            for pid in ids[self._held[position]].tolist():
                del self[pid]


def _objects(values: list[Any]) -> np.ndarray:
    """Python values as a one-dimensional array of objects."""
    found = np.empty(len(values), object)
    found[:] = values
    return found


def load_entry(rating_lists: Sequence[str]) -> tuple[EntryTable, dict[str, EntryStates]]:
    """Every player's entry data and stored rating on each list, in one query, and the states
    on each list (built when asked for).

    Reading all players is cheaper than selecting those of a period: a federation's player
    table is small next to its games, and the selection would scan the games again.
    """
    table = EntryTable(rating_lists)
    entry = {name: EntryStates(table, name) for name in rating_lists}
    return table, entry


def load_states(
    *, before: date | None, players: Q, rating_list: str = RatingList.STANDARD
) -> dict[int, engine.PlayerState]:
    """Return the state of the selected players on the list that opens a period starting then.

    Two queries: the players' entry data, and their latest RatingChange before that date.
    """
    entry, _ = load_players(rating_list, players)
    ids = Player.objects.filter(players).values("pk")
    latest = latest_states(before=before, players=ids, entry=entry, rating_list=rating_list)
    return {**entry, **latest}


def latest_states(
    *,
    before: date | None,
    players: QuerySet[Any, Any] | RawSQL | AbstractSet[int],
    entry: dict[int, engine.PlayerState],
    rating_list: str,
    ascending: bool = False,
) -> dict[int, engine.PlayerState]:
    """The states that the players' latest RatingChange on a list before ``before`` leaves.

    ``players``: a QuerySet of their ids, a condition on ``player_id`` (``storage.among``), or
    the ids themselves (on PostgreSQL read a player at a time, ``storage.latest_rows``; with
    ``ascending`` as it says).
    """
    names = ("status", "rating_after", "rated_games_after", "peak_after", "last_rated_on",
             "pool", "first_event")  # fmt: skip
    rows: Iterable[tuple[Any, ...]]
    if isinstance(players, AbstractSet) and connection.vendor == "postgresql":
        rows = storage.latest_rows(
            players, before=before, rating_list=rating_list, columns=names, ascending=ascending
        )
    else:
        latest = latest_changes(before=before, rating_list=rating_list)
        if isinstance(players, AbstractSet):
            latest = latest.filter(storage.among(players, "player_id"))
        elif isinstance(players, RawSQL):
            latest = latest.filter(players)
        else:
            latest = latest.filter(player_id__in=players)
        rows = latest.values_list("player_id", *names)
    states = {}
    for row in rows:
        pid, status, rating, games, peak, last, pool, first_event = row
        if status != Status.UNRATED:  # only an unrated player keeps a pool
            pool = ()
        elif isinstance(pool, str):  # read by ``storage.latest_rows``: the JSON's text
            pool = pool_from_json(json.loads(pool))
        else:
            pool = pool_from_json(pool)
        states[pid] = engine.PlayerState(
            rating=rating,
            rated_games=games,
            peak_rating=peak,
            birth_year=entry[pid].birth_year,
            last_rated_on=bulk.as_date(last),
            pool=pool,
            first_event=first_event or None,
        )
    return states


def latest_changes(
    *,
    before: date | None = None,
    through: date | None = None,
    ended_before: date | None = None,
    rating_list: str = RatingList.STANDARD,
) -> QuerySet[RatingChange]:
    """Each player's latest RatingChange on a list of a period starting before ``before`` (or at
    or before ``through``, or ending before ``ended_before``): one query whatever the number of
    players."""
    storage.player_index_back()  # a window by player: not over a table without its index
    rows = RatingChange.objects.filter(rating_list=rating_list)
    if before is not None:
        rows = rows.filter(period__start__lt=before)
    if through is not None:
        rows = rows.filter(period__start__lte=through)
    if ended_before is not None:
        rows = rows.filter(period__end__lt=ended_before)
    return rows.annotate(
        recency=Window(
            RowNumber(), partition_by=[F("player_id")], order_by=F("period__start").desc()
        )
    ).filter(recency=1)


# Up to this many players, ``ratings_in_force`` finds each one's latest row by a probe of
# their own rows (``storage.latest_rows``); beyond, one pass over the list's rows is cheaper.
# The window over the whole list costs the same for 200 players as for all (measured: 150 ms
# a call for 250 players of the history benchmark's standard list at a twentieth of its size).
_PROBES = 5000


def ratings_in_force(
    on: date,
    players: Iterable[int],
    rating_list: str,
    *,
    corrections: bool = True,
    entry: Mapping[int, int | None] | None = None,
    fixes: Mapping[int, int] | None = None,
) -> dict[int, int | None]:
    """Each player's rating on the list in force on ``on``: the one published at the end of
    the last period that ended before it (FIDE.md 10.1), else their entry rating, unless a base
    correction of the period holding ``on`` says otherwise (``corrections``: the list as
    published, without them). Three queries, each naming the players in SQL of constant size
    (``storage.among``); one when the caller gives the players' ``entry`` ratings and the
    period's base corrections (``fixes``), read before. ``in_force_from_rows`` is the same
    rule over a player's rows held in memory."""
    wanted = set(players)
    if not wanted:
        return {}
    found: dict[int, int | None]
    if entry is not None:
        found = {pid: entry[pid] for pid in wanted}
    else:
        entry_rating = LIST_FIELDS[rating_list].entry[0]
        found = dict(
            Player.objects.filter(storage.among(wanted, "id")).values_list("pk", entry_rating)
        )
    if connection.vendor == "postgresql" and len(wanted) <= _PROBES:
        found.update(
            storage.latest_rows(wanted, before=None, ended_before=on, rating_list=rating_list,
                                columns=("rating_after",))
        )  # fmt: skip
    else:
        found.update(
            latest_changes(ended_before=on, rating_list=rating_list)
            .filter(storage.among(wanted, "player_id"))
            .values_list("player_id", "rating_after")
        )
    if not corrections:
        return found
    if fixes is not None:
        found.update((pid, rating) for pid, rating in fixes.items() if pid in wanted)
        return found
    found.update(
        BaseCorrection.objects.filter(
            storage.among(wanted, "player_id"), rating_list=rating_list,
            period__start__lte=on, period__end__gte=on,
        ).values_list("player_id", "rating")
    )  # fmt: skip
    return found


def in_force_from_rows(
    entry: int | None, rows: Iterable[tuple[date, date, int | None]], on: date
) -> int | None:
    """``ratings_in_force``'s rule over one player's rows held in memory (each a period's
    start, end and rating after): the rating of the latest period that ended before ``on``,
    else the entry rating. Base corrections are the caller's."""
    ended = [(start, rating) for start, end, rating in rows if end < on]
    return max(ended, key=lambda row: row[0])[1] if ended else entry


def base_corrections(period_id: int, rating_lists: Iterable[str]) -> dict[str, dict[int, int]]:
    """The corrected starting ratings of a period, by list and player (FIDE.md 10.1): one
    query."""
    found: dict[str, dict[int, int]] = {name: {} for name in rating_lists}
    rows = BaseCorrection.objects.filter(period_id=period_id, rating_list__in=list(found))
    for name, pid, rating in rows.values_list("rating_list", "player_id", "rating"):
        found[name][pid] = rating
    return found


def base_corrections_of(period_ids: Sequence[int], rating_list: str) -> dict[int, dict[int, int]]:
    """The corrected starting ratings of several periods on a list, by period and player:
    one query."""
    found: dict[int, dict[int, int]] = {}
    rows = BaseCorrection.objects.filter(period_id__in=period_ids, rating_list=rating_list)
    for period_id, pid, rating in rows.values_list("period_id", "player_id", "rating"):
        found.setdefault(period_id, {})[pid] = rating
    return found


class Corrected(Mapping[int, engine.PlayerState]):
    """Players' states on an opening list with base corrections laid over them: a corrected
    player opens the period with the corrected rating (rated with it, seen with it)."""

    def __init__(self, states: Mapping[int, engine.PlayerState], ratings: dict[int, int]) -> None:
        self._states, self._ratings = states, ratings

    def __getitem__(self, pid: int) -> engine.PlayerState:
        state = self._states[pid]
        if pid not in self._ratings:
            return state
        return dataclasses.replace(state, rating=self._ratings[pid], pool=())

    def __iter__(self) -> Iterator[int]:
        return iter(self._states)

    def __len__(self) -> int:
        return len(self._states)


def corrected(
    states: Mapping[int, engine.PlayerState], ratings: dict[int, int]
) -> Mapping[int, engine.PlayerState]:
    """``states`` with the period's base corrections, or as they are without any."""
    return Corrected(states, ratings) if ratings else states


def earlier_ratings(
    games: engine.GameColumns, rating_list: str
) -> dict[int, dict[int, int | None]]:
    """The ratings ``engine.rate_period`` needs for the games of tournaments that started
    before their period: the players' ratings on the list in force at each start."""
    start = games.start
    if start is None:
        return {}
    found: dict[int, dict[int, int | None]] = {}
    for day in np.unique(start[start >= 0]).tolist():
        rows = start == day
        players = set(games.white[rows].tolist()) | set(games.black[rows].tolist())
        found[day] = ratings_in_force(date.fromordinal(day), players, rating_list)
    return found


def standard_ratings(
    current: date,
    *,
    opening: Mapping[int, engine.PlayerState] | None = None,
    known: Mapping[int, Mapping[int, int | None]] | None = None,
    entry: Callable[[list[int]], Mapping[int, int | None]] | None = None,
    fixes: Mapping[int, int] | None = None,
) -> engine.StandardRatings:
    """R&B 7.2.1's reading for ``engine.rate_period``: the players' ratings on the standard
    list in force on a day (the list opening the period that starts on ``current``, or an
    earlier tournament's start), from ``opening`` (the standard states opening the period,
    base corrections laid over them, when a replay carries them) and ``known`` (by day, read
    before), else read (``ratings_in_force``: only where no rows are being streamed in; the
    list opening the period in one query when the caller gives the players' standard
    ``entry`` ratings and the period's standard base corrections, ``fixes``)."""

    def read(day: int, players: list[int]) -> Mapping[int, int | None]:
        if day == engine.OPENING and opening is not None:
            return {pid: opening[pid].rating for pid in players}
        if known is not None and day in known:
            return known[day]
        if day == engine.OPENING and entry is not None and fixes is not None:
            return ratings_in_force(current, players, RatingList.STANDARD, entry=entry(players),
                                    fixes=fixes)  # fmt: skip
        on = current if day == engine.OPENING else date.fromordinal(day)
        return ratings_in_force(on, players, RatingList.STANDARD)

    return read


def standard_before(
    current: date, games: engine.GameColumns, unrated: list[int]
) -> dict[int, dict[int, int | None]]:
    """What ``standard_ratings`` gives, read now, for a replay that streams rows in while it
    rates: the standard ratings of the ``unrated`` players (unrated on the list opening the
    period) on the list opening it, and of every player of a tournament that started earlier on
    the list then (usually none)."""
    found: dict[int, dict[int, int | None]] = {}
    if unrated:
        found[engine.OPENING] = ratings_in_force(current, unrated, RatingList.STANDARD)
    start = games.start
    if start is not None:
        for day in np.unique(start[start >= 0]).tolist():
            rows = start == day
            players = set(games.white[rows].tolist()) | set(games.black[rows].tolist())
            found[day] = ratings_in_force(date.fromordinal(day), players, RatingList.STANDARD)
    return found


def seeding_candidates(
    period: RatingPeriod | None, rating_list: str, players: set[int] | None
) -> dict[int, date]:
    """The players (of ``players``; None: any) whom R&B 7.2.1 may rate from the standard list
    on ``rating_list`` from ``period`` on: those with a game on it from then who were unrated
    on it when the period opened, or fell below its floor later; each with the start of the
    first period from then in which they play on it (before it, the standard list does not
    reach their rows there). Four queries."""
    games = Game.objects.filter(rating_list=rating_list)
    periods = RatingPeriod.objects.all()
    if period is not None:
        games = games.filter(period__start__gte=period.start)
        periods = periods.filter(start__gte=period.start)
    if players is not None and not players:
        return {}
    starts: dict[int, date] = dict(periods.values_list("pk", "start"))
    played: dict[int, date] = {}
    # Each player's first period on the list with each colour, found by the database in one
    # query (a correction's players had ten years of games each read one by one: 40 ms a
    # list), each colour's games through its own index.
    sides = ("white_id", "black_id")
    mine = [games] * 2 if players is None else [
        games.filter(condition) for condition in storage.among_each(players, *sides)
    ]  # fmt: skip
    white, black = (
        chosen.order_by().values_list(side).annotate(first=Min("period__start"))
        for chosen, side in zip(mine, sides, strict=True)
    )
    for pid, first in bulk.fetch_rows(white.union(black, all=True)):
        day = bulk.as_date(first)  # SQLite gives the aggregate as text
        if day is not None and (pid not in played or day < played[pid]):
            played[pid] = day
    if not played:
        return {}
    start = period.start if period is not None else date.min
    rated = ratings_in_force(start, played, rating_list)
    # The periods told apart here, not by a join: given the periods' starts (or ordered by
    # them, the model's ordering), PostgreSQL walked every period's rows of the list for a
    # few hundred players (0.25-0.7 s at FIDE's size) instead of each player's.
    fell = RatingChange.objects.filter(
        storage.among(set(played), "player_id"), rating_list=rating_list,
        status=Status.BELOW_FLOOR,
    ).order_by().values_list("player_id", "period_id")  # fmt: skip
    wanted = {pid for pid in played if rated.get(pid) is None}
    wanted.update(pid for pid, period_id in fell if period_id in starts)
    return {pid: played[pid] for pid in wanted}


def pool_from_json(pool: list[Any]) -> tuple[engine.PoolGame, ...]:
    """An unrated player's pool as a row stores it (JSON's values), as the engine reads it."""
    return tuple(
        engine.PoolGame(date.fromisoformat(on), event, rating, score)
        for on, event, rating, score in pool
    )


def states_before(
    start: date | None, player_ids: set[int], rating_list: str
) -> dict[int, tuple[engine.PlayerState, int | None]]:
    """The state of players with no game left from ``start`` on: as on the list before it."""
    found: dict[int, tuple[engine.PlayerState, int | None]] = {}
    for chunk in chunks(player_ids):
        states = load_states(before=start, players=Q(pk__in=chunk), rating_list=rating_list)
        changes = dict(
            latest_changes(before=start, rating_list=rating_list)
            .filter(player_id__in=chunk, status=Status.RATED)
            .values_list("player_id", "change")
        )
        found.update({pid: (state, changes.get(pid)) for pid, state in states.items()})
    return found


def chunks(ids: Iterable[int], size: int = 900) -> Iterable[list[int]]:
    """Split ids for ``IN`` lists (SQLite allows a limited number of variables per query)."""
    ordered = sorted(ids)
    for offset in range(0, len(ordered), size):
        yield ordered[offset : offset + size]


def final_states(
    players: set[int], rating_list: str, *, ascending: bool = False
) -> tuple[dict[int, tuple[engine.PlayerState, int | None]], dict[int, Row]]:
    """Each player's state on a list after their latest row (else the entry data) and their
    stored one (``ascending``: see ``storage.latest_rows``)."""
    entry, before = load_players(rating_list, Q(storage.among(players, "id")))
    final: dict[int, tuple[engine.PlayerState, int | None]] = {
        pid: (state, None) for pid, state in entry.items()
    }
    names = ("status", "rating_after", "rated_games_after", "peak_after", "last_rated_on",
             "change")  # fmt: skip
    rows: Iterable[tuple[Any, ...]]
    if connection.vendor == "postgresql":  # a player at a time (``storage.latest_rows``)
        rows = storage.latest_rows(
            players, before=None, rating_list=rating_list, columns=names, ascending=ascending
        )
    else:
        latest = latest_changes(rating_list=rating_list)
        rows = latest.filter(storage.among(players, "player_id")).values_list("player_id", *names)
    for pid, status, rating, games, peak, last, change in rows:
        state = engine.PlayerState(rating, games, peak, entry[pid].birth_year, bulk.as_date(last))
        final[pid] = (state, change if status == Status.RATED else None)
    return final, before
