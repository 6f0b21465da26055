"""Rate one period: every player's state on the opening list plus the period's games in, the
period's changes and the closing list out.

Pure like ``ratings.fide`` (no Django): the services load and store, this module decides. The
result does not depend on the order of the games inside the period.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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


@dataclass(slots=True)
class _Tally:
    games: int = 0
    score: int = 0
    expected: int = 0
    opponents: int = 0
    last: date | None = None
    pool: list[PoolGame] = field(default_factory=list)

    def add(self, on: date, score: int, expected: int, opponent: int) -> None:
        self.games += 1
        self.score += score
        self.expected += expected
        self.opponents += opponent
        if self.last is None or on > self.last:
            self.last = on


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

    ``games`` are (white id, black id, result, date, event key); ``states`` must hold every
    player of those games as on the list that opens the period. Ratings used are the opening
    ones (8.3.2); a game between a rated and an unrated player counts only toward the unrated
    player's first rating; games between unrated players and unplayed games count for nobody.
    """
    expected = _expectation(period, rules)
    rating_of = {pid: state.rating for pid, state in states.items()}
    tallies: dict[int, _Tally] = {}
    for white, black, result, on, event in games:
        white_tally = tallies.get(white) or tallies.setdefault(white, _Tally())
        black_tally = tallies.get(black) or tallies.setdefault(black, _Tally())
        white_score = WHITE_SCORE.get(result)
        if white_score is None:
            continue
        white_rating, black_rating = rating_of[white], rating_of[black]
        if white_rating is None:
            if black_rating is not None:
                white_tally.pool.append(PoolGame(on, event, black_rating, white_score))
        elif black_rating is None:
            black_tally.pool.append(PoolGame(on, event, white_rating, UNIT - white_score))
        else:
            white_tally.add(on, white_score, expected(white_rating, black_rating), black_rating)
            black_tally.add(
                on, UNIT - white_score, expected(black_rating, white_rating), white_rating
            )
    return {
        pid: (
            _rate_rated(period, states[pid], tally, rules)
            if states[pid].rating is not None
            else _rate_unrated(period, states[pid], tally)
        )
        for pid, tally in tallies.items()
    }


def _expectation(period: Period, rules: Rules):
    """Return PD(own, opponent) in UNIT for the period's rule set (8.1.2, 8.3.1)."""
    exemption = fide.cap_exemption_in_force(period.start)
    if rules.method == fide.METHOD_ELO:
        return lambda own, opp: fide.elo_expected_units(
            own, own - fide.difference_used(own, opp, exemption=exemption)
        )
    return lambda own, opp: fide.expected_units(fide.difference_used(own, opp, exemption=exemption))


def _rate_rated(period: Period, state: PlayerState, tally: _Tally, rules: Rules) -> PlayerPeriod:
    """Apply 8.3: K from the opening list, the 700 rule, one rounding, the 1400 floor."""
    k = fide.k_factor(
        peak_rating=state.peak_rating,
        rated_games=state.rated_games,
        birth_year=state.birth_year,
        year=period.start.year,
        club_k=rules.club_k,
    )
    applied = fide.k_applied(k.value, tally.games)
    exact = applied * (tally.score - tally.expected)
    change = fide.round_units(exact)
    assert state.rating is not None
    after = state.rating + change
    last = max(filter(None, (state.last_rated_on, tally.last)), default=None)
    games_total = state.rated_games + tally.games
    if after < fide.FLOOR:
        # 7.2.1: shown unrated on the next list, starts again as unrated; games count kept.
        status, rating_after = STATUS_BELOW_FLOOR, None
        new_state = replace(state, rating=None, rated_games=games_total, last_rated_on=last)
    else:
        status, rating_after = STATUS_RATED, after
        peak = max(after, state.peak_rating or after)
        new_state = replace(
            state, rating=after, rated_games=games_total, peak_rating=peak, last_rated_on=last
        )
    return PlayerPeriod(
        rating_before=state.rating,
        status=status,
        state=new_state,
        games=tally.games,
        score=tally.score,
        expected=tally.expected,
        k=k,
        k_applied=applied,
        change_exact=exact,
        change=change,
        rating_after=rating_after,
        performance=_performance(tally.opponents, tally.games, tally.score),
    )


def _rate_unrated(period: Period, state: PlayerState, tally: _Tally) -> PlayerPeriod:
    """Pool an unrated player's games and publish a first rating when 7.1.4 and 8.2 allow."""
    horizon = fide.add_months(period.end, -fide.FIRST_RATING_POOL_MONTHS)
    new_games = sorted(tally.pool, key=_pool_order)
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
