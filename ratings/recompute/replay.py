"""The full replay: every period from a start on, every player, the lists side by side."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import date
from typing import Any, NamedTuple

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Q

from ladder.records import Player, RatingList, RatingPeriod
from ratings.exceptions import StorageError
from ratings.models import AppliedAdjustment, RatingChange
from ratings.recompute import bulk, columns, storage
from ratings.recompute.ahead import GamesAhead, Half, Query
from ratings.recompute.latest import LatestRows
from ratings.recompute.rows import ROW_COLUMNS, Row, change_row, write_players
from ratings.recompute.states import (
    EntryStates,
    EntryTable,
    base_corrections_of,
    chunks,
    corrected,
    earlier_ratings,
    latest_states,
    load_entry,
    load_players,
    ratings_in_force,
    rules,
    standard_before,
    standard_ratings,
    states_before,
)
from ratings.recompute.summary import RatingMove, Recompute
from ratings.rules import engine, eras


def replay_lists(
    period: RatingPeriod | None,
    rating_lists: Sequence[str],
    *,
    dry_run: bool,
    rules_of: Callable[[str], engine.Rules] = rules,
) -> dict[str, Recompute]:
    """A full replay of ``rating_lists`` from ``period``, the lists side by side in one pass
    (``rules_of``: each list's rule options, the club's by default; a simulation gives others).

    Each list is rated alone (FIDE.md 9), but the lists share the reading: the players' entry
    data come in one query, each period's games in one query split by list in numpy, and the
    players' fields of every list are written in one statement at the end. A ``dry_run`` is
    written too: its caller rolls it back when done (``services``), having read what followed.
    """
    start = storage.begin(period, dry_run=dry_run)
    periods = start.periods
    summaries = {
        name: Recompute(list(start.summary.periods), dry_run=dry_run) for name in rating_lists
    }
    if not periods:
        return summaries
    # The games read ahead on another connection, from now on: the first period's while this
    # one reads the entry data, the others' while it stores rows (``ahead``).
    # A long replay may write its rows without the table's index by player (``exclusive``).
    least = settings.LADDER_EXCLUSIVE_REPLAY_PERIODS
    exclusive = not dry_run and least > 0 and len(periods) >= least
    with _games_ahead(periods, rating_lists, start.narrow, start.untouched) as ahead:
        return _replay(periods, rating_lists, summaries, start.narrow, ahead, rules_of, exclusive)


def _replay(
    periods: list[RatingPeriod],
    rating_lists: Sequence[str],
    summaries: dict[str, Recompute],
    narrow: bool,
    ahead: GamesAhead | None,
    rules_of: Callable[[str], engine.Rules],
    exclusive: bool = False,
) -> dict[str, Recompute]:
    """The replay of ``replay_lists``, period by period; with ``exclusive`` its rows written
    without the rating table's index by player, the table locked
    (``storage.player_index_aside``)."""
    table, entry = load_entry(rating_lists)
    # Every player's state on each list that opens the first period, then carried from
    # period to period in memory: the run rates everyone, so nothing later needs reading back.
    states = {name: entry[name].fresh() for name in rating_lists}
    for name in _lists_rated_before(periods[0].start, rating_lists):
        states[name].put_states(
            latest_states(before=periods[0].start, players=Player.objects.values("pk"),
                           entry=entry[name], rating_list=name)
        )  # fmt: skip
    moves: dict[str, list[RatingMove]] = {}
    made: list[AppliedAdjustment] = []  # the one-off adjustments made, whether they raised anyone
    # Whom the replay writes a row, by list, and their latest row's change (``latest``): with
    # the states, what the players' fields become, and whose rating the recompute changed.
    latest = {name: LatestRows(table.ids) for name in rating_lists}
    # From here on a replay writes rows; the states before the first period are read above.
    # What each period reads of the database on this connection, read first for them all, so
    # that one COPY can carry the rows of period after period (``_Stream``): the server stores
    # a period's rows while the next one is rated, instead of the replay waiting at each end.
    with storage.player_index_aside(exclusive), _Stream() as stream:
        stale = storage.delete_rows(periods, rating_lists)
        all_fixes = {name: base_corrections_of([p.pk for p in periods], name)
                     for name in rating_lists}  # fmt: skip
        started_before = storage.earlier_tournaments(periods)
        for index, current in enumerate(periods):
            last = index + 1 == len(periods)
            # The entry data are made ready for the rating while the server reads the games.
            games = storage.games_by_list(
                current, rating_lists, narrow=narrow, meanwhile=table.prepare, ahead=ahead,
                earlier=started_before.get(current.pk, {}), before_reading=stream.end,
            )  # fmt: skip
            # Each list is rated and its rated players' rows sent as columns
            # (ratings.recompute.columns) before the next list is rated, so that the server stores
            # them meanwhile; then the newcomers' rows, fewer and each with a pool, all in one
            # statement. The newcomers are rated only then (``unrated`` is computed when first
            # read), while the server stores the rows before theirs (``bulk.RowWriter``).
            found: dict[str, engine.PeriodColumns] = {}
            # What the rating reads of the database beyond what was read for every period (the
            # ratings on the lists in force when tournaments started in an earlier period, the
            # standard list of a rapid or blitz replay alone) ends the stream of rows first.
            fixes = {name: all_fixes[name].get(current.pk, {}) for name in rating_lists}
            if any(g.start is not None for g in games.values()) or (
                RatingList.STANDARD not in states
                and not set(games).isdisjoint(eras.RAPID_BLITZ_LISTS)
            ):
                stream.end()  # the ratings of another day, or of the standard list, are read
            earlier = {name: earlier_ratings(g, name) for name, g in games.items()}
            seeds = _seeds(current, games, states, fixes)
            following = None if last else periods[index + 1].end
            due = {name: engine.adjustments_due(rules_of(name), current.end, following)
                   for name in rating_lists}  # fmt: skip
            # A period closed by a one-off adjustment (FIDE.md 10.2; a few in a list's history)
            # is rated whole first, then adjusted, then written: its rows are written once, as
            # adjusted (raising the rows just written, with a read of their ids, took 13 s of the
            # server's time in the history benchmark's full replay).
            adjusting = any(due.values())
            for name in rating_lists:
                opening = corrected(states[name], fixes[name])
                results = _rate(
                    current, opening, games.pop(name, None), rules_of(name), earlier.get(name),
                    seeds.get(name),
                )  # fmt: skip
                if results is None:
                    continue
                found[name] = results
                if not adjusting:
                    summaries[name].rows += columns.insert_rated(
                        RatingChange, ROW_COLUMNS, current.pk, results.rated, name, stream.writer()
                    )
            del games
            newcomers = _newcomers(found)
            if not adjusting:
                for name, unrated in newcomers.items():
                    rows = (change_row(pid, current, r, name) for pid, r in unrated.items())
                    summaries[name].rows += stream.writer().rows(rows)
            if adjusting or last:
                stream.end()  # what follows reads, or writes in other statements
            if adjusting:
                # Every list carried first, since the adjustment of 1 October 2022 reads the
                # standard list.
                for name, results in found.items():
                    _carry(results, newcomers[name], states[name], latest[name])
                adjusted: dict[str, Raised] = {}
                for name, adjustments in due.items():
                    if adjustments:
                        made += [
                            AppliedAdjustment(period=current, rating_list=name, adjusted_on=a.on)
                            for a in adjustments
                        ]
                        raised = adjusted[name] = _adjust(name, adjustments, states, table)
                        played = np.isin(raised.ids, found[name].ids if name in found else [])
                        # rows of their own (``_write_adjusted``), and the played ones' raised
                        latest[name].put_raised(raised.ids[~played], raised.after[~played])
                        latest[name].put_raised(raised.ids[played], raised.after[played], own=False)
                with bulk.writing(RatingChange, ROW_COLUMNS) as writer:
                    for name in rating_lists:
                        summaries[name].rows += _write_adjusted(
                            current, name, found.get(name), newcomers.get(name, {}),
                            adjusted.get(name), writer,
                        )  # fmt: skip
                found, newcomers = {}, {}
            if last and len(periods) > 1:
                # The players' fields from the states carried (``latest``), not read back from
                # every row written; written while the summaries are drawn up.
                for name, results in found.items():
                    _carry(results, newcomers[name], states[name], latest[name])
                update = [_players_from_memory(table, states, latest)]
                with bulk.in_background(update, settings=storage.HASHED):
                    moves = {name: _moves(table, name, latest[name]) for name in rating_lists}
            elif last:  # the players' fields are written while the summaries are drawn up
                # Players who keep to one list each: a statement per list, each as for one list
                # (no full joins of the lists' rows, no fields of the other lists rewritten).
                if len(found) > 1 and _apart(found):
                    update = [storage.players_from_rows(periods, [name]) for name in found]
                else:
                    update = [storage.players_from_rows(periods, rating_lists)]
                with bulk.in_background(update, settings=storage.HASHED):
                    for name, results in found.items():
                        _carry(results, newcomers[name], None, latest[name])
                    moves = {name: _moves(table, name, latest[name]) for name in rating_lists}
            else:
                for name, results in found.items():
                    _carry(results, newcomers[name], states[name], latest[name])
            del found, newcomers  # a federation's period: free it before the next one
    for name in rating_lists:
        rated = set(table.ids[latest[name].written].tolist())
        moves[name] += _write_stale(periods[0].start, stale[name] - rated, name)
        summaries[name].moves, summaries[name].players_changed = moves[name], len(moves[name])
    AppliedAdjustment.objects.filter(
        period__start__gte=periods[0].start, rating_list__in=rating_lists
    ).delete()
    AppliedAdjustment.objects.bulk_create(made)
    return summaries


class _Stream:
    """One COPY of RatingChange rows kept open from period to period (``writer``), ended
    (``end``) before anything else uses the connection: the server stores the rows while the
    replay rates the next period. On leaving, an error passes to the COPY (which aborts).

    A query sent while the COPY is open would wait for it forever (psycopg holds the
    connection for the COPY): until the end, any query raises ``StorageError`` instead."""

    def __init__(self) -> None:
        self._copy: AbstractContextManager[bulk.RowWriter] | None = None
        self._writer: bulk.RowWriter | None = None

    def writer(self) -> bulk.RowWriter:
        """The COPY open, opened now if it is not (a period closed by an adjustment writes
        its rows in a statement of its own, and opens none)."""
        if self._writer is None:
            self._copy = bulk.writing(RatingChange, ROW_COLUMNS)
            self._writer = self._copy.__enter__()
            if connection.vendor == "postgresql":  # elsewhere the rows go in at once
                connection.execute_wrappers.append(_streaming)
        return self._writer

    def end(self, *error: Any) -> None:
        """Store the rows sent so far (waiting for the server); with ``error``, abort them."""
        copy, self._copy, self._writer = self._copy, None, None
        if copy is not None:
            if _streaming in connection.execute_wrappers:
                connection.execute_wrappers.remove(_streaming)
            copy.__exit__(*(error or (None, None, None)))

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *error: Any) -> None:
        self.end(*error)


def _streaming(*_: Any) -> None:
    raise StorageError("The replay read the database while its rows were streaming in.")


def _games_ahead(
    periods: Sequence[RatingPeriod], rating_lists: Sequence[str], narrow: bool, untouched: bool
) -> AbstractContextManager[GamesAhead | None]:
    """Reading the periods' games ahead (``ahead``), when the transaction has written nothing
    yet (``untouched``: else its own writes could be games another connection cannot see);
    else nothing."""
    if not untouched:
        return nullcontext()
    # The first period's games, which the replay waits for, in two halves read at once: one
    # here, the other by the replay on its own connection. The later ones are read whole
    # while the replay rates and stores the one before.
    first = periods[0]
    middle = storage.games_middle(first)  # None: no games to cut
    half = None if middle is None else Half(low=True, page=middle)
    queries: list[Query] = [
        storage.games_query(p, rating_lists, narrow=narrow, half=half if p is first else None)
        for p in periods
    ]
    return GamesAhead(queries, half_left=None if half is None else (first.pk, half.other()))


def _players_from_memory(
    table: EntryTable, states: Mapping[str, EntryStates], latest: Mapping[str, LatestRows]
) -> tuple[str, list[Any]]:
    """The players' UPDATE closing a replay of several periods: every player with a row on a
    list from its first period on gets their fields on it from the states closing the last
    (``LatestRows``; the values go into a scratch table now)."""
    written = np.zeros(len(table.ids), bool)
    for rows in latest.values():
        written |= rows.written
    at = np.flatnonzero(written)
    lists = {name: rows.fields(states[name], at) for name, rows in latest.items()}
    return storage.players_from_columns(table.ids[at], lists)


def _seeds(
    current: RatingPeriod,
    games: Mapping[str, engine.GameColumns],
    states: Mapping[str, Mapping[int, engine.PlayerState]],
    fixes: Mapping[str, dict[int, int]],
) -> dict[str, engine.StandardRatings]:
    """Where R&B 7.2.1 may seed a rapid or blitz player from the standard list, what the engine
    reads of that list, by list: read now, before the rows are streamed in. The standard states
    opening the period are carried in memory when the replay rates the standard list too;
    else the players unrated on the list opening the period are found and theirs read."""
    found: dict[str, engine.StandardRatings] = {}
    carried = RatingList.STANDARD in states
    for name, played in games.items():
        if name not in eras.RAPID_BLITZ_LISTS:
            continue
        unrated: list[int] = []
        if not carried:
            ids = np.unique(np.concatenate([played.white, played.black]))
            opening = engine.state_columns(corrected(states[name], fixes[name]), ids)
            unrated = ids[opening.rating < 0].tolist()
        known = standard_before(current.start, played, unrated)
        memory = None
        if carried:
            memory = corrected(states[RatingList.STANDARD], fixes[RatingList.STANDARD])
        found[name] = standard_ratings(current.start, opening=memory, known=known)
    return found


class Raised(NamedTuple):
    """The players a period's one-off adjustments move on a list (``_adjust``), in id order:
    their rating before and after, the day FIDE dates the move, and their states after it."""

    ids: np.ndarray
    before: np.ndarray
    after: np.ndarray
    on: list[date]
    states: engine.StateColumns

    @classmethod
    def none(cls) -> Raised:
        """No player raised (a list the period's adjustments leave alone)."""
        empty = np.zeros(0, np.int64)
        return cls(empty, empty, empty, [], engine.StateColumns.of([]))

    def find(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of ``ids`` are raised: their positions in ``ids``, and in these columns."""
        if not len(self.ids) or not len(ids):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        hit = np.flatnonzero(self.ids[at] == ids)
        return hit, at[hit]


def _adjust(
    name: str,
    adjustments: tuple[eras.RatingAdjustment, ...],
    states: Mapping[str, EntryStates],
    table: EntryTable,
) -> Raised:
    """Work out one-off adjustments to a list closing a period (its states carried, and put
    back raised): the players the adjustments move (``_write_adjusted`` writes them).

    What ``engine.adjusted`` does a player at a time, over the columns: the rise of March
    2024 moves most of a federation's players (850,000 rows at the history benchmark's size,
    where a state and a result built for each took 10 s of the replay). The adjusted rating is
    a function of (rating, standard rating), worked out once for each pair met."""
    ids = table.ids
    closing = states[name]
    found = engine.state_columns(closing, ids)
    ratings = found.rating
    standard = np.full(len(ids), -1, np.int64)
    if any(a.uses_standard for a in adjustments):
        if RatingList.STANDARD in states:
            standard = engine.state_columns(states[RatingList.STANDARD], ids).rating
        else:
            on = min(a.on for a in adjustments)
            read = ratings_in_force(on, ids[ratings >= 0].tolist(), RatingList.STANDARD,
                                    corrections=False)  # fmt: skip
            standard = np.fromiter(
                (-1 if read.get(pid) is None else read[pid] for pid in ids.tolist()),
                np.int64,
                len(ids),
            )
    rated = np.flatnonzero(ratings >= 0)
    # Each (rating, standard rating) pair as one integer (both are small; none is -1).
    pairs, inverse = np.unique((ratings[rated] << 32) | (standard[rated] + 1), return_inverse=True)
    new_of = np.empty(len(pairs), np.int64)
    on_of: list[date | None] = [None] * len(pairs)
    for j, pair in enumerate(pairs.tolist()):
        rating, plus_one = pair >> 32, pair & 0xFFFFFFFF
        then = None if plus_one == 0 else plus_one - 1
        new_of[j] = moved = eras.adjusted_rating(adjustments, rating, then)
        if moved != rating:  # dated by the first adjustment that moves it, as engine.adjusted
            on_of[j] = next(
                a.on for a in adjustments if a.new_rating(rating, standard=then) != rating
            )
    new = new_of[inverse]
    moves = np.flatnonzero(new != ratings[rated])
    at, after = rated[moves], new[moves]
    dated = [on_of[j] for j in inverse[moves].tolist()]
    raised = Raised(
        ids[at],
        ratings[at],
        after,
        dated,
        engine.StateColumns(
            after,
            found.rated_games[at],
            np.maximum(after, found.peak[at]),  # none: -1
            found.birth_year[at],
            found.last[at],
            [found.first_event[k] for k in at.tolist()],
        ),  # fmt: skip
    )
    closing.put_columns(raised.ids, raised.states)
    return raised


# The columns an adjustment changes in the row of a player who played in the period.
_ADJUSTED = ("rating_after", "peak_after", "adjustment", "adjusted_on")
_ADJUSTED_AT = [ROW_COLUMNS.index(column) for column in _ADJUSTED]


def _raised_values(raised: Raised, j: int) -> tuple[Any, ...]:
    """``_ADJUSTED``'s values of the player at ``j`` of ``raised``."""
    before, after = int(raised.before[j]), int(raised.after[j])
    return after, int(raised.states.peak[j]), after - before, raised.on[j]


def _write_adjusted(
    current: RatingPeriod,
    name: str,
    results: engine.PeriodColumns | None,
    newcomers: dict[int, engine.PlayerPeriod],
    raised: Raised | None,
    writer: bulk.RowWriter,
) -> int:
    """Write a list's rows of a period closed by an adjustment: the rows of the players who
    played, those ``raised`` as the adjustment leaves them; then a row of its own for each
    player raised who did not play. Returns the rows written."""
    raised = Raised.none() if raised is None else raised
    count = 0
    played = np.zeros(0, np.int64)
    if results is not None:
        values = columns.rated_columns(current.pk, results.rated, name)
        ids = np.asarray(results.rated.ids, np.int64)
        rows_at, raised_at = raised.find(ids)
        if len(rows_at):
            for column in _ADJUSTED:
                value = values[column]
                if isinstance(value, bulk.Same):
                    value = [value.value] * len(ids)
                elif isinstance(value, np.ndarray):
                    value = value.tolist()
                values[column] = list(value)
            for k, j in zip(rows_at.tolist(), raised_at.tolist(), strict=True):
                for column, new in zip(_ADJUSTED, _raised_values(raised, j), strict=True):
                    values[column][k] = new  # type: ignore[index]
        count += writer.columns([values[c] for c in ROW_COLUMNS], len(ids))
        played = np.asarray(results.ids, np.int64)
        moved: dict[int, int] = {}
        if newcomers:
            found = raised.find(np.fromiter(newcomers, np.int64, len(newcomers)))
            moved = dict(zip(*(side.tolist() for side in found), strict=True))
        rows: list[Row] = []
        for k, (pid, result) in enumerate(newcomers.items()):
            row = change_row(pid, current, result, name)
            if k in moved:
                fixed = list(row)
                for i, new in zip(_ADJUSTED_AT, _raised_values(raised, moved[k]), strict=True):
                    fixed[i] = new
                row = tuple(fixed)
            rows.append(row)
        count += writer.rows(rows)
    alone = np.flatnonzero(~np.isin(raised.ids, played))
    if not len(alone):
        return count
    return count + writer.columns(_alone_columns(current, name, raised, alone), len(alone))


def _alone_columns(
    current: RatingPeriod, name: str, raised: Raised, alone: np.ndarray
) -> list[bulk.Column]:
    """The rows (``ROW_COLUMNS``) of the players at ``alone`` of ``raised``, who did not play
    in the period: "adjusted" rows of their own, as ``rows.change_row`` writes
    ``engine.adjusted``'s result for a player without a game."""
    states = raised.states
    days = {day: date.fromordinal(day) for day in set(states.last[alone].tolist()) if day >= 0}
    values: dict[str, bulk.Column] = {
        "player": raised.ids[alone],
        "period": bulk.Same(current.pk),
        "rating_list": bulk.Same(name),
        "status": bulk.Same(engine.STATUS_ADJUSTED),
        "rating_before": raised.before[alone],
        "k": bulk.Same(None),
        "k_reason": bulk.Same(""),
        "k_applied": bulk.Same(None),
        "games": bulk.Same(0),
        "score_units": bulk.Same(0),
        "expected_units": bulk.Same(0),
        "change_exact_units": bulk.Same(0),
        "change": bulk.Same(0),
        "rating_after": raised.after[alone],
        "performance": bulk.Same(None),
        "rated_games_after": states.rated_games[alone],
        "peak_after": states.peak[alone],
        "last_rated_on": [days.get(day) for day in states.last[alone].tolist()],
        "first_event": [states.first_event[k] or "" for k in alone.tolist()],
        "pool": bulk.Same("[]"),
        "adjustment": raised.after[alone] - raised.before[alone],
        "adjusted_on": [raised.on[k] for k in alone.tolist()],
        "opponents_total": bulk.Same(None),
    }
    return [values[c] for c in ROW_COLUMNS]


def _newcomers(found: dict[str, engine.PeriodColumns]) -> dict[str, dict[int, engine.PlayerPeriod]]:
    """Each list's unrated players' results by id (computed here, when first read)."""
    return {
        name: {results.ids[k]: result for k, result in results.unrated.items()}
        for name, results in found.items()
    }


def _apart(found: dict[str, engine.PeriodColumns]) -> bool:
    """Whether no player played on two of the lists (each has one row in the period)."""
    ids = [results.ids for results in found.values()]
    return sum(map(len, ids)) == len(set().union(*ids))


def _carry(
    results: engine.PeriodColumns,
    newcomers: dict[int, engine.PlayerPeriod],
    states: EntryStates | None,
    latest: LatestRows,
) -> None:
    """Note a list's period: the rows written (``latest``) and (``states`` given: before a
    later period, or closing a replay of several) the states the players close it with,
    which open the next."""
    latest.put_rated(results.rated)
    latest.put_results(newcomers)
    if states is not None:
        states.put_rated(results.rated)
        states.put_states({pid: result.state for pid, result in newcomers.items()})


def _moves(table: EntryTable, name: str, latest: LatestRows) -> list[RatingMove]:
    """The players given a row on the list whose rating after the recompute (their latest
    row's) differs from the one stored, by id."""
    at = np.flatnonzero(latest.written)
    ids, after = table.ids[at], latest.after[at]
    stored = table.stored(name)[at]
    moved = after != stored
    return [
        RatingMove(pid, None if old < 0 else old, None if new < 0 else new)
        for pid, old, new in zip(
            ids[moved].tolist(), stored[moved].tolist(), after[moved].tolist(), strict=True
        )
    ]


def _lists_rated_before(start: date, rating_lists: Sequence[str]) -> list[str]:
    """The lists with rows in a period before ``start``: an index probe each (the periods'
    ids first: joined to the periods, the probe became a scan of every row, 28 ms a list on
    the benchmark), and nothing at all before the first period."""
    earlier = list(RatingPeriod.objects.filter(start__lt=start).values_list("pk", flat=True))
    if not earlier:
        return []
    rows = RatingChange.objects.filter(period_id__in=earlier)
    return [name for name in rating_lists if rows.filter(rating_list=name).exists()]


def _rate(
    period: RatingPeriod,
    states: Mapping[int, engine.PlayerState],
    games: engine.GameColumns | None,
    options: engine.Rules,
    earlier: engine.Earlier | None,
    standard: engine.StandardRatings | None = None,
) -> engine.PeriodColumns | None:
    """Rate one period of a list from the states on its opening list; None without games."""
    if games is None:
        return None
    span = engine.Period(period.start, period.end, period.label)
    return engine.rate_period_columns(span, states, games, options, earlier, standard)


def _write_stale(start: date, players: set[int], rating_list: str) -> list[RatingMove]:
    """Write the fields on a list of players left with no row from ``start`` on (their games
    were deleted or moved): as on the list before it. Returns whose ratings changed."""
    if not players:
        return []
    before: dict[int, Row] = {}
    for chunk in chunks(players):
        before.update(load_players(rating_list, Q(pk__in=chunk))[1])
    return write_players(states_before(start, players, rating_list), before, rating_list)
