"""The full replay: every period from a start on, every player, the lists side by side."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import date
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Q

from ladder.records import Player, RatingList, RatingPeriod
from ratings.models import AppliedAdjustment, RatingChange
from ratings.recompute import bulk, columns, storage
from ratings.recompute.ahead import GamesAhead
from ratings.recompute.latest import LatestRows
from ratings.recompute.rows import ROW_COLUMNS, Row, change_row, write_players
from ratings.recompute.states import (
    EntryStates,
    EntryTable,
    base_corrections,
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
    stale: dict[str, set[int]] = {name: set() for name in rating_lists}
    moves: dict[str, list[RatingMove]] = {}
    made: list[AppliedAdjustment] = []  # the one-off adjustments made, whether they raised anyone
    # Whom the replay writes a row, by list, and their latest row's change (``latest``): with
    # the states, what the players' fields become, and whose rating the recompute changed.
    latest = {name: LatestRows(table.ids) for name in rating_lists}
    # From here on a replay writes rows; the states before the first period are read above.
    with storage.player_index_aside(exclusive):
        for index, current in enumerate(periods):
            last = index + 1 == len(periods)
            for name, deleted in storage.delete_rows(current, rating_lists).items():
                stale[name] |= deleted
            # The entry data are made ready for the rating while the server reads the games.
            games = storage.games_by_list(
                current, rating_lists, narrow=narrow, meanwhile=table.prepare, ahead=ahead
            )
            # Each list is rated and its rated players' rows sent as columns
            # (ratings.recompute.columns) before the next list is rated, so that the server stores
            # them meanwhile; then the newcomers' rows, fewer and each with a pool, all in one
            # statement. The newcomers are rated only then (``unrated`` is computed when first
            # read), while the server stores the rows before theirs (``bulk.RowWriter``).
            found: dict[str, engine.PeriodColumns] = {}
            # What the rating reads of the database is read before the rows are streamed in
            # (the connection then carries the COPY): base corrections, and the ratings on the
            # lists in force when tournaments started in an earlier period.
            fixes = base_corrections(current.pk, rating_lists)
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
            with bulk.writing(RatingChange, ROW_COLUMNS) as writer:
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
                            RatingChange, ROW_COLUMNS, current.pk, results.rated, name, writer
                        )
                del games
                newcomers = _newcomers(found)
                if not adjusting:
                    for name, unrated in newcomers.items():
                        rows = (change_row(pid, current, r, name) for pid, r in unrated.items())
                        summaries[name].rows += writer.rows(rows)
            if adjusting:
                # Every list carried first, since the adjustment of 1 October 2022 reads the
                # standard list.
                for name, results in found.items():
                    _carry(results, newcomers[name], states[name], latest[name])
                adjusted: dict[str, dict[int, engine.PlayerPeriod]] = {}
                for name, adjustments in due.items():
                    if adjustments:
                        made += [
                            AppliedAdjustment(period=current, rating_list=name, adjusted_on=a.on)
                            for a in adjustments
                        ]
                        adjusted[name] = _adjust(name, adjustments, states, table)
                        played = set(found[name].ids) if name in found else set()
                        alone = {p: r for p, r in adjusted[name].items() if p not in played}
                        latest[name].put_results(alone)  # rows of their own (``_write_adjusted``)
                        latest[name].put_results(
                            {p: r for p, r in adjusted[name].items() if p in played}, own=False
                        )
                with bulk.writing(RatingChange, ROW_COLUMNS) as writer:
                    for name in rating_lists:
                        raised = adjusted.get(name, {})
                        summaries[name].rows += _write_adjusted(
                            current, name, found.get(name), newcomers.get(name, {}), raised, writer
                        )
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


def _games_ahead(
    periods: Sequence[RatingPeriod], rating_lists: Sequence[str], narrow: bool, untouched: bool
) -> AbstractContextManager[GamesAhead | None]:
    """Reading the periods' games ahead (``ahead``), when the transaction has written nothing
    yet (``untouched``: else its own writes could be games another connection cannot see);
    else nothing."""
    if not untouched:
        return nullcontext()
    return GamesAhead([storage.games_query(p, rating_lists, narrow=narrow) for p in periods])


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


def _adjust(
    name: str,
    adjustments: tuple[eras.RatingAdjustment, ...],
    states: Mapping[str, EntryStates],
    table: EntryTable,
) -> dict[int, engine.PlayerPeriod]:
    """Work out one-off adjustments to a list closing a period (its states carried): the
    players the adjustment moves, by id, each with their adjusted result (``_write_adjusted``
    writes them). Once in a list's history, so a player at a time; the players it leaves
    alone are found over the columns."""
    ids = table.ids
    closing = states[name]
    ratings = engine.state_columns(closing, ids).rating
    standard: list[int | None] = [None] * len(ids)
    if any(a.uses_standard for a in adjustments):
        if RatingList.STANDARD in states:
            column = engine.state_columns(states[RatingList.STANDARD], ids).rating
            standard = columns.nullable(column, column < 0)
        else:
            on = min(a.on for a in adjustments)
            read = ratings_in_force(on, ids[ratings >= 0].tolist(), RatingList.STANDARD,
                                    corrections=False)  # fmt: skip
            standard = [read.get(pid) for pid in ids.tolist()]
    # Only the players whose rating moves get a state built: the adjusted rating is a
    # function of (rating, standard), worked out once for each pair met.
    memo: dict[tuple[int, int | None], int] = {}
    found: dict[int, engine.PlayerPeriod] = {}
    for k in np.flatnonzero(ratings >= 0).tolist():
        key = (int(ratings[k]), standard[k])
        new = memo.get(key)
        if new is None:
            new = memo[key] = eras.adjusted_rating(adjustments, *key)
        if new == key[0]:
            continue
        pid = int(ids[k])
        result = engine.adjusted(closing[pid], None, adjustments, standard[k])
        if result is not None:
            found[pid] = result
    closing.put_states({pid: result.state for pid, result in found.items()})
    return found


# The columns an adjustment changes in the row of a player who played in the period.
_ADJUSTED = ("rating_after", "peak_after", "adjustment", "adjusted_on")
_ADJUSTED_AT = [ROW_COLUMNS.index(column) for column in _ADJUSTED]


def _adjusted_values(result: engine.PlayerPeriod) -> tuple[Any, ...]:
    """``_ADJUSTED``'s values of an adjusted result."""
    return result.rating_after, result.state.peak_rating, result.adjustment, result.adjusted_on


def _write_adjusted(
    current: RatingPeriod,
    name: str,
    results: engine.PeriodColumns | None,
    newcomers: dict[int, engine.PlayerPeriod],
    raised: dict[int, engine.PlayerPeriod],
    writer: bulk.RowWriter,
) -> int:
    """Write a list's rows of a period closed by an adjustment: the rows of the players who
    played, those ``raised`` as the adjustment leaves them; then a row of its own for each
    player raised who did not play. Returns the rows written."""
    count = 0
    played: set[int] = set()
    if results is not None:
        values = columns.rated_columns(current.pk, results.rated, name)
        ids = [int(pid) for pid in results.rated.ids]
        at = [k for k, pid in enumerate(ids) if pid in raised]
        if at:
            for column in _ADJUSTED:
                value = values[column]
                if isinstance(value, bulk.Same):
                    value = [value.value] * len(ids)
                elif isinstance(value, np.ndarray):
                    value = value.tolist()
                values[column] = list(value)
            for k in at:
                for column, new in zip(_ADJUSTED, _adjusted_values(raised[ids[k]]), strict=True):
                    values[column][k] = new  # type: ignore[index]
        count += writer.columns([values[c] for c in ROW_COLUMNS], len(ids))
        played.update(int(pid) for pid in results.ids)
        rows: list[Row] = []
        for pid, result in newcomers.items():
            row = list(change_row(pid, current, result, name))
            if pid in raised:
                for i, new in zip(_ADJUSTED_AT, _adjusted_values(raised[pid]), strict=True):
                    row[i] = new
            rows.append(tuple(row))
        count += writer.rows(rows)
    alone = [change_row(pid, current, r, name) for pid, r in raised.items() if pid not in played]
    return count + writer.rows(alone)


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
