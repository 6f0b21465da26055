"""The incremental recompute: rate only the players a correction reaches.

A property test (tests/ratings/test_incremental.py) holds it equal to a full replay.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from datetime import date

from ladder.records import RatingList, RatingPeriod
from ratings.models import RatingChange
from ratings.recompute import bulk, storage
from ratings.recompute.reached import RunReads
from ratings.recompute.rows import (
    CHANGE,
    RATING_AFTER,
    STATE,
    Row,
    change_row,
    comparable,
    rating_met,
    stored_sums,
    write_players,
)
from ratings.recompute.states import (
    corrected,
    earlier_ratings,
    final_states,
    latest_states,
    ratings_in_force,
    rules,
)
from ratings.recompute.summary import LineMove, Recompute
from ratings.rules import engine, eras


def recompute_players(
    period: RatingPeriod | None,
    rating_list: str,
    players: set[int],
    *,
    dry_run: bool,
    seeded: bool = False,
    later: Mapping[int, date] | None = None,
    reach: Mapping[int, date] | None = None,
) -> Recompute:
    """Rate again ``players`` and whoever their changes reach; write only the rows that differ.

    ``changed`` holds the players whose state on the next opening list may differ from the
    stored one: at first the given players (their entry data may have changed), then whoever a
    period leaves in a different state. A player is rated again in a period if given, changed,
    or an opponent of a changed player there; one whose state comes out as stored stops there.
    ``seeded``: what changed of the given players is their standard rating (R&B 7.2.1), which
    their state on this list does not show, so they count as changed in every period that
    opens with them unrated (seeded from it), or that rates a tournament started earlier.
    ``later``: players given from the first period starting on or after a day only (what
    changed of them reaches this list only then: their first game on it). ``reach``: players
    whose state may differ from the stored one from the first period starting on or after a
    day (a one-off adjustment reading the standard list raises them then), each counted as
    changed there, and from then on as any changed player. A ``dry_run`` is written too: its
    caller rolls it back when done (``services``).
    """
    periods, summary, *_ = storage.begin(period, dry_run=dry_run)
    players = set(players)
    waiting = sorted(
        [*((pid, day, True) for pid, day in (later or {}).items()),
         *((pid, day, False) for pid, day in (reach or {}).items())],
        key=lambda item: item[1],
    )  # fmt: skip
    changed, reached = set(players), set(players)
    # Of the players given in a seeded run, those the standard list may reach: unrated on the
    # opening list, as far as the run knows (all, until a period of theirs leaves them rated).
    seeding = set(players) if seeded else None
    reads = RunReads(periods, rating_list)
    # Who had changed on each opening list (period start, players): a tournament that started
    # in an earlier period is rated with the list in force then (FIDE.md 10.1).
    history: list[tuple[date, frozenset[int]]] = []
    for index, current in enumerate(periods):
        while waiting and waiting[0][1] <= current.start:
            pid, _, given = waiting.pop(0)
            if given:
                players.add(pid)
                if seeding is not None:
                    seeding.add(pid)
            changed.add(pid)
            reached.add(pid)
        active = players
        if seeding is not None:
            active = players if current.pk in reads.earlier else players & seeding
            changed |= active
        history.append((current.start, frozenset(changed)))
        following = periods[index + 1].end if index + 1 < len(periods) else None
        due = engine.adjustments_due(rules(rating_list), current.end, following)
        rows, rated = _rate_reached(
            current, active, changed, reads, summary.lines, history, due, seeding
        )
        summary.rows += rows
        reached |= rated
    reads.rows.flush()
    final = final_states(reached, rating_list, ascending=reads.ascending)
    summary.moves = write_players(*final, rating_list)
    summary.players_changed = len(summary.moves)
    return summary


def _rate_reached(
    current: RatingPeriod,
    players: set[int],
    changed: set[int],
    reads: RunReads,
    lines: list[LineMove],
    history: list[tuple[date, frozenset[int]]],
    due: tuple[eras.RatingAdjustment, ...] = (),
    seeding: set[int] | None = None,
) -> tuple[int, set[int]]:
    """Rate one period of a list for the players reached; return rows written and players
    rated, and add to ``lines`` each line whose rating or change moved. ``due``: the one-off
    adjustments made to the list closing it, made again for every player whose closing state
    may have moved. ``seeding``: the given players of a seeded run unrated on the opening
    list, as far as the run knows; updated with those rated here."""
    rating_list = reads.rating_list
    seeds = players | changed
    redo: set[int] = set()
    beside_given: set[int] = set()  # both players of each game of a player given
    for white, black in reads.seed_pairs(current, seeds):
        redo.update(p for p in (white, black) if p in seeds)
        if white in changed:
            redo.add(black)
        if black in changed:
            redo.add(white)
        if white in players or black in players:
            beside_given.update((white, black))
    earlier = _reached_earlier(reads.earlier.get(current.pk, []), history)
    redo |= earlier
    given = reads.given_rows(current, players)
    if not redo and not due and not given:  # nothing of the period moves: not read
        return 0, set()
    others = (changed | players) - redo if due else set()
    # Rated in full: the players given or changed, their opponents in the games of the players
    # given (a game given may have changed, whoever its caller named), and those an earlier
    # list reaches. The other opponents of changed players are rated again from their stored
    # sums where the rules allow (``_rate_some``).
    full = redo if due else (beside_given & redo) | (redo & seeds) | earlier
    rated, old = _rate_some(current, redo, full, reads, given | others)
    if others or due:
        reads.rows.flush()  # the adjustments read the list as stored
        redo |= _adjust(current, due, rated, others, reads)
    new = {pid: comparable(change_row(pid, current, r, rating_list)) for pid, r in rated.items()}
    if seeding is not None:
        for pid, result in rated.items():
            if result.state.rating is None:
                seeding.add(pid)
            else:
                seeding.discard(pid)
    for pid, row in new.items():
        before = old.get(pid)
        if before is not None and [before[i] for i in STATE] == [row[i] for i in STATE]:
            changed.discard(pid)
        else:
            changed.add(pid)
    stale = old.keys() - new.keys()  # a deleted or moved game leaves no game here
    changed |= stale
    differ = [pid for pid, row in new.items() if row != old.get(pid)]
    if stale:
        storage.delete_quietly(
            RatingChange.objects.filter(
                storage.among(stale, "player_id"), period=current, rating_list=rating_list
            )
        )
    reads.rows.replace(current, [new[pid] for pid in differ], old.keys() & set(differ))
    lines += _line_moves(current, old, new, [*differ, *stale])
    return len(differ) + len(stale), redo | stale


def _adjust(
    current: RatingPeriod,
    due: tuple[eras.RatingAdjustment, ...],
    rated: dict[int, engine.PlayerPeriod],
    others: set[int],
    reads: RunReads,
) -> set[int]:
    """Make the adjustments ``due`` to ``rated`` (the period's results) and to ``others`` (who
    did not play in it, at their opening state), in place; return the ``others`` adjusted."""
    rating_list = reads.rating_list
    entry = reads.entry(others)
    opening = {
        **entry,
        **latest_states(
            before=current.start,
            players=others,
            entry=entry,
            rating_list=rating_list,
            ascending=reads.ascending,
        ),
    }
    standard: dict[int, int | None] = {}
    if any(a.uses_standard for a in due):
        on = min(a.on for a in due)
        standard = ratings_in_force(on, rated.keys() | others, RatingList.STANDARD,
                                    corrections=False)  # fmt: skip
    for pid, result in rated.items():
        rated[pid] = engine.adjusted(result.state, result, due, standard.get(pid)) or result
    found = set()
    for pid in others:
        alone = engine.adjusted(opening[pid], None, due, standard.get(pid))
        if alone is not None:
            rated[pid] = alone
            found.add(pid)
    return found


def _reached_earlier(
    games: list[tuple[int, int, date | str]], history: list[tuple[date, frozenset[int]]]
) -> set[int]:
    """Both players of each game of a tournament that started before the period (``games``:
    White, Black and the start), when either had changed on the list in force at its start
    (before the first period rated again, only the players given can have: their entry
    data)."""
    redo: set[int] = set()
    for white, black, start in games:
        day = bulk.as_date(start)
        at = max(0, bisect.bisect_right(history, day, key=lambda entry: entry[0]) - 1)
        then = history[at][1]
        if white in then or black in then:
            redo.update((white, black))
    return redo


def _line_moves(
    current: RatingPeriod, old: dict[int, Row], new: dict[int, Row], players: Iterable[int]
) -> list[LineMove]:
    """The lines of ``players`` whose rating after the period or change differ."""
    moves = []
    for pid in sorted(players):
        before, after = old.get(pid), new.get(pid)
        was = (before[RATING_AFTER], before[CHANGE]) if before is not None else (None, None)
        now = (after[RATING_AFTER], after[CHANGE]) if after is not None else (None, None)
        if was != now:
            moves.append(LineMove(current.label, pid, was[0], now[0], was[1], now[1]))
    return moves


def _rate_some(
    current: RatingPeriod, redo: set[int], full: set[int], reads: RunReads, also: set[int]
) -> tuple[dict[int, engine.PlayerPeriod], dict[int, Row]]:
    """Rate ``redo`` on the period on a list; return their results, and the rows stored in the
    period of ``redo`` and ``also``.

    The players of ``full`` are rated on all their games against their opponents' opening
    states. The others of ``redo`` are opponents of theirs whose own state has not moved: each
    is rated again from their stored row, the games against ``full`` taking the difference
    (``engine.rate_again``), so that their other opponents are not read; those whose row or
    games do not allow it are rated in full too, their other games read after.
    """
    rating_list = reads.rating_list
    span = engine.Period(current.start, current.end, current.label)
    games, opening, old = reads.period(current, full, redo | also)
    rows = _game_rows(current, games)
    fixes = reads.fixes.get(current.pk, {})
    states = corrected(opening, fixes)
    again, rest = _rated_again(span, rows, redo - full, states, old, rating_list)
    if rest:
        more, more_opening, _ = reads.period(current, rest, set())
        # A game with a player of ``full`` is read already.
        rows += _game_rows(current, [g for g in more if g[0] not in full and g[1] not in full])
        states = corrected({**more_opening, **opening}, fixes)
    rated = full | rest
    if not rows or not rated:
        return again, old
    columns = engine.columns_of(rows)
    if columns.start is not None:
        reads.rows.flush()  # the lists in force at earlier starts are read as stored
    results = engine.rate_period(
        span, states, columns, rules(rating_list), earlier_ratings(columns, rating_list),
        reads.standard(current) if rating_list in eras.RAPID_BLITZ_LISTS else None, rated,
    )  # fmt: skip
    results.update(again)
    return results, old


def _rated_again(
    span: engine.Period,
    games: list[Row],
    players: set[int],
    states: Mapping[int, engine.PlayerState],
    old: dict[int, Row],
    rating_list: str,
) -> tuple[dict[int, engine.PlayerPeriod], set[int]]:
    """Rate ``players`` again from their stored rows (``engine.rate_again``), ``games`` holding
    every game of theirs against a player rated in full; return the results, and the players
    it cannot rate (no stored sums to start from, a game of a tournament started earlier or
    against an opponent without a row in the period, or one ``rate_again`` declines)."""
    if not players:
        return {}, set()
    rest: set[int] = set()
    moved: dict[int, list[tuple[int | None, int | None]]] = {pid: [] for pid in players}
    for white, black, result, _day, _event, start in games:
        for own, other in ((white, black), (black, white)):
            if own not in moved or own in rest:
                continue
            if engine.WHITE_SCORE.get(result) is None:
                continue  # not played: counts for nobody
            row = old.get(other)
            if start is not None or row is None:
                rest.add(own)
                continue
            moved[own].append((rating_met(row), states[other].rating))
    again = {}
    check = rules(rating_list)
    for pid in players - rest:
        sums = stored_sums(old.get(pid), states[pid].rating)
        found = (
            engine.rate_again(span, check, states[pid], sums, moved[pid])
            if sums is not None
            else None
        )
        if found is None:
            rest.add(pid)
        else:
            again[pid] = found
    return again, rest


def _game_rows(current: RatingPeriod, games: Iterable[Row]) -> list[Row]:
    """A period's games as the read gives them, in the engine's form (``rate_period``)."""
    return [
        (w, b, result, bulk.as_date(day), event, _earlier(current, start))
        for w, b, result, day, event, start in games
    ]


def _earlier(current: RatingPeriod, start: date | str | None) -> date | None:
    """A tournament's start when it lies before the period (an earlier list rates it)."""
    day = bulk.as_date(start) if start is not None else None
    return day if day is not None and day < current.start else None
