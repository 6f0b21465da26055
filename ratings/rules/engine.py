"""Rate one period: every player's state on the opening list plus the period's games in, the
period's changes and the closing list out.

Pure like ``ratings.rules.fide`` (no Django): the services load and store, this module decides. The
result does not depend on the order of the games inside the period.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ratings.rules import eras, fide
from ratings.rules.fide import UNIT

RESULT_WHITE_WIN = "1-0"
RESULT_BLACK_WIN = "0-1"
RESULT_DRAW = "1/2-1/2"
RESULT_WHITE_FORFEIT_WIN = "+/-"
RESULT_BLACK_FORFEIT_WIN = "-/+"
RESULT_DOUBLE_FORFEIT = "0-0"
# Every result a game may have, as stored (``ladder.records.Result`` reads these codes).
RESULTS = (RESULT_WHITE_WIN, RESULT_BLACK_WIN, RESULT_DRAW, RESULT_WHITE_FORFEIT_WIN,
           RESULT_BLACK_FORFEIT_WIN, RESULT_DOUBLE_FORFEIT)  # fmt: skip

# White's score in UNIT for the results that are rated; unplayed games are absent (FIDE.md 5).
WHITE_SCORE = {RESULT_WHITE_WIN: UNIT, RESULT_BLACK_WIN: 0, RESULT_DRAW: UNIT // 2}

STATUS_RATED = "rated"
STATUS_FIRST_RATING = "first_rating"
STATUS_UNRATED = "unrated"
STATUS_BELOW_FLOOR = "below_floor"
STATUS_ADJUSTED = "adjusted"  # no game in the period: a one-off adjustment of its closing list


class PoolGame(NamedTuple):
    """A game of an unrated player against a rated opponent, kept toward a first rating.

    A named tuple rather than a frozen dataclass: a federation's period builds hundreds of
    thousands, and a tuple is built several times faster.
    """

    on: date
    event: str
    opponent_rating: int
    score: int  # UNIT


# PlayerState and PlayerPeriod are built once per player per period (100,000 times for a
# federation); not frozen, since a frozen dataclass's __init__ costs four times as much
# (measured: 0.45 s against 0.10 s per 100,000). Treat them as values all the same.
@dataclass(slots=True)
class PlayerState:
    """What the list says of a player: enough to rate their next period."""

    rating: int | None
    rated_games: int = 0
    peak_rating: int | None = None
    birth_year: int | None = None
    last_rated_on: date | None = None
    pool: tuple[PoolGame, ...] = ()
    first_event: str | None = None


class StateColumns(NamedTuple):
    """Players' states as columns, one entry per player (-1 for none): what a full recompute
    reads of 100,000 players without building a ``PlayerState`` for each."""

    rating: np.ndarray
    rated_games: np.ndarray
    peak: np.ndarray
    birth_year: np.ndarray
    last: np.ndarray  # ordinal of the last rated game's date
    first_event: list[str | None]

    @classmethod
    def of(cls, states: Sequence[PlayerState]) -> StateColumns:
        """The columns of these states, in their order."""
        count = len(states)

        def column(values: Iterable[int | None]) -> np.ndarray:
            return np.fromiter((-1 if v is None else v for v in values), np.int64, count)

        return cls(
            column(s.rating for s in states),
            column(s.rated_games for s in states),
            column(s.peak_rating for s in states),
            column(s.birth_year for s in states),
            column(s.last_rated_on.toordinal() if s.last_rated_on else None for s in states),
            [s.first_event for s in states],
        )

    def take(self, at: np.ndarray) -> StateColumns:
        """The players at positions ``at``."""
        events = self.first_event
        return StateColumns(
            self.rating[at], self.rated_games[at], self.peak[at], self.birth_year[at],
            self.last[at], [events[k] for k in at.tolist()],
        )  # fmt: skip

    def state(self, k: int) -> PlayerState:
        """The state of the player at position ``k`` (a rated one: no pool)."""
        peak, born, last = int(self.peak[k]), int(self.birth_year[k]), int(self.last[k])
        return PlayerState(
            int(self.rating[k]), int(self.rated_games[k]), None if peak < 0 else peak,
            None if born < 0 else born, None if last < 0 else date.fromordinal(last), (),
            self.first_event[k],
        )  # fmt: skip


def state_columns(states: Mapping[int, PlayerState], ids: np.ndarray) -> StateColumns:
    """The states of the players ``ids`` (sorted) as columns.

    A mapping that can give them as columns itself (a ``state_columns(ids)`` method, as the
    full recompute's entry states have) is asked to; any other gives its ``PlayerState``s.
    """
    own = getattr(states, "state_columns", None)
    if own is not None:
        return own(ids)  # type: ignore[no-any-return]
    return StateColumns.of([states[pid] for pid in ids.tolist()])


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date
    label: str = ""


@dataclass(frozen=True, slots=True)
class Rules:
    """The club's options: FIDE's table or classic Elo, an optional club K (1-100), the list
    rated, and the rule set: FIDE's in force on each day (``fixed`` None, ``LADDER_RULES=
    by-date``) or one day's for everything."""

    method: str = fide.METHOD_FIDE
    club_k: int | None = None
    rating_list: str = fide.LIST_STANDARD
    fixed: date | None = None
    cap: int | None = None  # a changed parameter, for a simulation (``simulate_rules``)
    floor: int | None = None

    def era(self, on: date) -> eras.RuleSet:
        """The rule set for a tournament starting (or a period opening) on ``on``."""
        return _rule_set(on, self.rating_list, self.fixed, self.cap, self.floor)


@functools.lru_cache(maxsize=1024)
def _rule_set(
    on: date, rating_list: str, fixed: date | None, cap: int | None, floor: int | None
) -> eras.RuleSet:
    return eras.with_parameters(eras.rules_for(on, rating_list, fixed), cap=cap, floor=floor)


@dataclass(slots=True)
class PlayerPeriod:
    """One player's period: the whole calculation and the state it leaves on the list."""

    rating_before: int | None
    status: str
    state: PlayerState
    games: int = 0  # rated games n (for an unrated player: games toward the pool)
    score: int = 0  # UNIT
    expected: int = 0  # UNIT, sum of PD
    k: fide.KFactor | None = None
    k_applied: int | None = None
    change_exact: int = 0  # UNIT, K x sum of dR
    change: int = 0
    rating_after: int | None = None
    performance: int | None = None
    opponents_total: int | None = None  # the ratings the counted games met, summed
    pool: tuple[PoolGame, ...] = ()  # an unrated player's pool, or the pool a first rating used
    first_rating: fide.FirstRating | None = None
    adjustment: int = 0  # a one-off adjustment of the closing list (FIDE.md 10.2), in points
    adjusted_on: date | None = None  # the day FIDE dates it


def adjustments_due(
    rules: Rules, end: date, next_end: date | None
) -> tuple[eras.RatingAdjustment, ...]:
    """The one-off adjustments made to the list closing a period ending on ``end`` (FIDE.md
    10.2; ``eras.adjustments_due``), under ``LADDER_RULES=by-date`` only: a club that rates its
    whole history under one rule set rates it without the day FIDE changed the ratings."""
    if rules.fixed is not None:
        return ()
    return eras.adjustments_due(end, next_end, rules.rating_list)


def adjusted(
    state: PlayerState,
    result: PlayerPeriod | None,
    due: tuple[eras.RatingAdjustment, ...],
    standard: int | None = None,
) -> PlayerPeriod | None:
    """A player's period with the adjustments ``due`` made to its closing rating: ``result``
    (their period's games; None: no game, ``state`` their state on the list) with the rating
    after it raised, or for a player with no game an "adjusted" period of its own when the
    rating moves (None when it does not). ``standard``: their rating on the standard list
    closing the period (the adjustment of 1 October 2022 reads it)."""
    closing = result.state if result is not None else state
    if closing.rating is None or not due:
        return result
    new = eras.adjusted_rating(due, closing.rating, standard)
    if new == closing.rating:
        return result
    peak = max(new, closing.peak_rating or new)
    moved = replace(closing, rating=new, peak_rating=peak, pool=())
    before = closing.rating
    on = next(a.on for a in due if a.new_rating(before, standard=standard) != before)
    if result is None:
        return PlayerPeriod(
            before, STATUS_ADJUSTED, moved, rating_after=new, adjustment=new - before,
            adjusted_on=on,
        )  # fmt: skip
    return replace(result, state=moved, rating_after=new, adjustment=new - before, adjusted_on=on)


_OFFSET = 6000  # D beyond +-6000 cannot occur (entry ratings lie in 0..3500)


def event_key(event: str, period_label: str) -> str:
    """Name the event a game belongs to (Decision, FIDE.md 6: no name = one event per period)."""
    return f"event:{event}" if event else f"period:{period_label}"


class GameColumns(NamedTuple):
    """A period's games as columns, for a federation's million games.

    ``score`` is White's score in UNIT, or -1 for an unplayed game; ``day`` the date's ordinal;
    ``events`` returns the event names of the games at the given positions (only the games of
    unrated players against rated ones need them, so a loader may fetch them late).
    """

    white: np.ndarray
    black: np.ndarray
    score: np.ndarray
    day: np.ndarray
    events: Callable[[np.ndarray], list[str]]
    # The ordinal of the day the game's tournament started when that was before the period
    # (an earlier list rates it, FIDE.md 10.1), else -1; None: every game's started within it.
    start: np.ndarray | None = None


# The ratings on the lists in force on the days tournaments started before the period (FIDE.md
# 10.1), by the day's ordinal: each player's rating then, None (or absent) when unrated.
Earlier = Mapping[int, Mapping[int, int | None]]

# The day of the list that opens the period, for ``StandardRatings``.
OPENING = -1
# R&B 7.2.1: given a day (``OPENING``, or the ordinal of an earlier tournament's start) and the
# players unrated on a rapid or blitz list then, their ratings on the standard list in force
# then (None, or absent, when unrated there too). Asked only when such players play.
StandardRatings = Callable[[int, list[int]], Mapping[int, int | None]]


def rate_period(
    period: Period,
    states: Mapping[int, PlayerState],
    games: Iterable[tuple[Any, ...]] | GameColumns,
    rules: Rules = Rules(),  # noqa: B008 - frozen, so a shared default is safe
    earlier: Earlier | None = None,
    standard: StandardRatings | None = None,
    only: AbstractSet[int] | None = None,
) -> dict[int, PlayerPeriod]:
    """Rate a period; return a result for every player who has a game in it (of ``only``, when
    given: an incremental recompute rates a few players among everyone they met).

    ``games`` are (white id, black id, result, date, event name[, the tournament's start when
    before the period]), or the same as ``GameColumns``; ``states`` must hold every player of
    those games as on the list that opens the period, and ``earlier`` their ratings on the
    list in force when each earlier tournament started. Ratings used are those of the list in
    force at the tournament's start (8.3.2, FIDE.md 10.1: for a tournament inside the period,
    the opening list); a game between a rated and an unrated player counts only toward the
    unrated player's first rating; games between unrated players and unplayed games count for
    nobody. On a rapid or blitz list whose rule set has R&B 7.2.1, a player unrated there but
    rated on the standard list (``standard``) is rated with that rating, as a rated player.
    """
    found = rate_period_columns(period, states, games, rules, earlier, standard, only)
    if found is None:
        return {}
    ids = found.ids
    results = dict(zip(found.at.tolist(), rated_results(found.rated), strict=True))
    results.update(found.unrated.items())
    return {ids[k]: results[k] for k in sorted(results)}


class RatedColumns(NamedTuple):
    """The rated players' results of a period as columns, one entry per player in ``ids`` order.

    What ``PlayerPeriod`` holds for each, without building 100,000 objects: a full recompute
    writes these columns to the database in bulk, and builds states only for a later period.
    """

    ids: list[int]
    opening: StateColumns  # each player's state on the opening list
    k: np.ndarray  # K published for the period
    k_reason: list[str]
    games: np.ndarray
    score: np.ndarray  # UNIT
    expected: np.ndarray  # UNIT
    applied: np.ndarray  # K applied (700 rule)
    exact: np.ndarray  # UNIT
    change: np.ndarray
    after: np.ndarray  # rating after the period, before the floor rule
    peak: np.ndarray  # max(opening peak, after), -1 for none
    last: np.ndarray  # ordinal of the last rated game's date, -1 = none
    performance: list[int | None]
    opponents: np.ndarray  # the ratings each player's rated games met, summed
    floor: int = fide.FLOOR  # the rule set's (7.2.1)

    def below_floor(self) -> np.ndarray:
        """7.2.1: the players shown unrated on the next list."""
        return self.after < self.floor


class PeriodColumns(NamedTuple):
    """A period's results: the rated players as columns, the unrated ones as objects."""

    ids: list[int]  # every player of the period, sorted
    at: np.ndarray  # the rated players' positions in ``ids``
    rated: RatedColumns
    unrated: Mapping[int, PlayerPeriod]  # by position in ``ids``, computed when first read


def rate_period_columns(
    period: Period,
    states: Mapping[int, PlayerState],
    games: Iterable[tuple[Any, ...]] | GameColumns,
    rules: Rules = Rules(),  # noqa: B008 - frozen, so a shared default is safe
    earlier: Earlier | None = None,
    standard: StandardRatings | None = None,
    only: AbstractSet[int] | None = None,
) -> PeriodColumns | None:
    """``rate_period`` with the rated players' results left as columns; None without games.
    ``only``: the results of those players alone (the others' sums are still taken: their
    ratings are what their opponents meet)."""
    columns = games if isinstance(games, GameColumns) else columns_of(games)
    if not len(columns.white):
        return None
    seeds = _Seeds(period, rules, standard)
    ids, opening, totals, pools_of = _tally(period, states, columns, rules, earlier or {}, seeds)
    is_rated, unrated_at = totals.rating >= 0, totals.rating < 0
    if only is not None:
        # A correction rates a few dozen players among the few hundred they met: K, the
        # rounding and the results of the others would be thrown away.
        asked = np.fromiter((pid in only for pid in ids), bool, len(ids))
        is_rated, unrated_at = is_rated & asked, unrated_at & asked
    rated = np.flatnonzero(is_rated)
    rated_columns = _rate_rated(period, opening.take(rated), ids, rated, totals, rules)

    def rate_unrated() -> dict[int, PlayerPeriod]:
        pools = pools_of()
        era = rules.era(period.start)
        return {
            k: _rate_unrated(period, states[ids[k]], pools.get(k, []), era)
            for k in np.flatnonzero(unrated_at).tolist()
        }

    unrated = _Later(rate_unrated)
    return PeriodColumns(ids, rated, rated_columns, unrated)


class _Later(Mapping[int, "PlayerPeriod"]):
    """The unrated players' results, computed (their pools collected too) when first read: a
    caller may store the rated players' rows first and rate the newcomers while the database
    works (services)."""

    def __init__(self, compute: Callable[[], dict[int, PlayerPeriod]]) -> None:
        self._compute: Callable[[], dict[int, PlayerPeriod]] | None = compute
        self._found: dict[int, PlayerPeriod] = {}

    def _results(self) -> dict[int, PlayerPeriod]:
        if self._compute is not None:
            self._found, self._compute = self._compute(), None
        return self._found

    def __getitem__(self, key: int) -> PlayerPeriod:
        return self._results()[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._results())

    def __len__(self) -> int:
        return len(self._results())


def columns_of(games: Iterable[tuple[Any, ...]]) -> GameColumns:
    """Turn (white, black, result, date, event[, earlier start]) tuples into ``GameColumns``."""
    rows = [row if len(row) == 6 else (*row, None) for row in games]
    n = len(rows)
    table = np.array(rows, dtype=object).reshape(n, 6)  # one C pass over the tuples
    score = np.full(n, -1, np.int64)
    for code, value in WHITE_SCORE.items():
        score[table[:, 2] == code] = value
    events = table[:, 4]
    starts = table[:, 5]
    start = None
    if any(day is not None for day in starts):
        start = np.fromiter((-1 if d is None else d.toordinal() for d in starts), np.int64, n)
    return GameColumns(
        table[:, 0].astype(np.int64),
        table[:, 1].astype(np.int64),
        score,
        np.fromiter((day.toordinal() for day in table[:, 3]), np.int64, n),
        lambda rows: events[rows].tolist(),
        start,
    )


class Totals(NamedTuple):
    """Each player's sums over the period's rated games, by position among the period's ids."""

    rating: np.ndarray  # opening rating, -1 = unrated
    games: np.ndarray
    score: np.ndarray  # UNIT
    expected: np.ndarray  # UNIT, sum of PD
    opponents: np.ndarray  # sum of the opponents' ratings
    last: np.ndarray  # ordinal of the last rated game's date, -1 = none


def _tally(
    period: Period,
    states: Mapping[int, PlayerState],
    games: GameColumns,
    rules: Rules,
    earlier: Earlier,
    seeds: _Seeds,
) -> tuple[list[int], StateColumns, Totals, Callable[[], dict[int, list[PoolGame]]]]:
    """Sum every player's rated games of the period; say how to collect the unrated players'
    pool games.

    The games of a federation's period number in the millions, so the sums are taken with numpy
    over whole columns; the arithmetic stays in integers (UNIT), and float64 sums of integers
    below 2**53 are exact. Returns the players' ids, their states on the opening list and their
    totals in the same order, and a function returning the unrated players' pool games by
    position.
    """
    score = games.score
    ids, wi, bi = _dense_index(games.white, games.black)
    id_list = ids.tolist()
    opening = seeds.opening(state_columns(states, ids), ids)
    rating = opening.rating
    sides = _Sides.of(rating[wi], rating[bi], games, earlier, seeds)
    played = score >= 0
    game_rules = _GameRules.of(period, games, rules)
    rated_w = played & (sides.own_w >= 0) & (sides.seen_b >= 0)
    rated_b = played & (sides.own_b >= 0) & (sides.seen_w >= 0)
    if game_rules.six_hundred is not None:  # R&B 7.3.1: such games are rated for nobody
        apart = game_rules.too_far_apart(sides.own_w, sides.seen_b) | (
            game_rules.too_far_apart(sides.own_b, sides.seen_w)
        )
        rated_w, rated_b = rated_w & ~apart, rated_b & ~apart
    # 8.3.1: each side uses the capped D unless exempt (2650+, from October 2025; once per
    # tournament from 2022 to February 2024).
    real = _expectation_table(rules.method)
    d_w = game_rules.difference_used(sides.own_w - sides.seen_b, sides.own_w, wi, games, rated_w)
    d_b = game_rules.difference_used(sides.own_b - sides.seen_w, sides.own_b, bi, games, rated_b)
    # Each side's rated games by position (found once, not once a column), summed side by
    # side: no column of both sides' games is made.
    rows_w, rows_b = np.flatnonzero(rated_w), np.flatnonzero(rated_b)
    at_w, at_b = wi[rows_w], bi[rows_b]
    size = len(id_list)

    def total(white: np.ndarray | None, black: np.ndarray | None) -> np.ndarray:
        # Not added in place: a side without games counts in integers, not floats.
        found = np.bincount(at_w, weights=white, minlength=size)
        return (found + np.bincount(at_b, weights=black, minlength=size)).astype(np.int64)

    last = np.full(size, -1, np.int64)
    np.maximum.at(last, at_w, games.day[rows_w])
    np.maximum.at(last, at_b, games.day[rows_b])
    totals = Totals(
        rating,
        total(None, None),
        total(score[rows_w], UNIT - score[rows_b]),
        total(real[d_w[rows_w] + _OFFSET], real[d_b[rows_b] + _OFFSET]),
        total(sides.seen_b[rows_w], sides.seen_w[rows_b]),
        last,
    )
    # The pools are collected only when the unrated players are rated (see ``_Later``): an
    # unrated player's game counts toward a first rating when the opponent counts as rated.
    pool_w = played & (rating[wi] < 0) & (sides.seen_b >= 0)
    pool_b = played & (rating[bi] < 0) & (sides.seen_w >= 0)
    pools = functools.partial(_pool_games, period, pool_w, pool_b, wi, bi, sides, games)
    return id_list, opening, totals, pools


class _Sides(NamedTuple):
    """Per game, the rating each player is rated with (``own``, -1: rated as unrated) and the
    rating the opponent sees (``seen``, -1: counted as unrated), FIDE.md 10.1.

    A tournament inside the period: both are the opening list's. One that started earlier: the
    list in force at its start; a player unrated then but rated on the opening list is rated
    with their current rating and counted as unrated by their opponents (8.2.4); a player
    unrated on the opening list is rated as unrated (their game goes to their pool).
    """

    own_w: np.ndarray
    seen_w: np.ndarray
    own_b: np.ndarray
    seen_b: np.ndarray

    @classmethod
    def of(
        cls,
        open_w: np.ndarray,
        open_b: np.ndarray,
        games: GameColumns,
        earlier: Earlier,
        seeds: _Seeds,
    ) -> _Sides:
        start = games.start
        if start is None or not (start >= 0).any():
            return cls(open_w, open_w, open_b, open_b)
        seen_w, seen_b = open_w.copy(), open_b.copy()
        for day in np.unique(start[start >= 0]).tolist():
            rows = np.flatnonzero(start == day)
            then = seeds.earlier(day, earlier.get(day, {}), games.white[rows], games.black[rows])
            seen_w[rows] = _ratings(then, games.white[rows])
            seen_b[rows] = _ratings(then, games.black[rows])
        return cls(_own(open_w, seen_w), seen_w, _own(open_b, seen_b), seen_b)


class _Seeds:
    """R&B 7.2.1: "If an unrated player has a standard rating at the beginning of a rapid or
    blitz tournament, their standard rating is used for rating calculation. Such a player is
    considered to be rated." On a list whose rule set (by the tournament's start) has the rule,
    a player unrated there is rated with their rating on the standard list in force then: their
    opponents count it, their K is the one of their games on this list (a new player's, fewer
    than 30), and their rating after the period is that rating plus the period's change (the
    standard rating on the list opening the period; Ladder's reading of "after the period").
    """

    def __init__(self, period: Period, rules: Rules, standard: StandardRatings | None) -> None:
        self.period, self.rules, self.standard = period, rules, standard

    def _apply(self, on: date) -> bool:
        return self.standard is not None and self.rules.era(on).seeded_from_standard.value

    def opening(self, opening: StateColumns, ids: np.ndarray) -> StateColumns:
        """The opening list's states with the unrated players seeded from the standard list."""
        unrated = np.flatnonzero(opening.rating < 0)
        if not len(unrated) or not self._apply(self.period.start):
            return opening
        assert self.standard is not None
        then = self.standard(OPENING, ids[unrated].tolist())
        seed = _ratings(then, ids[unrated])
        if not (seed >= 0).any():
            return opening
        rating = opening.rating.copy()
        rating[unrated] = seed
        return opening._replace(rating=rating)

    def earlier(
        self, day: int, then: Mapping[int, int | None], white: np.ndarray, black: np.ndarray
    ) -> Mapping[int, int | None]:
        """The ratings on the list in force at an earlier tournament's start, those unrated
        then seeded from the standard list then."""
        if not self._apply(date.fromordinal(day)):
            return then
        players = set(white.tolist()) | set(black.tolist())
        unrated = sorted(pid for pid in players if then.get(pid) is None)
        if not unrated:
            return then
        assert self.standard is not None
        found = self.standard(day, unrated)
        seeded = {pid: r for pid in unrated if (r := found.get(pid)) is not None}
        return {**then, **seeded} if seeded else then


def _ratings(then: Mapping[int, int | None], players: np.ndarray) -> np.ndarray:
    """The players' ratings in ``then``, -1 for none."""
    found = [then.get(pid) for pid in players.tolist()]
    return np.fromiter((-1 if r is None else r for r in found), np.int64, len(found))


def _own(opening: np.ndarray, then: np.ndarray) -> np.ndarray:
    """The rating a player is rated with: the one in force at the start, or their current one
    when unrated then (8.2.4); -1 when unrated on the opening list."""
    return np.where(opening < 0, -1, np.where(then >= 0, then, opening))


def _pool_games(
    period: Period,
    pool_w: np.ndarray,
    pool_b: np.ndarray,
    wi: np.ndarray,
    bi: np.ndarray,
    sides: _Sides,
    games: GameColumns,
) -> dict[int, list[PoolGame]]:
    """Collect the games of unrated players that count toward a first rating (``pool_w``:
    White's, ``pool_b``: Black's), by player position.

    Whole columns are selected first: indexing numpy arrays element by element in a Python loop
    costs about as much as the rest of the tally for a federation's period.
    """
    rows_w, rows_b = np.flatnonzero(pool_w), np.flatnonzero(pool_b)
    if not len(rows_w) and not len(rows_b):
        return {}
    rows = np.concatenate([rows_w, rows_b])
    player = np.concatenate([wi[rows_w], bi[rows_b]])
    opponent_all = np.concatenate([sides.seen_b[rows_w], sides.seen_w[rows_b]])
    own_all = np.concatenate([games.score[rows_w], UNIT - games.score[rows_b]])
    order = np.argsort(player, kind="stable")  # each player's games together
    rows, player = rows[order], player[order]
    opponent = opponent_all[order].tolist()
    own = own_all[order].tolist()
    ordinals = games.day[rows].tolist()
    on = {day: date.fromordinal(day) for day in set(ordinals)}
    names = games.events(rows)
    events = {event: event_key(event, period.label) for event in set(names)}
    # tuple.__new__ straight from C: a named tuple's own constructor costs a Python frame each.
    fields = zip(
        map(on.__getitem__, ordinals), map(events.__getitem__, names), opponent, own, strict=True
    )
    pool = list(map(functools.partial(tuple.__new__, PoolGame), fields))
    starts = np.flatnonzero(np.r_[True, player[1:] != player[:-1]]).tolist()
    ends = [*starts[1:], len(pool)]
    return {
        k: pool[start:end]
        for k, start, end in zip(player[starts].tolist(), starts, ends, strict=True)
    }


def _dense_index(white: np.ndarray, black: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the players' ids, sorted, and each game's white and black position among them."""
    largest = int(max(white.max(), black.max()))
    # Few games among large ids (a correction's period in a federation of 500,000 players):
    # sorting them costs microseconds where a lookup table of every id up to the largest cost
    # 0.3 ms a call; many games (a full period): the table, several times faster than sorting.
    if largest > 32 * len(white) + 4096:
        ids, inverse = np.unique(np.concatenate([white, black]), return_inverse=True)
        return ids, inverse[: len(white)], inverse[len(white) :]
    present = np.zeros(largest + 1, bool)
    present[white] = True
    present[black] = True
    ids = np.flatnonzero(present)
    position = np.full(largest + 1, -1, np.int64)
    position[ids] = np.arange(len(ids))
    return ids, position[white], position[black]


@functools.cache
def _expectation_table(method: str) -> np.ndarray:
    """Return PD in UNIT by D + _OFFSET (8.1.2, or the logistic formula)."""

    def pd(used: int) -> int:
        if method == fide.METHOD_ELO:
            return fide.elo_expected_units(used, 0)
        return fide.expected_units(used)

    return np.array([pd(d) for d in range(-_OFFSET, _OFFSET + 1)], np.int64)


class _GameRules(NamedTuple):
    """The rules of each game's tournament (FIDE.md 10.1: chosen by its start; a tournament
    inside the period: the period's), as scalars when every game has the same, else columns."""

    cap: int | np.ndarray  # 8.3.1: the points beyond which D is capped
    exempt_from: int | np.ndarray  # a player rated this much uses the real D
    once: bool | np.ndarray  # the cap upgrades one game per tournament (2022-24)
    six_hundred: eras.SixHundredRule | None  # R&B 7.3.1 (the newest of the games' sets)
    six_hundred_games: bool | np.ndarray  # whether it applies to each game

    @classmethod
    def of(cls, period: Period, games: GameColumns, rules: Rules) -> _GameRules:
        sets = {-1: rules.era(period.start)}
        start = games.start
        if start is not None:
            for day in np.unique(start[start >= 0]).tolist():
                sets[day] = rules.era(date.fromordinal(day))

        def column(value: Callable[[eras.RuleSet], Any]) -> Any:
            values = {day: value(rule_set) for day, rule_set in sets.items()}
            if len(set(values.values())) == 1:
                return values[-1]
            assert start is not None
            found = np.full(len(start), values[-1])
            for day, chosen in values.items():
                found[start == day] = chosen
            return found

        no_exemption = 10**9
        six = next((r.six_hundred.value for r in sets.values() if r.six_hundred.value), None)
        return cls(
            column(lambda r: r.cap.value.points),
            column(lambda r: r.cap.value.exempt_from or no_exemption),
            column(lambda r: r.cap.value.once_per_tournament),
            six,
            column(lambda r: r.six_hundred.value is not None),
        )

    def too_far_apart(self, own: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        """R&B 7.3.1: the games 600+ apart with a player above 2600 (from December 2024)."""
        rule = self.six_hundred
        assert rule is not None
        both = (own >= 0) & (opponent >= 0)
        far = (np.abs(own - opponent) >= rule.gap) & (np.maximum(own, opponent) > rule.above)
        found: np.ndarray = both & far & self.six_hundred_games
        return found

    def difference_used(
        self,
        d: np.ndarray,
        own: np.ndarray,
        players: np.ndarray,
        games: GameColumns,
        rated: np.ndarray,
    ) -> np.ndarray:
        """The D each game's player uses (8.3.1); games not ``rated`` for them get any value."""
        used: np.ndarray = np.clip(d, -self.cap, self.cap)
        if np.any(self.once):
            over = np.abs(d) > self.cap
            if np.any(self.once & over & rated):
                # 2022-24: only the rated game with the largest gap of each player's
                # tournament is upgraded; their other games beyond the cap use the real D.
                # (A forfeit or a game not rated for them never takes the upgrade from one
                # that is.)
                chosen = _largest_gap(d, players, games, self.once & over & rated)
                used = np.where(self.once & over & ~chosen, d, used)
        np.copyto(used, d, where=own >= self.exempt_from)  # the exempt use the real D
        np.clip(used, -_OFFSET, _OFFSET, out=used)
        return used


def _largest_gap(
    d: np.ndarray, players: np.ndarray, games: GameColumns, candidates: np.ndarray
) -> np.ndarray:
    """Mark, among ``candidates``, each player's game of largest |D| in each event (of two as
    large, the one with the larger D, whatever the order the games were read in: of two with
    the same D either gives the same sums)."""
    rows = np.flatnonzero(candidates)
    names = games.events(rows)
    _, codes = np.unique(np.array(names, dtype=object), return_inverse=True)
    keys = players[rows] * (int(codes.max()) + 1) + codes
    order = np.lexsort((-d[rows], -np.abs(d[rows]), keys))
    first = np.r_[True, keys[order][1:] != keys[order][:-1]]
    chosen = np.zeros(len(d), bool)
    chosen[rows[order[first]]] = True
    return chosen


def _rate_rated(
    period: Period,
    opening: StateColumns,
    ids: list[int],
    at: np.ndarray,
    totals: Totals,
    rules: Rules,
) -> RatedColumns:
    """Apply 8.3 to the rated players at positions ``at`` (``opening``: their states): K from
    the opening list, the 700 rule, one rounding, the 1400 floor.

    The arithmetic runs on whole columns (integers in UNIT, exact), K's eligibility too
    (``fide.k_factors``). A federation's period rates 100,000 players here.
    """
    era = rules.era(period.start)
    k, reasons = _k_factors(era, opening, period.start.year, rules.club_k)
    games, score, expected = totals.games[at], totals.score[at], totals.expected[at]
    # 8.3.3, the 700 rule: K x n above 700 gives K = floor(700 / n) for every game.
    over = (k * games > fide.K_CAP_PRODUCT) & era.seven_hundred.value
    applied = np.where(over, fide.K_CAP_PRODUCT // np.maximum(games, 1), k)
    exact = applied * (score - expected)
    # 8.3.4: one rounding per period, half away from zero.
    change = np.sign(exact) * ((np.abs(exact) + UNIT // 2) // UNIT)
    after = totals.rating[at] + change
    peak = np.maximum(opening.peak, after)
    last = np.maximum(totals.last[at], opening.last)
    opponents = totals.opponents[at]
    performances = _performances(opponents, games, score)
    return RatedColumns(
        [ids[k] for k in at.tolist()], opening, k, reasons, games, score, expected, applied,
        exact, change, after, peak, last, performances, opponents, era.floor.value,
    )  # fmt: skip


def _k_factors(
    era: eras.RuleSet, opening: StateColumns, year: int, club_k: int | None
) -> tuple[np.ndarray, list[str]]:
    """K for each player from the opening list (8.3.3) by the rule set's scheme, over whole
    columns."""
    return era.k.value.k_factors(
        peak_rating=opening.peak, rated_games=opening.rated_games,
        birth_year=opening.birth_year, year=year, club_k=club_k,
    )  # fmt: skip


def rated_results(rated: RatedColumns) -> list[PlayerPeriod]:
    """The rated players' results as ``PlayerPeriod`` objects, in ``rated.ids`` order."""
    days = {day: date.fromordinal(day) for day in set(rated.last.tolist()) if day >= 0}
    opening = rated.opening
    columns = zip(
        rated.k.tolist(), rated.k_reason,
        zip(rated.games.tolist(), rated.score.tolist(), rated.expected.tolist(), strict=True),
        zip(rated.applied.tolist(), rated.exact.tolist(), rated.change.tolist(),
            rated.after.tolist(), strict=True),
        rated.peak.tolist(), rated.last.tolist(), rated.performance, rated.opponents.tolist(),
        strict=True,
    )  # fmt: skip
    return [
        _rated_result(opening.state(i), fide.KFactor(k, reason), sums, changed, peak,
                      days.get(day), (rp, met), rated.floor)
        for i, (k, reason, sums, changed, peak, day, rp, met) in enumerate(columns)
    ]  # fmt: skip


def _rated_result(
    state: PlayerState,
    k: fide.KFactor,
    sums: tuple[int, int, int],
    changed: tuple[int, int, int, int],
    peak: int | None,
    last: date | None,
    performance: tuple[int | None, int],
    floor: int,
) -> PlayerPeriod:
    """One rated player's result from the column arithmetic of ``_rate_rated``
    (``performance``: the performance rating and the opponents' total it comes from)."""
    (games, score, expected), (applied, exact, change, after) = sums, changed
    if after < floor:
        # 7.2.1: shown unrated on the next list, starts again as unrated; games count kept.
        status, rating_after, peak = STATUS_BELOW_FLOOR, None, state.peak_rating
    else:
        status, rating_after = STATUS_RATED, after
    new_state = PlayerState(
        rating_after, state.rated_games + games, peak, state.birth_year, last, (),
        state.first_event,
    )  # fmt: skip
    return PlayerPeriod(
        state.rating, status, new_state, games, score, expected, k, applied, exact, change,
        rating_after, *performance,
    )  # fmt: skip


class StoredSums(NamedTuple):
    """What a rated player's stored period says of their games: ``rate_again`` starts there."""

    k: int
    k_reason: str
    k_applied: int
    games: int
    score: int  # UNIT
    expected: int  # UNIT
    opponents_total: int
    last_rated_on: date | None


def rate_again(
    period: Period,
    rules: Rules,
    state: PlayerState,
    stored: StoredSums,
    moved: Iterable[tuple[int | None, int | None]],
) -> PlayerPeriod | None:
    """A rated player's period rated again from its stored sums when only the ratings some of
    their opponents met them with have moved: a correction's reach, whose opponents' other
    games are not read.

    ``state``: the player on the list opening the period, as when it was stored (so K, the
    games counted and the score are as stored); ``moved``: for each of their games, of a
    tournament inside the period and played, against an opponent whose rating may have moved,
    the opponent's rating then and now (None: unrated). Each game's PD and the opponents' total
    take the difference (8.1.2, 8.3.1's cap as ``_GameRules.difference_used``); the 700 rule,
    the rounding, the floor and the peak are applied as ``_rate_rated`` does. A game against
    an opponent unrated then and now counts neither time. None when the result depends on
    more than those games (the caller rates the player in full): an opponent rated one time
    and not the other, or unrated where R&B 7.2.1 may rate them with their standard rating;
    under the cap upgraded once per tournament (2022-24), a gap beyond the cap then or now;
    R&B 7.3.1 ruling a game out then or now.
    """
    era = rules.era(period.start)
    cap = era.cap.value
    own = state.rating
    if own is None:
        return None
    six, seeded = era.six_hundred.value, era.seeded_from_standard.value
    exempt = cap.exempt_from is not None and own >= cap.exempt_from
    # 2022-24: only the game of largest gap beyond the cap in each of the player's
    # tournaments is upgraded. A game within the cap then and now is never a candidate, so
    # its PD is the table's and the choice among the player's other games stays as stored.
    once = cap.once_per_tournament and not exempt
    table = _expectation_table(rules.method)

    def pd(opponent: int) -> int:
        d = own - opponent
        used = d if exempt else min(max(d, -cap.points), cap.points)
        return int(table[min(max(used, -_OFFSET), _OFFSET) + _OFFSET])

    expected, opponents = stored.expected, stored.opponents_total
    for then, now in moved:
        if then is None or now is None:
            if then is None and now is None and not seeded:
                continue  # unrated then and now: counted for the player neither time
            return None
        if six is not None and not (six.game_rated(own, then) and six.game_rated(own, now)):
            return None
        if once and (abs(own - then) > cap.points or abs(own - now) > cap.points):
            return None
        expected += pd(now) - pd(then)
        opponents += now - then
    applied = stored.k_applied
    exact = applied * (stored.score - expected)
    change = fide.round_units(exact)
    after = own + change
    peak = max(state.peak_rating if state.peak_rating is not None else -1, after)
    performance = fide.performance_rating(opponents, stored.games, stored.score)
    return _rated_result(
        state, fide.KFactor(stored.k, stored.k_reason), (stored.games, stored.score, expected),
        (applied, exact, change, after), peak, stored.last_rated_on, (performance, opponents),
        era.floor.value,
    )  # fmt: skip


@functools.cache
def _dp_table() -> np.ndarray:
    return np.array([fide.dp(p) for p in range(101)], np.int64)


def _performances(opponents: np.ndarray, games: np.ndarray, score: np.ndarray) -> list[int | None]:
    """``fide.performance_rating`` over whole columns: Rp = Ra + dp(p), None without games."""
    n = np.maximum(games, 1)
    p = (200 * score + n * UNIT) // (2 * n * UNIT)  # W / n in hundredths, half up
    total = opponents + _dp_table()[p] * n
    rp = np.sign(total) * ((2 * np.abs(total) + n) // (2 * n))  # half away from zero
    return [
        value if count else None for value, count in zip(rp.tolist(), games.tolist(), strict=True)
    ]


def _rate_unrated(
    period: Period, state: PlayerState, pool_games: list[PoolGame], era: eras.RuleSet
) -> PlayerPeriod:
    """Pool an unrated player's games and publish a first rating when 7.1.4 and 8.2 allow (by
    the rule set's method and floor)."""
    horizon = fide.add_months(period.end, -fide.FIRST_RATING_POOL_MONTHS)
    new_games = sorted(pool_games)  # by date, event, opponent, score: the order of the fields
    pool = tuple(g for g in state.pool if g.on > horizon) + tuple(new_games)
    first_event = state.first_event or (new_games[0].event if new_games else None)
    counted = _drop_zero_first_event(pool, first_event)
    points = Fraction(sum(g.score for g in counted), UNIT)
    result = eras.first_rating(
        era.first_rating.value, [g.opponent_rating for g in counted], points, era.floor.value
    )
    last = max(filter(None, (state.last_rated_on, *(g.on for g in new_games))), default=None)
    period_score = sum(g.score for g in new_games)
    opponents_total = sum(g.opponent_rating for g in new_games)
    performance = _performance(opponents_total, len(new_games), period_score)
    common: dict[str, Any] = {
        "rating_before": None,
        "games": len(new_games),
        "score": period_score,
        "performance": performance,
        "opponents_total": opponents_total,
        "first_rating": result,
    }
    if result is not None and result.published:
        new_state = replace(
            state,
            rating=result.rating,
            rated_games=state.rated_games + result.games,
            peak_rating=max(result.rating, state.peak_rating or result.rating),
            last_rated_on=last,
            pool=(),
            first_event=first_event,
        )
        return PlayerPeriod(
            status=STATUS_FIRST_RATING,
            state=new_state,
            rating_after=result.rating,
            pool=counted,
            **common,
        )
    new_state = replace(state, last_rated_on=last, pool=pool, first_event=first_event)
    return PlayerPeriod(status=STATUS_UNRATED, state=new_state, pool=pool, **common)


def _drop_zero_first_event(
    pool: tuple[PoolGame, ...], first_event: str | None
) -> tuple[PoolGame, ...]:
    """Disregard the player's first event if they scored zero in it (8.2.1)."""
    if first_event is None:
        return pool
    in_first = [g for g in pool if g.event == first_event]
    if in_first and not any(g.score for g in in_first):
        return tuple(g for g in pool if g.event != first_event)
    return pool


def _performance(opponents_total: int, games: int, score: int) -> int | None:
    return fide.performance_rating(opponents_total, games, score)
