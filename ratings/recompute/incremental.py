"""The incremental recompute: rate only the players a correction reaches.

A property test (tests/ratings/test_incremental.py) holds it equal to a full replay.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from datetime import date

from django.db.models import F, Q

from ladder.records import LIST_FIELDS, Game, Player, RatingList, RatingPeriod
from ratings.models import RatingChange
from ratings.recompute import bulk, storage
from ratings.recompute.rows import (
    CHANGE,
    RATING_AFTER,
    ROW_COLUMNS,
    STATE,
    Row,
    change_row,
    comparable,
    stored_form,
    write_players,
)
from ratings.recompute.states import (
    base_corrections_of,
    corrected,
    earlier_ratings,
    final_states,
    latest_states,
    load_players,
    ratings_in_force,
    rules,
    standard_ratings,
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
    their state on this list does not show, so they count as changed in every period.
    ``later``: players given from the first period starting on or after a day only (what
    changed of them reaches this list only then: their first game on it). ``reach``: players
    whose state may differ from the stored one from the first period starting on or after a
    day (a one-off adjustment reading the standard list raises them then), each counted as
    changed there, and from then on as any changed player. A ``dry_run`` is written too: its
    caller rolls it back when done (``services``).
    """
    periods, summary = storage.begin(period, dry_run=dry_run)
    players = set(players)
    waiting = sorted(
        [*((pid, day, True) for pid, day in (later or {}).items()),
         *((pid, day, False) for pid, day in (reach or {}).items())],
        key=lambda item: item[1],
    )  # fmt: skip
    changed, reached = set(players), set(players)
    reads = _Reads(periods, rating_list)
    # Who had changed on each opening list (period start, players): a tournament that started
    # in an earlier period is rated with the list in force then (FIDE.md 10.1).
    history: list[tuple[date, frozenset[int]]] = []
    for index, current in enumerate(periods):
        while waiting and waiting[0][1] <= current.start:
            pid, _, given = waiting.pop(0)
            if given:
                players.add(pid)
            changed.add(pid)
            reached.add(pid)
        if seeded:
            changed |= players
        history.append((current.start, frozenset(changed)))
        following = periods[index + 1].end if index + 1 < len(periods) else None
        due = engine.adjustments_due(rules(rating_list), current.end, following)
        rows, rated = _rate_reached(current, players, changed, reads, summary.lines, history, due)
        summary.rows += rows
        reached |= rated
    final = final_states(reached, rating_list, ascending=reads.ascending)
    summary.moves = write_players(*final, rating_list)
    summary.players_changed = len(summary.moves)
    return summary


class _Reads:
    """What a run reads once for all its periods, where a query a period was its fixed cost
    (a correction ten years back rates 120 periods): the base corrections, the games of
    tournaments that started before their period, and the entry data of each player met."""

    def __init__(self, periods: list[RatingPeriod], rating_list: str) -> None:
        self.rating_list = rating_list
        ids = [p.pk for p in periods]
        self.fixes = base_corrections_of(ids, rating_list)
        self.earlier: dict[int, list[tuple[int, int, date | str]]] = {}
        games = Game.objects.filter(
            period_id__in=ids,
            rating_list=rating_list,
            tournament__start__lt=F("period__start"),
        )
        for pid, white, black, start in games.values_list(
            "period_id", "white_id", "black_id", "tournament__start"
        ):
            self.earlier.setdefault(pid, []).append((white, black, start))
        self._entry: dict[int, engine.PlayerState] = {}
        self.ascending = storage.periods_ascend()
        # R&B 7.2.1 on rapid and blitz reads the standard list opening each period: the
        # players' standard entry ratings and the standard base corrections, read once.
        self.standard_fixes: dict[int, dict[int, int]] = {}
        if rating_list in eras.RAPID_BLITZ_LISTS:
            self.standard_fixes = base_corrections_of(ids, RatingList.STANDARD)
        self._standard_entry: dict[int, int | None] = {}

    def entry(self, players: set[int]) -> dict[int, engine.PlayerState]:
        """The players' entry states on the list, each read once in the run."""
        missing = players - self._entry.keys()
        if missing:
            self._entry.update(load_players(self.rating_list, Q(storage.among(missing, "id")))[0])
        return {pid: self._entry[pid] for pid in players if pid in self._entry}

    def standard_entry(self, players: list[int]) -> dict[int, int | None]:
        """The players' standard entry ratings, each read once in the run."""
        missing = set(players) - self._standard_entry.keys()
        if missing:
            field = LIST_FIELDS[RatingList.STANDARD].entry[0]
            rows = Player.objects.filter(storage.among(missing, "id")).values_list("pk", field)
            self._standard_entry.update(rows)
        return {pid: self._standard_entry.get(pid) for pid in players}

    def standard(self, current: RatingPeriod) -> engine.StandardRatings:
        """R&B 7.2.1's reading of the standard list for a period (``standard_ratings``)."""
        return standard_ratings(
            current.start, entry=self.standard_entry,
            fixes=self.standard_fixes.get(current.pk, {}),
        )  # fmt: skip


def _rate_reached(
    current: RatingPeriod,
    players: set[int],
    changed: set[int],
    reads: _Reads,
    lines: list[LineMove],
    history: list[tuple[date, frozenset[int]]],
    due: tuple[eras.RatingAdjustment, ...] = (),
) -> tuple[int, set[int]]:
    """Rate one period of a list for the players reached; return rows written and players
    rated, and add to ``lines`` each line whose rating or change moved. ``due``: the one-off
    adjustments made to the list closing it, made again for every player whose closing state
    may have moved."""
    rating_list = reads.rating_list
    seeds = players | changed
    pairs = Game.objects.filter(
        storage.among(seeds, "white_id", "black_id"), period=current, rating_list=rating_list
    )
    redo: set[int] = set()
    for white, black in bulk.fetch_rows(pairs.order_by().values_list("white_id", "black_id")):
        redo.update(p for p in (white, black) if p in seeds)
        if white in changed:
            redo.add(black)
        if black in changed:
            redo.add(white)
    redo |= _reached_earlier(reads.earlier.get(current.pk, []), history)
    rated = _rate_some(current, redo, reads)
    others = (changed | players) - redo if due else set()
    if others or due:
        redo |= _adjust(current, due, rated, others, reads)
    new = {pid: comparable(change_row(pid, current, r, rating_list)) for pid, r in rated.items()}
    old = _stored_rows(current, redo | players | others, rating_list)
    for pid, row in new.items():
        before = old.get(pid)
        if before is not None and [before[i] for i in STATE] == [row[i] for i in STATE]:
            changed.discard(pid)
        else:
            changed.add(pid)
    stale = old.keys() - new.keys()  # a deleted or moved game leaves no game here
    changed |= stale
    differ = [pid for pid, row in new.items() if row != old.get(pid)]
    removed = stale | (old.keys() & set(differ))
    if removed:
        storage.delete_quietly(
            RatingChange.objects.filter(
                storage.among(removed, "player_id"), period=current, rating_list=rating_list
            )
        )
    bulk.insert_rows(RatingChange, ROW_COLUMNS, (stored_form(new[pid]) for pid in differ))
    lines += _line_moves(current, old, new, [*differ, *stale])
    return len(differ) + len(stale), redo | stale


def _adjust(
    current: RatingPeriod,
    due: tuple[eras.RatingAdjustment, ...],
    rated: dict[int, engine.PlayerPeriod],
    others: set[int],
    reads: _Reads,
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
    current: RatingPeriod, redo: set[int], reads: _Reads
) -> dict[int, engine.PlayerPeriod]:
    """Rate ``redo`` on all their games of the period on a list, against their opponents'
    opening states."""
    if not redo:
        return {}
    rating_list = reads.rating_list
    games = Game.objects.filter(
        storage.among(redo, "white_id", "black_id"), period=current, rating_list=rating_list
    )
    rows = list(
        bulk.fetch_rows(
            games.order_by().values_list(
                "white_id", "black_id", "result", "date", "event", "tournament__start"
            )
        )
    )
    rows = [
        (w, b, result, bulk.as_date(day), event, _earlier(current, start))
        for w, b, result, day, event, start in rows
    ]
    everyone = {w for w, *_ in rows} | {b for _, b, *_ in rows}
    entry = reads.entry(everyone)
    opening = latest_states(
        before=current.start,
        players=everyone,
        entry=entry,
        rating_list=rating_list,
        ascending=reads.ascending,
    )
    states = corrected({**entry, **opening}, reads.fixes.get(current.pk, {}))
    span = engine.Period(current.start, current.end, current.label)
    columns = engine.columns_of(rows)
    results = engine.rate_period(
        span, states, columns, rules(rating_list), earlier_ratings(columns, rating_list),
        reads.standard(current) if rating_list in eras.RAPID_BLITZ_LISTS else None,
    )  # fmt: skip
    return {pid: result for pid, result in results.items() if pid in redo}


def _earlier(current: RatingPeriod, start: date | str | None) -> date | None:
    """A tournament's start when it lies before the period (an earlier list rates it)."""
    day = bulk.as_date(start) if start is not None else None
    return day if day is not None and day < current.start else None


def _stored_rows(current: RatingPeriod, players: set[int], rating_list: str) -> dict[int, Row]:
    """The stored rows of the period on a list for these players, in ``comparable`` form."""
    columns = [f"{c}_id" if c in ("player", "period") else c for c in ROW_COLUMNS]
    rows = RatingChange.objects.filter(
        storage.among(players, "player_id"), period=current, rating_list=rating_list
    )
    return {
        row[0]: comparable(row) for row in bulk.fetch_rows(rows.order_by().values_list(*columns))
    }
