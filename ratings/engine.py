"""Rate one period: every player's state on the opening list plus the period's games in, the
period's changes and the closing list out.

Pure like ``ratings.fide`` (no Django): the services load and store, this module decides. The
result does not depend on the order of the games inside the period.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction

from . import fide
from .fide import UNIT

RESULT_WHITE_WIN = "1-0"
RESULT_BLACK_WIN = "0-1"
RESULT_DRAW = "1/2-1/2"
RESULT_WHITE_FORFEIT_WIN = "+/-"
RESULT_BLACK_FORFEIT_WIN = "-/+"
RESULT_DOUBLE_FORFEIT = "0-0"

# White's score in UNIT for the results that are rated; unplayed games are absent (FIDE.md 5).
WHITE_SCORE = {RESULT_WHITE_WIN: UNIT, RESULT_BLACK_WIN: 0, RESULT_DRAW: UNIT // 2}

STATUS_RATED = "rated"
STATUS_FIRST_RATING = "first_rating"
STATUS_UNRATED = "unrated"
STATUS_BELOW_FLOOR = "below_floor"


@dataclass(frozen=True, slots=True)
class PoolGame:
    """A game of an unrated player against a rated opponent, kept toward a first rating."""

    on: date
    event: str
    opponent_rating: int
    score: int  # UNIT


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What the list says of a player: enough to rate their next period."""

    rating: int | None
    rated_games: int = 0
    peak_rating: int | None = None
    birth_year: int | None = None
    last_rated_on: date | None = None
    pool: tuple[PoolGame, ...] = ()
    first_event: str | None = None


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date
    label: str = ""


@dataclass(frozen=True, slots=True)
class Rules:
    """The club's options: FIDE's table or classic Elo, and an optional club K (1-100)."""

    method: str = fide.METHOD_FIDE
    club_k: int | None = None


@dataclass(frozen=True, slots=True)
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
    pool: tuple[PoolGame, ...] = ()  # an unrated player's pool, or the pool a first rating used
    first_rating: fide.FirstRating | None = None


# A player's running totals in a period, kept as a list because the game loop is the hot path:
# [rated games, score, sum of PD, sum of opponents' ratings, last rated date, pool games].
_GAMES, _SCORE, _EXPECTED, _OPPONENTS, _LAST, _POOL = range(6)
_OFFSET = 3500  # ratings lie in 0..3500, so D in -3500..3500


def _new_tally() -> list:
    return [0, 0, 0, 0, None, []]


def event_key(event: str, period_label: str) -> str:
    """Name the event a game belongs to (Decision, FIDE.md 6: no name = one event per period)."""
    return f"event:{event}" if event else f"period:{period_label}"


def rate_period(
    period: Period,
    states: Mapping[int, PlayerState],
    games: Iterable[tuple[int, int, str, date, str]],
    rules: Rules = Rules(),  # noqa: B008 - frozen, so a shared default is safe
) -> dict[int, PlayerPeriod]:
    """Rate a period; return a result for every player who has a game in it.

    ``games`` are (white id, black id, result, date, event name); ``states`` must hold every
    player of those games as on the list that opens the period. Ratings used are the opening
    ones (8.3.2); a game between a rated and an unrated player counts only toward the unrated
    player's first rating; games between unrated players and unplayed games count for nobody.
    """
    capped, real = _expectation_tables(rules.method)
    exempt_from = fide.CAP_EXEMPT_RATING if fide.cap_exemption_in_force(period.start) else 10**9
    rating_of = {pid: state.rating for pid, state in states.items()}
    tallies: dict[int, list] = {}
    for white, black, result, on, event in games:
        wt = tallies.get(white)
        if wt is None:
            wt = tallies[white] = _new_tally()
        bt = tallies.get(black)
        if bt is None:
            bt = tallies[black] = _new_tally()
        white_score = WHITE_SCORE.get(result)
        if white_score is None:
            continue
        wr, br = rating_of[white], rating_of[black]
        if wr is None:
            if br is not None:
                wt[_POOL].append(PoolGame(on, event_key(event, period.label), br, white_score))
            continue
        if br is None:
            bt[_POOL].append(PoolGame(on, event_key(event, period.label), wr, UNIT - white_score))
            continue
        d = wr - br  # 8.3.1: each side capped unless exempt (2650+, from October 2025)
        wt[_GAMES] += 1
        wt[_SCORE] += white_score
        wt[_EXPECTED] += (real if wr >= exempt_from else capped)[_OFFSET + d]
        wt[_OPPONENTS] += br
        if wt[_LAST] is None or on > wt[_LAST]:
            wt[_LAST] = on
        bt[_GAMES] += 1
        bt[_SCORE] += UNIT - white_score
        bt[_EXPECTED] += (real if br >= exempt_from else capped)[_OFFSET - d]
        bt[_OPPONENTS] += wr
        if bt[_LAST] is None or on > bt[_LAST]:
            bt[_LAST] = on
    return {
        pid: (
            _rate_rated(period, states[pid], tally, rules)
            if states[pid].rating is not None
            else _rate_unrated(period, states[pid], tally)
        )
        for pid, tally in tallies.items()
    }


@functools.cache
def _expectation_tables(method: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return PD in UNIT by D + 3500, with the 400-point cap and without (8.1.2, 8.3.1)."""

    def pd(used: int) -> int:
        if method == fide.METHOD_ELO:
            return fide.elo_expected_units(used, 0)
        return fide.expected_units(used)

    cap = fide.DIFFERENCE_CAP
    diffs = range(-_OFFSET, _OFFSET + 1)
    return (
        tuple(pd(max(-cap, min(cap, d))) for d in diffs),
        tuple(pd(d) for d in diffs),
    )


def _rate_rated(period: Period, state: PlayerState, tally: list, rules: Rules) -> PlayerPeriod:
    """Apply 8.3: K from the opening list, the 700 rule, one rounding, the 1400 floor."""
    games, score, expected = tally[_GAMES], tally[_SCORE], tally[_EXPECTED]
    k = fide.k_factor(
        peak_rating=state.peak_rating,
        rated_games=state.rated_games,
        birth_year=state.birth_year,
        year=period.start.year,
        club_k=rules.club_k,
    )
    applied = fide.k_applied(k.value, games)
    exact = applied * (score - expected)
    change = fide.round_units(exact)
    assert state.rating is not None
    after = state.rating + change
    last = state.last_rated_on
    if tally[_LAST] is not None and (last is None or tally[_LAST] > last):
        last = tally[_LAST]
    if after < fide.FLOOR:
        # 7.2.1: shown unrated on the next list, starts again as unrated; games count kept.
        status, rating_after, peak = STATUS_BELOW_FLOOR, None, state.peak_rating
    else:
        status, rating_after = STATUS_RATED, after
        peak = after if state.peak_rating is None else max(after, state.peak_rating)
    new_state = PlayerState(
        rating_after, state.rated_games + games, peak, state.birth_year, last, (),
        state.first_event,
    )  # fmt: skip
    return PlayerPeriod(
        rating_before=state.rating,
        status=status,
        state=new_state,
        games=games,
        score=score,
        expected=expected,
        k=k,
        k_applied=applied,
        change_exact=exact,
        change=change,
        rating_after=rating_after,
        performance=_performance(tally[_OPPONENTS], games, score),
    )


def _rate_unrated(period: Period, state: PlayerState, tally: list) -> PlayerPeriod:
    """Pool an unrated player's games and publish a first rating when 7.1.4 and 8.2 allow."""
    horizon = fide.add_months(period.end, -fide.FIRST_RATING_POOL_MONTHS)
    new_games = sorted(tally[_POOL], key=_pool_order)
    pool = tuple(g for g in state.pool if g.on > horizon) + tuple(new_games)
    first_event = state.first_event or (new_games[0].event if new_games else None)
    counted = _drop_zero_first_event(pool, first_event)
    points = Fraction(sum(g.score for g in counted), UNIT)
    result = fide.first_rating([g.opponent_rating for g in counted], points)
    last = max(filter(None, (state.last_rated_on, *(g.on for g in new_games))), default=None)
    period_score = sum(g.score for g in new_games)
    performance = _performance(
        sum(g.opponent_rating for g in new_games), len(new_games), period_score
    )
    common = {
        "rating_before": None,
        "games": len(new_games),
        "score": period_score,
        "performance": performance,
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


def _pool_order(game: PoolGame) -> tuple:
    return (game.on, game.event, game.opponent_rating, game.score)


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
    return fide.performance_rating(opponents_total, games, Fraction(score, UNIT))
