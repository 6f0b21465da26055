"""FIDE rating rules (standard chess), article by article.

Pure functions and tables only: no Django, no settings, no clock. The rules are those of
``shared/FIDE.md`` (the FIDE Rating Regulations applied from 1 March 2024, with the amendment of
article 8.3.1 applied from 1 October 2025). Article numbers are FIDE's.

Arithmetic is exact. Scores and expected scores are carried as integers in ``UNIT`` (1/10000),
which holds every FIDE table value (two decimals) and the classic-Elo expectation rounded to
four decimals; ratings changes are rounded once, half away from zero.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np

from ratings.rules import wording
from ratings.rules.wording import gettext_noop

UNIT = 10_000  # one point (a won game) in integer units

FLOOR = 1400  # 7.2.1 and 8.2.3: lowest published rating
FIRST_RATING_MAX = 2200  # 8.2.2
FIRST_RATING_MIN_GAMES = 5  # 7.1.4
FIRST_RATING_POOL_MONTHS = 26  # 7.1.4
HYPOTHETICAL_OPPONENT = 1800  # 8.2.2: two draws against 1800
DIFFERENCE_CAP = 400  # 8.3.1
CAP_EXEMPT_RATING = 2650  # 8.3.1 amendment
CAP_EXEMPTION_FROM = date(2025, 10, 1)  # 8.3.1 amendment in force
K_CAP_PRODUCT = 700  # 8.3.3: K x n <= 700
INACTIVE_AFTER_MONTHS = 12  # 7.3

METHOD_FIDE = "fide"
METHOD_ELO = "elo"
METHODS = (METHOD_FIDE, METHOD_ELO)

# Table 8.1.2: (highest |D| of the band, H in hundredths). |D| > 735 gives H = 1.00.
_H_BANDS = (
    (3, 50), (10, 51), (17, 52), (25, 53), (32, 54), (39, 55), (46, 56), (53, 57), (61, 58),
    (68, 59), (76, 60), (83, 61), (91, 62), (98, 63), (106, 64), (113, 65), (121, 66), (129, 67),
    (137, 68), (145, 69), (153, 70), (162, 71), (170, 72), (179, 73), (188, 74), (197, 75),
    (206, 76), (215, 77), (225, 78), (235, 79), (245, 80), (256, 81), (267, 82), (278, 83),
    (290, 84), (302, 85), (315, 86), (328, 87), (344, 88), (357, 89), (374, 90), (391, 91),
    (411, 92), (432, 93), (456, 94), (484, 95), (517, 96), (559, 97), (619, 98), (735, 99),
)  # fmt: skip
_MAX_TABLE_DIFF = 735


def _build_h_table() -> tuple[int, ...]:
    table: list[int] = []
    for upper, hundredths in _H_BANDS:
        table.extend([hundredths * 100] * (upper + 1 - len(table)))
    return tuple(table)


# H in UNIT for |D| = 0..735, built once so that a lookup is a list index.
_H_BY_ABS_DIFF = _build_h_table()

# Table 8.1.1: p in hundredths (50..100) -> dp.
_DP_BY_P = {
    100: 800, 99: 677, 98: 589, 97: 538, 96: 501, 95: 470, 94: 444, 93: 422, 92: 401, 91: 383,
    90: 366, 89: 351, 88: 336, 87: 322, 86: 309, 85: 296, 84: 284, 83: 273, 82: 262, 81: 251,
    80: 240, 79: 230, 78: 220, 77: 211, 76: 202, 75: 193, 74: 184, 73: 175, 72: 166, 71: 158,
    70: 149, 69: 141, 68: 133, 67: 125, 66: 117, 65: 110, 64: 102, 63: 95, 62: 87, 61: 80,
    60: 72, 59: 65, 58: 57, 57: 50, 56: 43, 55: 36, 54: 29, 53: 21, 52: 14, 51: 7, 50: 0,
}  # fmt: skip


# --- 8.1.2 expected score ------------------------------------------------------------------


def expected_units(difference: int) -> int:
    """Return PD in UNIT for D = own rating - opponent's rating, read from table 8.1.2."""
    magnitude = abs(difference)
    h = UNIT if magnitude > _MAX_TABLE_DIFF else _H_BY_ABS_DIFF[magnitude]
    return h if difference >= 0 else UNIT - h


def expected_score(difference: int) -> Decimal:
    """Return PD as a two-decimal ``Decimal`` for D = own - opponent (table 8.1.2)."""
    return units_to_decimal(expected_units(difference))


def elo_expected_units(own: int, opponent: int) -> int:
    """Return the classic-Elo expectation 1 / (1 + 10^((opp - own) / 400)) in UNIT.

    This is the logistic formula of the calculators people know, offered beside the FIDE table;
    it is rounded to four decimals so that the rest of the arithmetic stays exact.
    """
    value = 1 / (1 + 10 ** ((opponent - own) / 400))
    return int(Decimal(repr(value)).scaleb(4).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@dataclass(frozen=True, slots=True)
class ExpectationBand:
    """A run of rating differences that share one expected score in table 8.1.2."""

    low: int
    high: int
    fide: Decimal  # PD of the higher-rated player
    fide_lower: Decimal  # PD of the lower-rated player
    elo: Decimal  # the classic-Elo expectation at the band's middle, for comparison
    last: bool  # the open band beyond the table (D over 735)


@functools.cache
def expectation_bands() -> tuple[ExpectationBand, ...]:
    """Group table 8.1.2 into its bands, each with the classic-Elo value at its middle."""
    runs: list[list[int]] = []
    for difference in range(_MAX_TABLE_DIFF + 2):
        if runs and expected_units(runs[-1][0]) == expected_units(difference):
            runs[-1][1] = difference
        else:
            runs.append([difference, difference])
    return tuple(
        ExpectationBand(
            low=low,
            high=high,
            fide=expected_score(low),
            fide_lower=expected_score(-low),
            elo=units_to_decimal(elo_expected_units((low + high) // 2, 0)),
            last=low > _MAX_TABLE_DIFF,
        )
        for low, high in runs
    )


# --- 8.3.1 the 400-point rule --------------------------------------------------------------


def cap_exemption_in_force(period_start: date) -> bool:
    """Tell whether players rated 2650+ use the real difference in a period starting then.

    Decision (FIDE.md 2): the rule set in force is chosen by the period's start date.
    """
    return period_start >= CAP_EXEMPTION_FROM


def difference_used(own: int, opponent: int, *, exemption: bool) -> int:
    """Return the D a player uses against one opponent (8.3.1).

    A player rated below 2650 counts a difference beyond +-400 as +-400; from 1 October 2025
    (``exemption``) a player rated 2650 or more uses the real difference.
    """
    difference = own - opponent
    if exemption and own >= CAP_EXEMPT_RATING:
        return difference
    return max(-DIFFERENCE_CAP, min(DIFFERENCE_CAP, difference))


# --- 8.3.3 K-factor ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KFactor:
    """A K-factor with the reason a person can read ("40: junior, born 2011, never 2300+")."""

    value: int
    reason: str

    def __str__(self) -> str:
        return f"{self.value}: {self.reason}"


JUNIOR_MAX_AGE = 18  # 8.3.3


def junior_born_from(year: int) -> int:
    """Return the earliest birth year of a junior in that calendar year (8.3.3: age <= 18)."""
    return year - JUNIOR_MAX_AGE


def is_junior(birth_year: int | None, year: int) -> bool:
    """Tell whether a player born then is a junior in that calendar year (8.3.3)."""
    return birth_year is not None and birth_year >= junior_born_from(year)


# 8.3.3: K by the state on the opening list, each with the reason a reader sees. One rule for
# one player (``k_factor``) and for whole columns (``k_factors``).
K_FOR_GOOD_PEAK = 2400  # K 10 once a rating of 2400 has been published
K_JUNIOR_PEAK_BELOW = 2300  # a junior keeps K 40 while never rated 2300+
K_NEW_PLAYER_GAMES = 30  # K 40 until 30 rated games are completed
# The reasons are ``wording`` templates (translated at the doors) naming one value each.
_K_FOR_GOOD = (10, gettext_noop("published 2400+ (peak %(peak)s), for good"))
_K_JUNIOR = (40, gettext_noop("junior, born %(born)s, never 2300+"))
_K_NEW_PLAYER = (40, gettext_noop("fewer than 30 rated games (%(games)s)"))
_K_ESTABLISHED = (20, gettext_noop("%(games)s rated games, never 2400+"))
_K_CLUB = gettext_noop("club K")


def k_factor(
    *,
    peak_rating: int | None,
    rated_games: int,
    birth_year: int | None,
    year: int,
    club_k: int | None = None,
) -> KFactor:
    """Return the K published for a period, from the state on the list that opens it (8.3.3).

    ``peak_rating`` is the highest rating ever published, ``rated_games`` the rated games
    completed before the period, ``year`` the calendar year of the period start. A club K
    (1-100) replaces FIDE's eligibility when given.
    """
    if club_k is not None:
        return KFactor(club_k, _K_CLUB)
    named: int | None
    if peak_rating is not None and peak_rating >= K_FOR_GOOD_PEAK:
        (value, text), named = _K_FOR_GOOD, peak_rating
    elif is_junior(birth_year, year) and (peak_rating is None or peak_rating < K_JUNIOR_PEAK_BELOW):
        (value, text), named = _K_JUNIOR, birth_year
    elif rated_games < K_NEW_PLAYER_GAMES:
        (value, text), named = _K_NEW_PLAYER, rated_games
    else:
        (value, text), named = _K_ESTABLISHED, rated_games
    return KFactor(value, wording.fill(text, named))


def k_factors(
    *,
    peak_rating: np.ndarray,
    rated_games: np.ndarray,
    birth_year: np.ndarray,
    year: int,
    club_k: int | None = None,
) -> tuple[np.ndarray, list[str]]:
    """``k_factor`` for whole columns (-1 for a missing peak or birth year): the values and
    the reasons, the same as ``k_factor`` gives each player (tests/ratings/test_fide.py).

    A federation's period rates 90,000 players; each reason is written once per distinct
    value it names.
    """
    count = len(rated_games)
    if club_k is not None:
        return club_k_factors(club_k, count)
    kinds = (
        (peak_rating >= K_FOR_GOOD_PEAK, peak_rating, _K_FOR_GOOD),
        (
            (birth_year >= 0)
            & (birth_year >= junior_born_from(year))
            & (peak_rating < K_JUNIOR_PEAK_BELOW),
            birth_year,
            _K_JUNIOR,
        ),
        (rated_games < K_NEW_PLAYER_GAMES, rated_games, _K_NEW_PLAYER),
        (np.ones(count, bool), rated_games, _K_ESTABLISHED),
    )
    return select_k(kinds, count)


def club_k_factors(club_k: int, count: int) -> tuple[np.ndarray, list[str]]:
    """A club K for whole columns: it replaces every K scheme's eligibility."""
    return np.full(count, club_k, np.int64), [_K_CLUB] * count


KindOfK = tuple[np.ndarray, np.ndarray, tuple[int, str]]


def select_k(kinds: Sequence[KindOfK], count: int) -> tuple[np.ndarray, list[str]]:
    """K over whole columns from its kinds in order of precedence, each ``(when, named, (K,
    reason))``: the first kind whose ``when`` holds gives a player's K, and its reason (a
    ``wording`` template) filled with the player's ``named`` value, once per distinct value."""
    kind = np.select([when for when, _, _ in kinds], range(len(kinds)), len(kinds))
    values = np.array([value for _, _, (value, _) in kinds] + [0], np.int64)[kind]
    reasons: list[str] = [""] * count
    for code, (_, named, (_, text)) in enumerate(kinds):
        at = np.flatnonzero(kind == code)
        named_values = named[at].tolist()
        words = {value: wording.fill(text, value) for value in set(named_values)}
        for k, value in zip(at.tolist(), named_values, strict=True):
            reasons[k] = words[value]
    return values, reasons


def k_applied(k: int, games: int) -> int:
    """Return the K applied to every game of a period of ``games`` rated games (700 rule)."""
    if games and k * games > K_CAP_PRODUCT:
        return K_CAP_PRODUCT // games
    return k


# --- 8.3.2, 8.3.4 rounding -----------------------------------------------------------------


def round_units(units: int) -> int:
    """Round an amount in UNIT to a whole number, 0.5 away from zero (+2.5 -> 3, -2.5 -> -3)."""
    magnitude = (abs(units) + UNIT // 2) // UNIT
    return magnitude if units >= 0 else -magnitude


@functools.lru_cache(maxsize=4096)  # a history's lines ask the same few hundred amounts
def units_to_decimal(units: int) -> Decimal:
    """Return an amount in UNIT as a ``Decimal`` with two decimals (exact for FIDE values)."""
    value = Decimal(units).scaleb(-4)
    quantum = Decimal("0.01") if units % 100 == 0 else Decimal("0.0001")
    return value.quantize(quantum)


def round_half_away(value: Fraction | Decimal | int) -> int:
    """Round any exact number to a whole number, half away from zero."""
    magnitude = abs(Fraction(value))
    whole = int(magnitude + Fraction(1, 2))
    return whole if value >= 0 else -whole


# --- 8.1.1 dp table, first ratings and performance -----------------------------------------


def percentage_hundredths(points: Fraction) -> int:
    """Round a fractional score p to whole hundredths, half up (Decision, FIDE.md 6)."""
    return int(points * 100 + Fraction(1, 2))


def dp(p_hundredths: int) -> int:
    """Return dp for p in hundredths (0..100) from table 8.1.1; dp(p) = -dp(1 - p) below .50."""
    if not 0 <= p_hundredths <= 100:
        raise ValueError(f"p must lie between 0 and 100 hundredths, not {p_hundredths}.")
    if p_hundredths >= 50:
        return _DP_BY_P[p_hundredths]
    return -_DP_BY_P[100 - p_hundredths]


def performance_rating(opponents_total: int, games: int, score: int) -> int | None:
    """Return Rp = Ra + dp(p) (8.1.1) from the sum of the opponents' ratings and the score.

    ``score`` is in UNIT. Unlike a first rating, no hypothetical opponents are added. None
    without games. Integer arithmetic only: this runs once per player per period.
    """
    if not games:
        return None
    p = (200 * score + games * UNIT) // (2 * games * UNIT)  # W / n in hundredths, half up
    total = opponents_total + dp(p) * games  # (Ra + dp) x n
    magnitude = (2 * abs(total) + games) // (2 * games)  # half away from zero
    return magnitude if total >= 0 else -magnitude


def _to_decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


@dataclass(frozen=True, slots=True)
class FirstRating:
    """The calculation of 8.2.2 for an unrated player's pool, published or not."""

    games: int
    points: Decimal
    average: Decimal  # Ra, rounded to two decimals for display
    p: int  # hundredths
    dp: int
    rating: int  # Ru, after the 2200 maximum
    published: bool  # Ru >= 1400 (8.2.3)


def first_rating(opponent_ratings: Sequence[int], points: Fraction | Decimal) -> FirstRating | None:
    """Compute a first rating from a pool of games against rated opponents (7.1.4, 8.2).

    Two hypothetical opponents rated 1800, both drawn, are added: Ra = (S + 3600) / (n + 2),
    p = (W + 1) / (n + 2), Ru = Ra + dp(p), at most 2200. Returns None below five games.
    """
    n = len(opponent_ratings)
    if n < FIRST_RATING_MIN_GAMES:
        return None
    # Whole-number arithmetic on numerator and denominator (a federation rates thousands of
    # newcomers a period; Fraction objects cost ten times as much): with W = num / den,
    # p = (W + 1) / (n + 2) to hundredths half up, and Ru = (S + 3600 + dp x (n + 2)) / (n + 2)
    # rounded half away from zero.
    won = Fraction(points)
    num, den = won.numerator, won.denominator
    total, games = sum(opponent_ratings) + 2 * HYPOTHETICAL_OPPONENT, n + 2
    p = (200 * (num + den) + den * games) // (2 * den * games)
    gain = dp(p)
    twice = 2 * (total + gain * games)
    rounded = (abs(twice) + games) // (2 * games)
    rating = min(rounded if twice >= 0 else -rounded, FIRST_RATING_MAX)
    return FirstRating(
        games=n,
        points=_to_decimal(won),
        average=(Decimal(total) / Decimal(games)).quantize(Decimal("0.01")),
        p=p,
        dp=gain,
        rating=rating,
        published=rating >= FLOOR,
    )


# --- section 9: three lists, chosen by the time control -----------------------------------

LIST_STANDARD, LIST_RAPID, LIST_BLITZ = "standard", "rapid", "blitz"
LISTS = (LIST_STANDARD, LIST_RAPID, LIST_BLITZ)
BLITZ_MAX_MINUTES = 10  # blitz: 10 minutes or less for each player
STANDARD_MIN_MINUTES = 60  # standard: 60 minutes or more; rapid lies between
# A standard game is rated only if each player has at least this long, by the higher rating.
STANDARD_MINUTES_BY_RATING = ((2400, 120), (1800, 90), (0, 60))

# Base minutes (1 to 999: three digits, not all zeros) + increment seconds, read in ASCII mode
# (the API's schema states the same pattern).
TIME_CONTROL_PATTERN = r"^\s*(?!0+\b)(\d{1,3})\s*(?:\+\s*(\d{1,3})\s*)?$"
_TIME_CONTROL = re.compile(TIME_CONTROL_PATTERN, re.ASCII)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control as clubs write it: base minutes for the game + increment seconds a move."""

    minutes: int
    increment: int = 0

    def __str__(self) -> str:
        return f"{self.minutes}+{self.increment}"

    @property
    def minutes_for_60_moves(self) -> int:
        """The base time plus 60 times the increment (Laws, appendices A and B), in minutes:
        60 increments of N seconds are N minutes."""
        return self.minutes + self.increment


def parse_time_control(text: str) -> TimeControl:
    """Read ``90+30`` (base minutes + increment seconds) or ``60``; raise ``ValueError``."""
    match = _TIME_CONTROL.match(text)
    if match is None:
        raise ValueError(_NOT_A_TIME_CONTROL % {"text": text})
    return TimeControl(int(match.group(1)), int(match.group(2) or 0))


def parse_time_controls(text: str) -> tuple[TimeControl, TimeControl]:
    """Read the time control of both players (``15+10``), or White's and Black's apart
    (``5+3/3+3``, an odds game); raise ``ValueError``."""
    parts = text.split("/")
    if len(parts) == 2:
        return parse_time_control(parts[0]), parse_time_control(parts[1])
    one = parse_time_control(text)
    return one, one


def unequal_times_message(white: TimeControl, black: TimeControl) -> str:
    """Say that a rapid or blitz game with different times for the players is not rated."""
    return _UNEQUAL_TIMES % {"white": white, "black": black}


_NOT_A_TIME_CONTROL = gettext_noop(
    "'%(text)s' is not a time control; write base minutes + increment seconds, "
    "e.g. 90+30, 15+10 or 3+2."
)
_UNEQUAL_TIMES = gettext_noop(
    "White had %(white)s and Black %(black)s: FIDE does not rate a rapid or blitz game whose "
    "players have different times (Rapid and Blitz regulations 1.2)."
)


def list_of(time_control: TimeControl) -> str:
    """Return the list a game at this time control is rated on (FIDE.md 9)."""
    minutes = time_control.minutes_for_60_moves
    if minutes <= BLITZ_MAX_MINUTES:
        return LIST_BLITZ
    if minutes < STANDARD_MIN_MINUTES:
        return LIST_RAPID
    return LIST_STANDARD


def standard_minutes_needed(ratings: Iterable[int | None]) -> tuple[int, int]:
    """Return the minutes each player needs for a standard game to be rated, and the rating
    from which that applies: 120 when either player is rated 2400+, 90 from 1800, else 60."""
    highest = max((r for r in ratings if r is not None), default=0)
    for threshold, minutes in STANDARD_MINUTES_BY_RATING:
        if highest >= threshold:
            return minutes, threshold
    return STANDARD_MIN_MINUTES, 0


# --- levels, inactivity --------------------------------------------------------------------

LEVELS = (
    (2500, gettext_noop("GM level")),
    (2400, gettext_noop("IM level")),
    (2300, gettext_noop("FM level")),
    (2200, gettext_noop("CM level")),
)


def rating_level(rating: int | None) -> str:
    """Return the display level of a rating ("IM level"), never a title (FIDE.md 7)."""
    if rating is not None:
        for threshold, label in LEVELS:
            if rating >= threshold:
                return label
    return ""


def level(title: str, rating: int | None) -> str:
    """Return a player's real FIDE title, else the level of their rating ("" for neither)."""
    return title or rating_level(rating)


def add_months(day: date, months: int) -> date:
    """Return the same day ``months`` later (or earlier), clamped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    for candidate in range(day.day, 27, -1):
        try:
            return date(year, month, candidate)
        except ValueError:
            continue
    return date(year, month, min(day.day, 28))


def is_inactive(last_rated_on: date | None, on: date) -> bool:
    """Tell whether a rated player with a last rated game then is inactive on a list date (7.3).

    Decision: a player with no rated game recorded in Ladder counts as active (their activity
    before entry is unknown), so a freshly imported list is not hidden from the standings.
    """
    if last_rated_on is None:
        return False
    return last_rated_on <= inactive_cutoff(on)


@functools.lru_cache(maxsize=64)  # asked for every rated player read, mostly about today
def inactive_cutoff(on: date) -> date:
    """Return the date on or before which a last rated game makes a player inactive (7.3)."""
    return add_months(on, -INACTIVE_AFTER_MONTHS)


# --- a single game and a whole event (calculator, explanations) ----------------------------


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game seen from one side: every number FIDE prints on a rating card."""

    opponent_rating: int
    score: Decimal
    difference: int  # real D
    difference_used: int  # after the 400-point rule
    expected: Decimal  # PD
    delta: Decimal  # dR = score - PD


def game_line(
    own: int,
    opponent: int,
    score_units: int,
    *,
    method: str = METHOD_FIDE,
    apply_cap: bool = True,
    exemption: bool = True,
) -> tuple[GameLine, int]:
    """Explain one game; return the line and dR in UNIT."""
    used = difference_used(own, opponent, exemption=exemption) if apply_cap else own - opponent
    if method == METHOD_ELO:
        pd = elo_expected_units(own, own - used)
    else:
        pd = expected_units(used)
    delta = score_units - pd
    line = GameLine(
        opponent_rating=opponent,
        score=units_to_decimal(score_units),
        difference=own - opponent,
        difference_used=used,
        expected=units_to_decimal(pd),
        delta=units_to_decimal(delta),
    )
    return line, delta


@dataclass(frozen=True, slots=True)
class EventCalculation:
    """A whole event (or period) for one player: the lines, the sums and the one rounding."""

    lines: tuple[GameLine, ...]
    k: int
    k_applied: int
    score: Decimal
    expected: Decimal
    delta: Decimal  # sum of dR
    change_exact: Decimal  # K x sum dR
    change: int  # rounded once
    rating_after: int


def event_calculation(
    own: int,
    games: Iterable[tuple[int, int]],
    *,
    k: int,
    method: str = METHOD_FIDE,
    apply_cap: bool = True,
    apply_700: bool = True,
    exemption: bool = True,
) -> EventCalculation:
    """Rate ``own`` over games given as (opponent rating, score in UNIT), one rounding in all."""
    lines = []
    total_delta = total_expected = total_score = 0
    for opponent, score_units in games:
        line, delta = game_line(
            own, opponent, score_units, method=method, apply_cap=apply_cap, exemption=exemption
        )
        lines.append(line)
        total_delta += delta
        total_score += score_units
        total_expected += score_units - delta
    applied = k_applied(k, len(lines)) if apply_700 else k
    exact = applied * total_delta
    change = round_units(exact)
    return EventCalculation(
        lines=tuple(lines),
        k=k,
        k_applied=applied,
        score=units_to_decimal(total_score),
        expected=units_to_decimal(total_expected),
        delta=units_to_decimal(total_delta),
        change_exact=units_to_decimal(exact),
        change=change,
        rating_after=own + change,
    )


def outcomes(own: int, opponent: int, *, k: int, **options: object) -> dict[str, EventCalculation]:
    """Return what a win, a draw and a loss against one opponent would do."""
    return {
        name: event_calculation(own, [(opponent, units)], k=k, **options)  # type: ignore[arg-type]
        for name, units in (("win", UNIT), ("draw", UNIT // 2), ("loss", 0))
    }
