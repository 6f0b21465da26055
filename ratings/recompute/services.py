"""Rating services: the only code that writes ratings.

``recompute_from`` walks a period and every later one in date order, in one transaction. A full
replay loads each period in a fixed number of queries whatever the number of players (its games
packed into one value, the players' states carried from period to period in memory), rates it
with the pure ``ratings.rules.engine`` and writes it back in bulk. Given the players whose own
inputs
changed, it rates only them and whoever their changes reach through the games, and writes only
the rows that differ; a property test (tests/ratings/test_incremental.py) holds that equal to a
full replay.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, F, Q, QuerySet, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import RowNumber

from ladder.records import LIST_FIELDS, Game, Player, RatingList, RatingPeriod
from ratings.models import RatingChange, Status
from ratings.recompute import bulk, columns
from ratings.rules import engine

Row = tuple[Any, ...]
# The PostgreSQL advisory lock serializing recomputes: a recompute takes it for its transaction,
# a rating run's executor for its session (ratings.runs); a session's locks are re-entrant.
LOCK_KEY = 0x1ADDE7
# Memory for a recompute's sorts and hashes on PostgreSQL (its transaction only; see _prepare).
_WORK_MEM = "64MB"


@dataclass(frozen=True)
class RatingMove:
    """A player's rating on the list after the recompute, before and after (None: unrated)."""

    player: int
    old: int | None
    new: int | None


@dataclass(frozen=True)
class LineMove:
    """A player's line of one period that the recompute changed: the rating after the period
    and the change in it, before and after (None: no line, the player had no game there)."""

    period: str
    player: int
    old_rating: int | None
    new_rating: int | None
    old_change: int | None
    new_change: int | None


@dataclass
class Recompute:
    """What a recompute did, in words an administrator understands.

    ``moves`` names each player whose rating changed (old and new); ``lines`` each period's
    line whose rating or change moved, as far as the recompute compared them (an incremental
    one does, period by period; a full replay rewrites the periods whole and leaves it empty).
    """

    periods: list[str] = field(default_factory=list)
    rows: int = 0
    players_changed: int = 0
    dry_run: bool = False
    moves: list[RatingMove] = field(default_factory=list)
    lines: list[LineMove] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.periods:
            return "Nothing to recompute: there are no rating periods."
        span = (
            self.periods[0]
            if len(self.periods) == 1
            else (f"{self.periods[0]} to {self.periods[-1]}")
        )
        players = (
            "1 player's rating"
            if self.players_changed == 1
            else (f"{self.players_changed} players' ratings")
        )
        verb = "would change" if self.dry_run else "changed"
        return f"{span} recomputed: {players} {verb}."


def rules() -> engine.Rules:
    """Return the club's rule options from settings."""
    return engine.Rules(method=settings.LADDER_RATING_METHOD, club_k=settings.LADDER_CLUB_K)


def recompute_from(
    period: RatingPeriod | None = None,
    *,
    rating_list: str = RatingList.STANDARD,
    players: Collection[int] | None = None,
    dry_run: bool = False,
) -> Recompute:
    """Recompute one list (FIDE.md 9: each is rated alone, on its own games) from ``period``
    (default: the first) through every later period; refresh the players' state on it.

    With ``players`` None every player of every period is rated again (a full replay). With
    ``players`` given, only those players' inputs changed (a game of theirs, their entry data or
    birth year): they are rated again in every period from ``period`` on, and so is everyone
    their changes reach through the games (DESIGN Flow 3); every other row stays as stored.
    With ``dry_run`` everything is computed and counted, then rolled back.
    """
    with bulk.gc_paused(), transaction.atomic():
        if players is None:
            return _recompute_from(period, [rating_list], dry_run=dry_run)[rating_list]
        return _recompute_players(period, rating_list, set(players), dry_run=dry_run)


def recompute_lists(
    period: RatingPeriod | None = None,
    *,
    rating_lists: Sequence[str],
    dry_run: bool = False,
) -> dict[str, Recompute]:
    """A full replay of several lists from ``period``, in one pass; a summary per list.

    The same as ``recompute_from(period, rating_list=name)`` for each list, in one transaction:
    the lists are rated apart (FIDE.md 9) but read and written together (see
    ``_recompute_from``), which is what makes a federation's three lists cost less than three
    recomputes.
    """
    unknown = set(rating_lists) - set(RatingList.values)
    if unknown:
        raise ValueError(f"Unknown rating lists: {', '.join(sorted(unknown))}")
    with bulk.gc_paused(), transaction.atomic():
        return _recompute_from(period, list(dict.fromkeys(rating_lists)), dry_run=dry_run)


def _begin(period: RatingPeriod | None, *, dry_run: bool) -> tuple[list[RatingPeriod], Recompute]:
    """Take the recompute lock; return the periods from ``period`` on and an empty summary."""
    _prepare()
    periods = list(
        RatingPeriod.objects.filter(start__gte=period.start)
        if period
        else RatingPeriod.objects.all()
    )
    return periods, Recompute(periods=[p.label for p in periods], dry_run=dry_run)


def _recompute_from(
    period: RatingPeriod | None, rating_lists: Sequence[str], *, dry_run: bool
) -> dict[str, Recompute]:
    """A full replay of ``rating_lists`` from ``period``, the lists side by side in one pass.

    Each list is rated alone (FIDE.md 9), but the lists share the reading: the players' entry
    data come in one query, each period's games in one query split by list in numpy, and the
    players' fields of every list are written in one statement at the end.
    """
    periods, first = _begin(period, dry_run=dry_run)
    summaries = {name: Recompute(list(first.periods), dry_run=dry_run) for name in rating_lists}
    if not periods:
        return summaries
    table, entry = _load_entry(rating_lists)
    # Each player's rating after their latest row from ``period`` on, by list: against the
    # stored ratings, how many players' ratings the recompute changed.
    final: dict[str, dict[int, int | None]] = {name: {} for name in rating_lists}
    # Every player's state on each list that opens the first period, then carried from
    # period to period in memory: the run rates everyone, so nothing later needs reading back.
    states = {name: entry[name].fresh() for name in rating_lists}
    for name in _lists_rated_before(periods[0].start, rating_lists):
        states[name].update(
            _latest_states(before=periods[0].start, players=Player.objects.values("pk"),
                           entry=entry[name], rating_list=name)
        )  # fmt: skip
    stale: dict[str, set[int]] = {name: set() for name in rating_lists}
    rated: dict[str, set[int]] = {name: set() for name in rating_lists}
    moves: dict[str, list[RatingMove]] = {}
    for index, current in enumerate(periods):
        last = index + 1 == len(periods)
        for name, deleted in _delete_rows(current, rating_lists).items():
            stale[name] |= deleted
        # The entry data are made ready for the rating while the server reads the games.
        games = _games_by_list(
            current, rating_lists, narrow=table.narrow(), meanwhile=table.prepare
        )
        # Each list is rated and its rated players' rows sent as columns (ratings.recompute.columns)
        # before the next list is rated, so that the server stores them meanwhile; then the
        # newcomers' rows, fewer and each with a pool, all in one statement. The newcomers are
        # rated only then (``unrated`` is computed when first read), while the server stores
        # the rows before theirs (``bulk.RowWriter``).
        found: dict[str, engine.PeriodColumns] = {}
        with bulk.writing(RatingChange, _ROW_COLUMNS) as writer:
            for name in rating_lists:
                results = _rate(current, states[name], games.pop(name, None))
                if results is None:
                    continue
                found[name] = results
                summaries[name].rows += columns.insert_rated(
                    RatingChange, _ROW_COLUMNS, current.pk, results.rated, name, writer
                )
            del games
            newcomers = _newcomers(found)
            for name, unrated in newcomers.items():
                rows = (_row(pid, current, r, name) for pid, r in unrated.items())
                summaries[name].rows += writer.rows(rows)
        if last:  # the players' fields are written while the summaries are drawn up
            # Players who keep to one list each: a statement per list, each as for one list
            # (no full joins of the lists' rows, no fields of the other lists rewritten).
            if len(periods) == 1 and len(found) > 1 and _apart(found):
                update = [_players_from_rows(periods, [name]) for name in found]
            else:
                update = [_players_from_rows(periods, rating_lists)]
            with bulk.in_background(update, settings=_HASHED):
                for name, results in found.items():
                    _carry(results, newcomers[name], rated[name], final[name], None)
                moves = {name: _moves(final[name], table.stored(name)) for name in rating_lists}
        else:
            for name, results in found.items():
                _carry(results, newcomers[name], rated[name], final[name], states[name])
        del found, newcomers  # a federation's period: free it before the next one
    for name in rating_lists:
        moves[name] += _write_stale(periods[0].start, stale[name] - rated[name], name)
        summaries[name].moves, summaries[name].players_changed = moves[name], len(moves[name])
    if dry_run:
        transaction.set_rollback(True)
    return summaries


def _newcomers(found: dict[str, engine.PeriodColumns]) -> dict[str, dict[int, engine.PlayerPeriod]]:
    """Each list's unrated players' results by id (computed here, when first read)."""
    return {
        name: {results.ids[k]: result for k, result in results.unrated.items()}
        for name, results in found.items()
    }


# The players' UPDATE joins the rows just written, which the table's statistics may not know
# of yet: estimated at one row, the join became 100,000 index probes (0.37 s, against 0.08 s
# for a hash join: measured on the benchmark's three-list period, after its rows were cleared).
_HASHED = {"enable_nestloop": "off"}


def _apart(found: dict[str, engine.PeriodColumns]) -> bool:
    """Whether no player played on two of the lists (each has one row in the period)."""
    ids = [results.ids for results in found.values()]
    return sum(map(len, ids)) == len(set().union(*ids))


def _carry(
    results: engine.PeriodColumns,
    newcomers: dict[int, engine.PlayerPeriod],
    rated: set[int],
    final: dict[int, int | None],
    states: dict[int, engine.PlayerState] | None,
) -> None:
    """Note a list's period: who was rated, their ratings after it, and (``states`` given,
    before a later period) the states they close it with, which open the next."""
    rated.update(results.ids)
    final.update(zip(results.rated.ids, _ratings_after(results.rated), strict=True))
    final.update((pid, result.rating_after) for pid, result in newcomers.items())
    if states is not None:
        states.update(zip(results.rated.ids, engine.rated_states(results.rated), strict=True))
        states.update((pid, result.state) for pid, result in newcomers.items())


def _moves(final: dict[int, int | None], stored: dict[int, int | None]) -> list[RatingMove]:
    """The players whose rating after the recompute differs from the stored one."""
    return [
        RatingMove(pid, stored.get(pid), rating)
        for pid, rating in final.items()
        if stored.get(pid) != rating
    ]


def try_recompute_lock() -> bool:
    """Take the recompute lock (PostgreSQL) for the caller's transaction if it is free; return
    whether it was taken (always, on SQLite: its writers take turns on the database itself).

    For a caller that writes and then recomputes in one transaction (``ladder.writes.previews``): it
    holds row locks that the run executor, holding this lock, may be waiting for, so it must
    not wait for this lock in turn. When the lock is taken, give way (roll back) and try again.
    """
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [LOCK_KEY])
        return bool(cursor.fetchone()[0])


def _prepare() -> None:
    """Serialize recomputes so that concurrent entry cannot lose an update (DESIGN Flow 4).

    On PostgreSQL also turn JIT compilation off for the transaction: the recompute's scans are
    simple, and compiling them cost more than it saved (measured on the benchmark). And give its
    sorts room: a federation's 300,000 latest rows (three lists) spilled to disk in the default
    4 MB (measured: a third of the players' update).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s), set_config('jit', 'off', true), "
                "set_config('work_mem', %s, true)",
                [LOCK_KEY, _WORK_MEM],
            )


def _load_players(
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
        entry[pk] = engine.PlayerState(rating, games, peak if peak is not None else rating, born)
        current[3] = bulk.as_date(current[3])
        derived[pk] = tuple(current)
    return entry, derived


class _EntryTable:
    """Every player's id, birth year and, on each list read, entry rating, rated games, peak
    and stored rating, as integer columns in id order (-1 for none), read in one query.

    A full replay starts every player of every list at their entry state, but most players of
    a federation play on one list: a state is built only when a list asks for it
    (``_EntryStates``), and the columns, read packed on PostgreSQL, cost a three-list replay
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
        self._lists: dict[str, tuple[list[int | None], ...]] = {}

    @functools.cached_property
    def position(self) -> dict[int, int]:
        """Each player's position in the columns, by id."""
        return dict(zip(self.ids.tolist(), range(len(self.ids)), strict=True))

    @functools.cached_property
    def born(self) -> list[int | None]:
        """Each player's birth year."""
        return self._plain(self.values[:, 0])

    def prepare(self) -> None:
        """Build now what building the states needs (the Python values of every list)."""
        for rating_list in self.at:
            self.of_list(rating_list)
        self.position, self.born  # noqa: B018 - computed and kept

    @staticmethod
    def _plain(column: np.ndarray) -> list[int | None]:
        """A column as Python values, None for none."""
        return columns.nullable(column, column < 0)

    def of_list(self, rating_list: str) -> tuple[list[int | None], ...]:
        """A list's entry rating, rated games, peak and stored rating as Python values."""
        if rating_list not in self._lists:
            at = self.at[rating_list]
            self._lists[rating_list] = tuple(self._plain(self.values[:, at + n]) for n in range(4))
        return self._lists[rating_list]

    def stored(self, rating_list: str) -> dict[int, int | None]:
        """Each player's stored rating on a list."""
        return dict(zip(self.ids.tolist(), self.of_list(rating_list)[3], strict=True))

    def narrow(self) -> bool:
        """Whether every player's id fits int4."""
        return not len(self.ids) or int(self.ids[-1]) <= _INT4_MAX


class _EntryStates(dict[int, engine.PlayerState]):
    """A list's states, each player's entry state built only when first asked for (a player
    not held is at their entry state, read from the ``_EntryTable``)."""

    def __init__(self, table: _EntryTable, rating_list: str) -> None:
        super().__init__()
        self._table, self._list = table, rating_list

    def __missing__(self, pid: int) -> engine.PlayerState:
        table = self._table
        k = table.position[pid]
        rating, games, peak, _ = table.of_list(self._list)
        state = self[pid] = engine.PlayerState(
            rating[k], games[k] or 0, peak[k] if peak[k] is not None else rating[k], table.born[k]
        )
        return state

    def fresh(self) -> _EntryStates:
        """The entry states again, none built (what a replay's states start from)."""
        return _EntryStates(self._table, self._list)

    def state_columns(self, ids: np.ndarray) -> engine.StateColumns:
        """The states of the players ``ids`` (sorted) as columns (``engine.state_columns``):
        the entry data's columns, with the states held (carried from an earlier period) put
        over them. No ``PlayerState`` is built for a player at their entry state."""
        table = self._table
        position = np.searchsorted(table.ids, ids)
        at = table.at[self._list]
        values = table.values[position]
        rating, peak = values[:, at], values[:, at + 2]
        found = engine.StateColumns(
            rating, values[:, at + 1], np.where(peak < 0, rating, peak), values[:, 0],
            np.full(len(ids), -1, np.int64), [None] * len(ids),
        )  # fmt: skip
        if self:
            held = [(k, self[pid]) for k, pid in enumerate(ids.tolist()) if pid in self]
            if held:
                at_held = np.array([k for k, _ in held], np.int64)
                states = engine.StateColumns.of([state for _, state in held])
                for mine, theirs in zip(found[:5], states[:5], strict=True):
                    mine[at_held] = theirs
                for k, event in zip(at_held.tolist(), states.first_event, strict=True):
                    found.first_event[k] = event
        return found


def _load_entry(rating_lists: Sequence[str]) -> tuple[_EntryTable, dict[str, _EntryStates]]:
    """Every player's entry data and stored rating on each list, in one query, and the states
    on each list (built when asked for).

    Reading all players is cheaper than selecting those of a period: a federation's player
    table is small next to its games, and the selection would scan the games again.
    """
    table = _EntryTable(rating_lists)
    entry = {name: _EntryStates(table, name) for name in rating_lists}
    return table, entry


def _ratings_after(rated: engine.RatedColumns) -> list[int | None]:
    """The rated players' ``rating_after`` as their rows hold it (None below the floor)."""
    return columns.nullable(rated.after, rated.below_floor())


def _lists_rated_before(start: date, rating_lists: Sequence[str]) -> list[str]:
    """The lists with rows in a period before ``start``: an index probe each (the periods'
    ids first: joined to the periods, the probe became a scan of every row, 28 ms a list on
    the benchmark), and nothing at all before the first period."""
    earlier = list(RatingPeriod.objects.filter(start__lt=start).values_list("pk", flat=True))
    if not earlier:
        return []
    rows = RatingChange.objects.filter(period_id__in=earlier)
    return [name for name in rating_lists if rows.filter(rating_list=name).exists()]


def _delete_rows(period: RatingPeriod, rating_lists: Sequence[str]) -> dict[str, set[int]]:
    """Delete the period's rows on the lists; return whose rows they were, by list.

    On PostgreSQL the ids come back packed, a value per list (100,000 rows' ids as Python
    tuples cost as much as the delete).
    """
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    marks = ", ".join(["%s"] * len(rating_lists))
    delete = f"DELETE FROM {table} WHERE period_id = %s AND rating_list IN ({marks})"
    params: list[Any] = [period.pk, *rating_lists]
    deleted: dict[str, set[int]] = {name: set() for name in rating_lists}
    if connection.vendor == "postgresql":
        packed = bulk.fetch_packed(
            f"WITH d AS ({delete} RETURNING player_id, rating_list) "
            "SELECT rating_list, string_agg(int8send(player_id), ''::bytea) "
            "FROM d GROUP BY rating_list",
            params,
            np.dtype(">i8"),
        )
        for (rating_list,), ids in packed:
            deleted[rating_list] = set(ids.tolist())
        return deleted
    with connection.cursor() as cursor:
        cursor.execute(f"{delete} RETURNING player_id, rating_list", params)
        for pid, rating_list in cursor.fetchall():
            deleted[rating_list].add(pid)
    return deleted


def _rate(
    period: RatingPeriod, states: dict[int, engine.PlayerState], games: engine.GameColumns | None
) -> engine.PeriodColumns | None:
    """Rate one period of a list from the states on its opening list; None without games."""
    if games is None:
        return None
    span = engine.Period(period.start, period.end, period.label)
    return engine.rate_period_columns(span, states, games, rules())


def _games_by_list(
    period: RatingPeriod,
    rating_lists: Sequence[str],
    *,
    narrow: bool = False,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, engine.GameColumns]:
    """The period's games on the lists, in one query, as integer columns for each list that has
    any: White's score and the day decoded by the query.

    On PostgreSQL they come packed into ``bytea`` values straight into numpy (a million Python
    tuples of strings and dates cost more than the rest of the reading), one value for each
    list and event: the server groups them, so each game's list and event are known without a
    byte of their own, and the event names come once each. ``narrow``: every player's id fits
    int4, so White's and Black's ids share one int8. ``meanwhile`` is called while the server
    reads (on PostgreSQL; elsewhere first).
    """
    table = connection.ops.quote_name(Game._meta.db_table)
    cases = " ".join(f"WHEN '{code}' THEN {value}" for code, value in engine.WHITE_SCORE.items())
    marks = ", ".join(["%s"] * len(rating_lists))
    where = f"period_id = %s AND rating_list IN ({marks})"
    if connection.vendor != "postgresql":
        if meanwhile is not None:
            meanwhile()
        sql = (
            f"SELECT rating_list, white_id, black_id, CASE result {cases} ELSE -1 END, date, "
            f"event FROM {table} WHERE {where}"
        )
        rows = list(bulk.fetch_rows_sql(sql, [period.pk, *rating_lists]))
        found = {}
        for rating_list in rating_lists:
            chosen = [row[1:] for row in rows if row[0] == rating_list]
            if not chosen:
                continue
            white, black, score = np.array([row[:3] for row in chosen], np.int64).T
            days = np.fromiter(
                (date.fromisoformat(str(row[3])[:10]).toordinal() for row in chosen),
                np.int64,
                len(chosen),
            )
            events = np.array([row[4] for row in chosen], dtype=object)
            found[rating_list] = engine.GameColumns(
                white, black, score, days, functools.partial(_names, events, None)
            )
        return found
    # A game packs into 12 bytes (20 when ids need int8): the players, then White's score and
    # the day in one int4 (score x 2**16 + day; the cast to int2 refuses a day out of range).
    players = (
        "int8send((white_id::int8 << 32) | black_id)"
        if narrow
        else "int8send(white_id) || int8send(black_id)"
    )
    groups = bulk.fetch_packed(
        f"""SELECT rating_list, event,
                   string_agg({players} || int4send((CASE result {cases} ELSE -1 END) * 65536
                                                    + (date - %s)::int2), ''::bytea)
            FROM {table} WHERE {where}
            GROUP BY rating_list, event""",
        [period.start, period.pk, *rating_lists],
        _NARROW_GAME if narrow else _WIDE_GAME,
        meanwhile=meanwhile,
    )
    found = {}
    for rating_list in rating_lists:
        mine = [(event, records) for (name, event), records in groups if name == rating_list]
        if not mine:
            continue
        records = np.concatenate([records for _, records in mine])
        if narrow:
            pair = records["players"].astype(np.int64)
            white, black = pair >> 32, pair & 0xFFFFFFFF
        else:
            white, black = records["white"].astype(np.int64), records["black"].astype(np.int64)
        packed = records["score_day"].astype(np.int64)
        score = (packed + 32768) >> 16
        days = packed - (score << 16) + period.start.toordinal()
        events = np.array([event for event, _ in mine], dtype=object)
        codes = np.repeat(np.arange(len(mine)), [len(records) for _, records in mine])
        found[rating_list] = engine.GameColumns(
            white, black, score, days, functools.partial(_names, events, codes)
        )
    return found


def _names(events: np.ndarray, codes: np.ndarray | None = None, at: Any = None) -> list[str]:
    """The event names of the games at ``at``: ``events`` holds a name a game, or with
    ``codes`` a name a code."""
    chosen = codes[at] if codes is not None else at
    return events[chosen].tolist()  # type: ignore[no-any-return]


_WIDE_GAME = np.dtype([("white", ">i8"), ("black", ">i8"), ("score_day", ">i4")])
_NARROW_GAME = np.dtype([("players", ">i8"), ("score_day", ">i4")])


_INT4_MAX = 2**31 - 1


def load_states(
    *, before: date | None, players: Q, rating_list: str = RatingList.STANDARD
) -> dict[int, engine.PlayerState]:
    """Return the state of the selected players on the list that opens a period starting then.

    Two queries: the players' entry data, and their latest RatingChange before that date.
    """
    entry, _ = _load_players(rating_list, players)
    ids = Player.objects.filter(players).values("pk")
    latest = _latest_states(before=before, players=ids, entry=entry, rating_list=rating_list)
    return {**entry, **latest}


def _latest_states(
    *,
    before: date | None,
    players: QuerySet[Any, Any] | RawSQL,
    entry: dict[int, engine.PlayerState],
    rating_list: str,
) -> dict[int, engine.PlayerState]:
    """The states that the players' latest RatingChange on a list before ``before`` leaves.

    ``players``: a QuerySet of their ids, or a condition on ``player_id`` (``_among``).
    """
    latest = latest_changes(before=before, rating_list=rating_list)
    if isinstance(players, RawSQL):
        latest = latest.filter(players)
    else:
        latest = latest.filter(player_id__in=players)
    states = {}
    for row in latest.values_list(
        "player_id", "status", "rating_after", "rated_games_after", "peak_after",
        "last_rated_on", "pool", "first_event",
    ):  # fmt: skip
        pid, status, rating, games, peak, last, pool, first_event = row
        states[pid] = engine.PlayerState(
            rating=rating,
            rated_games=games,
            peak_rating=peak,
            birth_year=entry[pid].birth_year,
            last_rated_on=last,
            pool=_pool_from_json(pool) if status == Status.UNRATED else (),
            first_event=first_event or None,
        )
    return states


def latest_changes(
    *,
    before: date | None = None,
    through: date | None = None,
    rating_list: str = RatingList.STANDARD,
) -> QuerySet[RatingChange]:
    """Each player's latest RatingChange on a list of a period starting before ``before`` (or at
    or before ``through``): one query whatever the number of players."""
    rows = RatingChange.objects.filter(rating_list=rating_list)
    if before is not None:
        rows = rows.filter(period__start__lt=before)
    if through is not None:
        rows = rows.filter(period__start__lte=through)
    return rows.annotate(
        recency=Window(
            RowNumber(), partition_by=[F("player_id")], order_by=F("period__start").desc()
        )
    ).filter(recency=1)


def _pool_from_json(pool: list[Any]) -> tuple[engine.PoolGame, ...]:
    return tuple(
        engine.PoolGame(date.fromisoformat(on), event, rating, score)
        for on, event, rating, score in pool
    )


def _pool_to_json(pool: Iterable[engine.PoolGame]) -> list[Any]:
    return [[g.on.isoformat(), g.event, g.opponent_rating, g.score] for g in pool]


_ROW_COLUMNS = (
    "player", "period", "rating_list", "status", "rating_before", "k", "k_reason", "k_applied",
    "games", "score_units", "expected_units", "change_exact_units", "change", "rating_after",
    "performance", "rated_games_after", "peak_after", "last_rated_on", "first_event", "pool",
)  # fmt: skip


def _row(pid: int, period: RatingPeriod, result: engine.PlayerPeriod, rating_list: str) -> Row:
    """Return a RatingChange row in ``_ROW_COLUMNS`` order, in database form."""
    state, k = result.state, result.k
    return (
        pid, period.pk, rating_list, result.status, result.rating_before, k.value if k else None,
        k.reason if k else "", result.k_applied, result.games, result.score, result.expected,
        result.change_exact, result.change, result.rating_after, result.performance,
        state.rated_games, state.peak_rating, state.last_rated_on, state.first_event or "",
        _pool_text(result.pool) if result.pool else "[]",
    )  # fmt: skip


def _pool_text(pool: Iterable[engine.PoolGame]) -> str:
    """``json.dumps(_pool_to_json(pool))``, character for character, a few times faster.

    A federation's period writes some 10,000 pools of 170,000 games; encoding each game's
    date and event anew, then the nested lists, was about a tenth of the recompute (measured
    on the benchmark). A period's games share a few dates and events: each is encoded once.
    """
    parts = []
    for on, event, rating, score in pool:
        if type(rating) is not int or type(score) is not int:  # not a plain JSON integer
            return json.dumps(_pool_to_json(pool))
        parts.append(f'["{_iso(on)}", {_json_text(event)}, {rating}, {score}]')
    return f"[{', '.join(parts)}]"


@functools.lru_cache(maxsize=4096)
def _iso(on: date) -> str:
    return on.isoformat()


@functools.lru_cache(maxsize=4096)
def _json_text(value: str) -> str:
    return json.dumps(value)


def _states_before(
    start: date | None, player_ids: set[int], rating_list: str
) -> dict[int, tuple[engine.PlayerState, int | None]]:
    """The state of players with no game left from ``start`` on: as on the list before it."""
    found: dict[int, tuple[engine.PlayerState, int | None]] = {}
    for chunk in _chunks(player_ids):
        states = load_states(before=start, players=Q(pk__in=chunk), rating_list=rating_list)
        changes = dict(
            latest_changes(before=start, rating_list=rating_list)
            .filter(player_id__in=chunk, status=Status.RATED)
            .values_list("player_id", "change")
        )
        found.update({pid: (state, changes.get(pid)) for pid, state in states.items()})
    return found


def _chunks(ids: Iterable[int], size: int = 900) -> Iterable[list[int]]:
    """Split ids for ``IN`` lists (SQLite allows a limited number of variables per query)."""
    ordered = sorted(ids)
    for offset in range(0, len(ordered), size):
        yield ordered[offset : offset + size]


def _write_players(
    final: dict[int, tuple[engine.PlayerState, int | None]],
    before: dict[int, Row],
    rating_list: str,
) -> list[RatingMove]:
    """Write the players' derived state on a list; return the players whose rating changed."""
    changed = []
    moves = []
    for pid, (state, last_change) in final.items():
        new = (state.rating, state.rated_games, state.peak_rating, state.last_rated_on, last_change)
        old = before.get(pid)
        if new != old:
            changed.append((pid, *new))
            if old is None or old[0] != state.rating:
                moves.append(RatingMove(pid, old[0] if old is not None else None, state.rating))
    bulk.update_rows(Player, LIST_FIELDS[rating_list].derived, changed)
    return moves


# --- incremental recompute ------------------------------------------------------------------

_IDS = "ratings_recompute_ids"
_POOL = _ROW_COLUMNS.index("pool")
_LAST_RATED = _ROW_COLUMNS.index("last_rated_on")
# The row's columns that make the state on the next list (status through pool).
_STATE = [_ROW_COLUMNS.index(c) for c in ("status", "rating_after", "rated_games_after",
          "peak_after", "last_rated_on", "first_event", "pool")]  # fmt: skip


def _recompute_players(
    period: RatingPeriod | None, rating_list: str, players: set[int], *, dry_run: bool
) -> Recompute:
    """Rate again ``players`` and whoever their changes reach; write only the rows that differ.

    ``changed`` holds the players whose state on the next opening list may differ from the
    stored one: at first the given players (their entry data may have changed), then whoever a
    period leaves in a different state. A player is rated again in a period if given, changed,
    or an opponent of a changed player there; one whose state comes out as stored stops there.
    """
    periods, summary = _begin(period, dry_run=dry_run)
    changed, reached = set(players), set(players)
    for current in periods:
        rows, rated = _rate_reached(current, players, changed, rating_list, summary.lines)
        summary.rows += rows
        reached |= rated
    summary.moves = _write_players(*_final_states(reached, rating_list), rating_list)
    summary.players_changed = len(summary.moves)
    if dry_run:
        transaction.set_rollback(True)
    return summary


def _among(ids: Iterable[int], *columns: str) -> RawSQL:
    """A condition: any of ``columns`` holds one of ``ids``, in SQL of constant size.

    An array parameter on PostgreSQL (``= ANY`` uses the columns' indexes); on SQLite, which
    limits the variables of a query, a scratch table filled in one statement (the condition
    then holds until the next call fills it again).
    """
    if connection.vendor == "postgresql":
        array = sorted(ids)
        sql = " OR ".join(f"{column} = ANY(%s)" for column in columns)
        return RawSQL(f"({sql})", [array] * len(columns), output_field=BooleanField())
    table = bulk.fill_ids(_IDS, ids)
    sql = " OR ".join(f"{column} IN (SELECT id FROM {table})" for column in columns)
    return RawSQL(f"({sql})", [], output_field=BooleanField())


def _rate_reached(
    current: RatingPeriod,
    players: set[int],
    changed: set[int],
    rating_list: str,
    lines: list[LineMove],
) -> tuple[int, set[int]]:
    """Rate one period of a list for the players reached; return rows written and players
    rated, and add to ``lines`` each line whose rating or change moved."""
    seeds = players | changed
    pairs = Game.objects.filter(
        _among(seeds, "white_id", "black_id"), period=current, rating_list=rating_list
    )
    redo: set[int] = set()
    for white, black in bulk.fetch_rows(pairs.order_by().values_list("white_id", "black_id")):
        redo.update(p for p in (white, black) if p in seeds)
        if white in changed:
            redo.add(black)
        if black in changed:
            redo.add(white)
    rated = _rate_some(current, redo, rating_list)
    new = {pid: _comparable(_row(pid, current, r, rating_list)) for pid, r in rated.items()}
    old = _stored_rows(current, redo | players, rating_list)
    for pid, row in new.items():
        before = old.get(pid)
        if before is not None and [before[i] for i in _STATE] == [row[i] for i in _STATE]:
            changed.discard(pid)
        else:
            changed.add(pid)
    stale = old.keys() - new.keys()  # a deleted or moved game leaves no game here
    changed |= stale
    differ = [pid for pid, row in new.items() if row != old.get(pid)]
    removed = stale | (old.keys() & set(differ))
    if removed:
        RatingChange.objects.filter(
            _among(removed, "player_id"), period=current, rating_list=rating_list
        ).delete()
    bulk.insert_rows(RatingChange, _ROW_COLUMNS, (_stored_form(new[pid]) for pid in differ))
    lines += _line_moves(current, old, new, [*differ, *stale])
    return len(differ) + len(stale), redo | stale


_RATING_AFTER, _CHANGE = _ROW_COLUMNS.index("rating_after"), _ROW_COLUMNS.index("change")


def _line_moves(
    current: RatingPeriod, old: dict[int, Row], new: dict[int, Row], players: Iterable[int]
) -> list[LineMove]:
    """The lines of ``players`` whose rating after the period or change differ."""
    moves = []
    for pid in sorted(players):
        before, after = old.get(pid), new.get(pid)
        was = (before[_RATING_AFTER], before[_CHANGE]) if before is not None else (None, None)
        now = (after[_RATING_AFTER], after[_CHANGE]) if after is not None else (None, None)
        if was != now:
            moves.append(LineMove(current.label, pid, was[0], now[0], was[1], now[1]))
    return moves


def _rate_some(
    current: RatingPeriod, redo: set[int], rating_list: str
) -> dict[int, engine.PlayerPeriod]:
    """Rate ``redo`` on all their games of the period on a list, against their opponents'
    opening states."""
    if not redo:
        return {}
    games = Game.objects.filter(
        _among(redo, "white_id", "black_id"), period=current, rating_list=rating_list
    )
    rows = list(
        bulk.fetch_rows(
            games.order_by().values_list("white_id", "black_id", "result", "date", "event")
        )
    )
    rows = [(w, b, result, bulk.as_date(day), event) for w, b, result, day, event in rows]
    everyone = {w for w, *_ in rows} | {b for _, b, *_ in rows}
    entry, _ = _load_players(rating_list, Q(_among(everyone, "id")))
    opening = _latest_states(
        before=current.start,
        players=_among(everyone, "player_id"),
        entry=entry,
        rating_list=rating_list,
    )
    states = {**entry, **opening}
    span = engine.Period(current.start, current.end, current.label)
    results = engine.rate_period(span, states, rows, rules())
    return {pid: result for pid, result in results.items() if pid in redo}


def _stored_rows(current: RatingPeriod, players: set[int], rating_list: str) -> dict[int, Row]:
    """The stored rows of the period on a list for these players, in ``_comparable`` form."""
    columns = [f"{c}_id" if c in ("player", "period") else c for c in _ROW_COLUMNS]
    rows = RatingChange.objects.filter(
        _among(players, "player_id"), period=current, rating_list=rating_list
    )
    return {
        row[0]: _comparable(row) for row in bulk.fetch_rows(rows.order_by().values_list(*columns))
    }


def _comparable(row: Row) -> Row:
    """A row as the driver or ``_row`` gives it, with its date and pool in Python form."""
    values = list(row)
    values[_LAST_RATED] = bulk.as_date(values[_LAST_RATED])
    if isinstance(values[_POOL], str):
        values[_POOL] = json.loads(values[_POOL])
    return tuple(values)


def _stored_form(row: Row) -> Row:
    values = list(row)
    values[_POOL] = json.dumps(values[_POOL])
    return tuple(values)


def _final_states(
    players: set[int], rating_list: str
) -> tuple[dict[int, tuple[engine.PlayerState, int | None]], dict[int, Row]]:
    """Each player's state on a list after their latest row (else the entry data) and their
    stored one."""
    entry, before = _load_players(rating_list, Q(_among(players, "id")))
    final: dict[int, tuple[engine.PlayerState, int | None]] = {
        pid: (state, None) for pid, state in entry.items()
    }
    latest = latest_changes(rating_list=rating_list).filter(_among(players, "player_id"))
    for pid, status, rating, games, peak, last, change in latest.values_list(
        "player_id", "status", "rating_after", "rated_games_after", "peak_after",
        "last_rated_on", "change",
    ):  # fmt: skip
        state = engine.PlayerState(rating, games, peak, entry[pid].birth_year, last)
        final[pid] = (state, change if status == Status.RATED else None)
    return final, before


def _write_stale(start: date, players: set[int], rating_list: str) -> list[RatingMove]:
    """Write the fields on a list of players left with no row from ``start`` on (their games
    were deleted or moved): as on the list before it. Returns whose ratings changed."""
    if not players:
        return []
    before: dict[int, Row] = {}
    for chunk in _chunks(players):
        before.update(_load_players(rating_list, Q(pk__in=chunk))[1])
    return _write_players(_states_before(start, players, rating_list), before, rating_list)


_DERIVED = ("rating", "rated_games", "peak_rating", "last_rated_on", "last_change")


def _players_from_rows(
    periods: Sequence[RatingPeriod], rating_lists: Sequence[str]
) -> tuple[str, list[Any]]:
    """The statement (SQL and parameters) that copies each player's latest row on each list in
    ``periods`` (a period and every later one) into their derived fields of that list, every
    list in one statement.

    Only players whose fields differ are written, each once whatever the number of lists. The
    rows were just written, so the database joins them to the players faster than a scratch
    table filled from Python would.
    """
    quote = connection.ops.quote_name
    changes, periods_table = quote(RatingChange._meta.db_table), quote(RatingPeriod._meta.db_table)
    players = quote(Player._meta.db_table)
    differ = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"
    assert set(rating_lists) <= set(RatingList.values)  # written into the SQL below
    marks = ", ".join(["%s"] * len(rating_lists))
    # Each player's latest row on each list by a window over the rows from ``start`` on (rows
    # before it cannot be later): a sort, where an anti-join ("no later row exists") could turn
    # into a nested loop when the table's statistics predate the rows just written (measured:
    # a three-list federation's update ran for minutes). Then one row per player, a column
    # set per list (``on_<n>``: the player has a row on list n, so its fields are written).
    several = len(rating_lists) > 1  # else a row per player already: nothing to pivot
    pivot = ", ".join(
        (f"COUNT(*) FILTER (WHERE rating_list = '{name}') > 0" if several else "TRUE")
        + f" AS on_{n}, "
        + ", ".join(
            (f"MAX({value}) FILTER (WHERE rating_list = '{name}')" if several else value)
            + f" AS {value}_{n}"
            for value in _DERIVED
        )
        for n, name in enumerate(rating_lists)
    )
    row = """rc.player_id, rc.rating_list, rc.rating_after AS rating,
              rc.rated_games_after AS rated_games, rc.peak_after AS peak_rating,
              rc.last_rated_on, CASE WHEN rc.status = %s THEN rc.change END AS last_change"""
    where: int | date
    if len(periods) == 1:  # one row per player and list: each is the latest
        rows = f"SELECT {row} FROM {changes} rc WHERE rc.rating_list IN ({marks}) AND "
        rows += "rc.period_id = %s"
        where = periods[0].pk
    else:
        rows = f"""
            SELECT * FROM (
                SELECT {row}, ROW_NUMBER() OVER (PARTITION BY rc.player_id, rc.rating_list
                                                 ORDER BY p.start DESC) AS recency
                FROM {changes} rc JOIN {periods_table} p ON p.id = rc.period_id
                WHERE rc.rating_list IN ({marks}) AND p.start >= %s
            ) AS ranked
            WHERE recency = 1"""
        where = periods[0].start
    latest = f"""SELECT player_id, {pivot} FROM ({rows}) AS latest
                 {"GROUP BY player_id" if several else ""}"""
    params: list[Any] = [Status.RATED, *rating_lists, where]
    if len(periods) == 1 and several and connection.vendor == "postgresql":
        # One row per player and list: the lists' rows side by side by full joins (hashes of
        # 100,000 rows each), not 300,000 rows sorted and grouped (measured: 0.45 s less).
        joined, key, flags = "", "", []
        for n, name in enumerate(rating_lists):
            part = (
                f"(SELECT {row} FROM {changes} rc "
                f"WHERE rc.rating_list = '{name}' AND rc.period_id = %s) AS l{n}"
            )
            joined += f" FULL JOIN {part} ON l{n}.player_id = {key}" if key else part
            key = f"COALESCE({key}, l{n}.player_id)" if key else f"l{n}.player_id"
            flags.append(
                f"l{n}.player_id IS NOT NULL AS on_{n}, "
                + ", ".join(f"l{n}.{value} AS {value}_{n}" for value in _DERIVED)
            )
        latest = f"SELECT {key} AS player_id, {', '.join(flags)} FROM {joined}"
        params = [Status.RATED, periods[0].pk] * len(rating_lists)
    assignments, different = [], []
    for n, name in enumerate(rating_lists):
        # The query's own names (rating_0, ...) become the list's columns (rapid_rating, ...).
        fields = LIST_FIELDS[name]
        pairs = [(quote(column), f"{value}_{n}")
                 for value, column in zip(_DERIVED, fields.derived, strict=True)]  # fmt: skip
        assignments += [
            f"{column} = CASE WHEN l.on_{n} THEN l.{value} ELSE {players}.{column} END"
            if several
            else f"{column} = l.{value}"
            for column, value in pairs
        ]
        unequal = " OR ".join(f"{players}.{column} {differ} l.{value}" for column, value in pairs)
        different.append(f"(l.on_{n} AND ({unequal}))")
    return (
        f"UPDATE {players} SET {', '.join(assignments)} FROM ({latest}) AS l "
        f"WHERE {players}.id = l.player_id AND ({' OR '.join(different)})",
        params,
    )
