"""FIDE's rating rules through the years, as effective-dated data (FIDE.md 9, 9a and 10.2).

Pure data and small functions: no Django, no settings, no clock. A rule set is chosen by a
tournament's start date (FIDE.md 10.1) and a list (standard, rapid, blitz); every rule it holds
names its article, the date it took effect and, where FIDE.md says a fact is not established,
that the value is Ladder's choice. Where a rule is the one in force today, the arithmetic is
``ratings.rules.fide``'s own (one rule, one home); this module adds only what differed.

Articles are cited as today's regulations number the rule that covers the subject (standard:
FIDE Rating Regulations of 1 March 2024; rapid and blitz: "R&B"); before 1 July 2009 the rules
stood in handbook chapter B.02.10. The older texts are summarised in FIDE.md 10.2, not quoted.

Choices where FIDE.md 10.2 establishes no fact (each one a setting in ``EraSettings`` or marked
``established=False`` so that a "Rules in force" page can say so):
- the floor before 1 July 2009 (FIDE.md: lowered in steps, dates not established): 1400 for
  every date before then, a setting that a club replaying older events should check;
- the day K 30 for new players began in 2011: 1 July 2011 (FIDE's usual date);
- the day the 700 rule entered the standard regulations: 1 July 2014, with K 40;
- the first-rating method before 2022 (the newcomer bonus of 2011-2014 is not established):
  named "performance" (Ra + dp(p), FIDE.md 6 without the hypothetical opponents);
- juniors from 2014 to 2021 ("until their 18th birthday"): with only a birth year known, a
  junior is a player whose calendar year of the period start minus birth year is 17 or less;
- before 2014, fewer than 30 games gives the new-player K even to a player once rated 2400+
  (K 10 then also needed 30 games);
- rapid and blitz: rated from 1 January 2012 (games of the first lists); K 20 for everyone
  until 30 September 2022; the 400-point rule in every game until they follow the standard
  rules on 1 October 2022 (so once per tournament until 29 February 2024); floor 1000 (the
  first lists') until 1 March 2024, then 1400; their first-rating method follows the standard
  list's on the same date, and the one-off rise of 1 March 2024 applies to them as well (they
  follow the standard rules since October 2022).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from ratings.rules import fide, wording
from ratings.rules.wording import gettext_noop

T = TypeVar("T")

OLDEST = date.min  # "since" of the rules in force before the first change FIDE.md dates
FIRST_DATED_CHANGE = date(2009, 7, 1)  # the 400-point rule and floor 1200
RAPID_BLITZ_FROM = date(2012, 1, 1)  # games rated on the first rapid and blitz lists (July 2012)
RAPID_BLITZ_FOLLOW_STANDARD = date(2022, 10, 1)  # FIDE.md 9: the standard list's rules since
RAPID_BLITZ_LISTS = (fide.LIST_RAPID, fide.LIST_BLITZ)

# First-rating methods, by name (FIDE.md 6 and 10.2).
FIRST_RATING_PERFORMANCE = "performance"  # Ra + dp(p); before 2022 (Ladder's choice)
FIRST_RATING_AVERAGE_PLUS_20 = "average_plus_20"  # 1 Jan 2022
FIRST_RATING_HYPOTHETICAL_1800 = "hypothetical_1800"  # 1 Mar 2024: ``fide.first_rating``


class NoRuleSet(ValueError):
    """No rule set exists for that list on that day."""


@dataclass(frozen=True, slots=True)
class Rule(Generic[T]):
    """One rule's value with the article that holds it and the day it took effect."""

    value: T
    since: date
    article: str
    text: str
    established: bool = True  # False: FIDE.md does not establish it; the value is Ladder's

    @property
    def since_text(self) -> str:
        """Say from when the rule applies ("1 Jul 2009", or "before 1 Jul 2009")."""
        return before(FIRST_DATED_CHANGE) if self.since == OLDEST else _day(self.since)


def _day(on: date) -> str:
    return f"{on.day} {on:%b %Y}"


_BEFORE = gettext_noop("before %(day)s")


def before(on: date) -> str:
    """Say "before 1 Jul 2009" (a ``wording`` template: the doors translate it)."""
    return _BEFORE % {"day": _day(on)}


# --- K (8.3.3) -----------------------------------------------------------------------------


class KRule(Protocol):
    """A K-factor rule: the inputs and output of ``fide.k_factor``."""

    def k_factor(
        self,
        *,
        peak_rating: int | None,
        rated_games: int,
        birth_year: int | None,
        year: int,
        club_k: int | None = None,
    ) -> fide.KFactor: ...

    def k_factors(
        self,
        *,
        peak_rating: np.ndarray,
        rated_games: np.ndarray,
        birth_year: np.ndarray,
        year: int,
        club_k: int | None = None,
    ) -> tuple[np.ndarray, list[str]]: ...


@dataclass(frozen=True, slots=True)
class TodaysK:
    """K 40 / 20 / 10 with juniors to the end of the year they turn 18 (8.3.3, since 2022)."""

    def k_factor(
        self,
        *,
        peak_rating: int | None,
        rated_games: int,
        birth_year: int | None,
        year: int,
        club_k: int | None = None,
    ) -> fide.KFactor:
        """Return ``fide.k_factor``: today's rule is written once, there."""
        return fide.k_factor(
            peak_rating=peak_rating,
            rated_games=rated_games,
            birth_year=birth_year,
            year=year,
            club_k=club_k,
        )

    def k_factors(
        self,
        *,
        peak_rating: np.ndarray,
        rated_games: np.ndarray,
        birth_year: np.ndarray,
        year: int,
        club_k: int | None = None,
    ) -> tuple[np.ndarray, list[str]]:
        """Return ``fide.k_factors``: ``k_factor`` over whole columns (-1 for none)."""
        return fide.k_factors(
            peak_rating=peak_rating,
            rated_games=rated_games,
            birth_year=birth_year,
            year=year,
            club_k=club_k,
        )


def _club_k(club_k: int) -> fide.KFactor:
    """Return a club K as ``fide.k_factor`` words it (it replaces FIDE's eligibility)."""
    return fide.k_factor(peak_rating=None, rated_games=0, birth_year=None, year=0, club_k=club_k)


@dataclass(frozen=True, slots=True)
class TieredK:
    """K by games played and peak rating as before 2022: new player / established / 2400+.

    ``junior_max_age`` (None: no junior rule) is the oldest calendar-year age that keeps K
    ``new_player`` while never rated 2300+. ``new_player_first``: fewer than 30 games wins over
    a 2400+ peak (before 2014).
    """

    new_player: int
    established: int
    for_good: int
    junior_max_age: int | None = None
    new_player_first: bool = False

    def k_factor(
        self,
        *,
        peak_rating: int | None,
        rated_games: int,
        birth_year: int | None,
        year: int,
        club_k: int | None = None,
    ) -> fide.KFactor:
        """Return the K of this scheme for the state on the list that opens the period."""
        if club_k is not None:
            return _club_k(club_k)
        new = rated_games < fide.K_NEW_PLAYER_GAMES
        if new and self.new_player_first:
            return fide.KFactor(self.new_player, wording.fill(fide._K_NEW_PLAYER[1], rated_games))
        if peak_rating is not None and peak_rating >= fide.K_FOR_GOOD_PEAK:
            return fide.KFactor(self.for_good, wording.fill(fide._K_FOR_GOOD[1], peak_rating))
        if (
            self.junior_max_age is not None
            and birth_year is not None
            and year - birth_year <= self.junior_max_age
            and (peak_rating is None or peak_rating < fide.K_JUNIOR_PEAK_BELOW)
        ):
            return fide.KFactor(self.new_player, wording.fill(fide._K_JUNIOR[1], birth_year))
        if new:
            return fide.KFactor(self.new_player, wording.fill(fide._K_NEW_PLAYER[1], rated_games))
        return fide.KFactor(self.established, wording.fill(fide._K_ESTABLISHED[1], rated_games))

    def k_factors(
        self,
        *,
        peak_rating: np.ndarray,
        rated_games: np.ndarray,
        birth_year: np.ndarray,
        year: int,
        club_k: int | None = None,
    ) -> tuple[np.ndarray, list[str]]:
        """``k_factor`` over whole columns (-1 for a missing peak or birth year), the same
        K and reason for each player (tests/ratings/test_eras.py)."""
        count = len(rated_games)
        if club_k is not None:
            return fide.club_k_factors(club_k, count)
        new = rated_games < fide.K_NEW_PLAYER_GAMES
        never = np.zeros(count, bool)
        junior = never
        if self.junior_max_age is not None:
            junior = (
                (birth_year >= 0)
                & (year - birth_year <= self.junior_max_age)
                & (peak_rating < fide.K_JUNIOR_PEAK_BELOW)
            )
        kinds: list[fide.KindOfK] = [
            (new if self.new_player_first else never, rated_games,
             (self.new_player, fide._K_NEW_PLAYER[1])),
            (peak_rating >= fide.K_FOR_GOOD_PEAK, peak_rating,
             (self.for_good, fide._K_FOR_GOOD[1])),
            (junior, birth_year, (self.new_player, fide._K_JUNIOR[1])),
            (new, rated_games, (self.new_player, fide._K_NEW_PLAYER[1])),
            (np.ones(count, bool), rated_games, (self.established, fide._K_ESTABLISHED[1])),
        ]  # fmt: skip
        return fide.select_k(kinds, count)


@dataclass(frozen=True, slots=True)
class FlatK:
    """One K for everyone (rapid and blitz, 2012 to September 2022)."""

    value: int

    def k_factor(
        self,
        *,
        peak_rating: int | None,
        rated_games: int,
        birth_year: int | None,
        year: int,
        club_k: int | None = None,
    ) -> fide.KFactor:
        """Return the one K (a club K still replaces it)."""
        if club_k is not None:
            return _club_k(club_k)
        return fide.KFactor(self.value, _FLAT_K)

    def k_factors(
        self,
        *,
        peak_rating: np.ndarray,
        rated_games: np.ndarray,
        birth_year: np.ndarray,
        year: int,
        club_k: int | None = None,
    ) -> tuple[np.ndarray, list[str]]:
        """The one K over whole columns (a club K still replaces it)."""
        count = len(rated_games)
        if club_k is not None:
            return fide.club_k_factors(club_k, count)
        return np.full(count, self.value, np.int64), [_FLAT_K] * count


_FLAT_K = gettext_noop("the same K for every player on this list")


# --- the difference cap (8.3.1) and the 600-point rule (R&B 7.3.1) -------------------------


@dataclass(frozen=True, slots=True)
class DifferenceCap:
    """A rating difference beyond ``points`` counts as ``points``.

    ``once_per_tournament``: only one game per tournament is upgraded (2022-24);
    ``exempt_from``: players rated this or more use the real difference (None: nobody).
    """

    points: int
    once_per_tournament: bool = False
    exempt_from: int | None = None


@dataclass(frozen=True, slots=True)
class SixHundredRule:
    """A game ``gap`` or more apart is not rated when either player is rated above ``above``."""

    gap: int = 600
    above: int = 2600

    def game_rated(self, own: int, opponent: int) -> bool:
        """Tell whether a game between these two ratings is rated under this rule."""
        return not (abs(own - opponent) >= self.gap and max(own, opponent) > self.above)


# --- a rule set ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleLine:
    """One line of "Rules in force on ...": what the rule says, where, and since when."""

    name: str
    text: str
    article: str
    since: str
    established: bool


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules one list used for tournaments starting on one day."""

    rating_list: str
    k: Rule[KRule]
    seven_hundred: Rule[bool]  # 8.3.3: K x n <= 700
    cap: Rule[DifferenceCap]
    six_hundred: Rule[SixHundredRule | None]
    floor: Rule[int]  # 7.2.1: the lowest published rating
    first_rating: Rule[str]
    seeded_from_standard: Rule[bool]  # R&B 7.2.1

    @property
    def effective_from(self) -> date:
        """Return the day the newest of its rules took effect (``OLDEST`` for the first set)."""
        return max(rule.since for rule in self.rules())

    def rules(self) -> tuple[Rule[Any], ...]:
        """Return every rule it holds, in declaration order."""
        return tuple(
            getattr(self, field.name) for field in fields(self) if field.name != "rating_list"
        )

    def k_factor(
        self,
        *,
        peak_rating: int | None,
        rated_games: int,
        birth_year: int | None,
        year: int,
        club_k: int | None = None,
    ) -> fide.KFactor:
        """Return the K published for a period, as ``fide.k_factor`` does for today's rules."""
        return self.k.value.k_factor(
            peak_rating=peak_rating,
            rated_games=rated_games,
            birth_year=birth_year,
            year=year,
            club_k=club_k,
        )

    def k_applied(self, k: int, games: int) -> int:
        """Return the K applied to each of a period's ``games`` (the 700 rule, when in force)."""
        return fide.k_applied(k, games) if self.seven_hundred.value else k

    @property
    def difference_cap(self) -> int:
        """Return the points beyond which a difference is capped (8.3.1)."""
        return self.cap.value.points

    @property
    def cap_once_per_tournament(self) -> bool:
        """Tell whether the cap upgrades only one game per tournament (2022-24)."""
        return self.cap.value.once_per_tournament

    @property
    def cap_exemption(self) -> bool:
        """Tell whether players rated 2650+ use the real difference (standard, Oct 2025)."""
        return self.cap.value.exempt_from is not None

    def difference_used(self, own: int, opponent: int) -> int:
        """Return the D a player uses in a game the cap applies to (8.3.1)."""
        cap = self.cap.value
        if cap.points == fide.DIFFERENCE_CAP:
            return fide.difference_used(own, opponent, exemption=self.cap_exemption)
        return max(-cap.points, min(cap.points, own - opponent))

    def game_rated(self, own: int, opponent: int) -> bool:
        """Tell whether the 600-point rule (when in force) lets a game be rated."""
        rule = self.six_hundred.value
        return rule is None or rule.game_rated(own, opponent)

    def describe(self) -> tuple[RuleLine, ...]:
        """List each rule with its article and the day it took effect."""
        return tuple(
            RuleLine(field.name, rule.text, rule.article, rule.since_text, rule.established)
            for field, rule in zip(
                (f for f in fields(self) if f.name != "rating_list"), self.rules(), strict=True
            )
        )


# --- the eras (FIDE.md 10.2) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EraSettings:
    """The dates and values FIDE.md leaves open: Ladder's defaults, each one a setting."""

    k30_from: date = date(2011, 7, 1)  # the day in 2011 is not confirmed
    standard_700_from: date = date(2014, 7, 1)  # the day is not established
    floor_before_2009: int = 1400  # lowered in steps before 2009, dates not established

    def __post_init__(self) -> None:
        if not FIRST_DATED_CHANGE < self.k30_from < date(2014, 7, 1):
            raise ValueError(
                f"K 30 for new players began between 1 July 2009 and 1 July 2014, "
                f"not on {self.k30_from:%d %B %Y}."
            )


_K_2009_TEXT = gettext_noop(
    "K %(new)s (fewer than 30 games) / %(established)s / 10 (once 2400 reached, for good)"
)
_CAP_TEXT = gettext_noop(
    "a rating difference beyond %(points)s counts as %(points)s (%(points)s-point rule)"
)


def _standard(settings: EraSettings) -> dict[str, tuple[Rule[Any], ...]]:
    """Return the standard list's rules, each a timeline sorted by date (FIDE.md 10.2)."""
    k2009, k2011 = (
        TieredK(25, 15, 10, new_player_first=True),
        TieredK(30, 15, 10, new_player_first=True),
    )
    return {
        "k": (
            Rule(k2009, OLDEST, "B.02.10", _K_2009_TEXT % {"new": 25, "established": 15}),
            Rule(
                k2011,
                settings.k30_from,
                "8.3.3",
                _K_2009_TEXT % {"new": 30, "established": 15},
                False,
            ),  # fmt: skip
            Rule(TieredK(40, 20, 10, junior_max_age=17), date(2014, 7, 1), "8.3.3", _K_2014_TEXT),
            Rule(TodaysK(), date(2022, 1, 1), "8.3.3", _K_TODAY_TEXT),
        ),
        "seven_hundred": (
            Rule(False, OLDEST, "B.02.10", gettext_noop("no limit on K x games")),
            Rule(True, settings.standard_700_from, "8.3.3", _700_TEXT, False),
        ),
        "cap": (
            Rule(DifferenceCap(350), OLDEST, "B.02.10", _cap_text(350)),
            Rule(DifferenceCap(400), FIRST_DATED_CHANGE, "8.3.1", _cap_text(400)),
            Rule(_ONCE, date(2022, 1, 1), "8.3.1", _ONCE_TEXT),
            Rule(DifferenceCap(400), date(2024, 3, 1), "8.3.1", _cap_text(400)),
            Rule(_EXEMPT, fide.CAP_EXEMPTION_FROM, "8.3.1", _EXEMPT_TEXT),
        ),
        "six_hundred": (
            Rule(None, OLDEST, "R&B 7.3.1", gettext_noop("no 600-point rule on this list")),
        ),
        "floor": (
            _floor(settings.floor_before_2009, OLDEST, "B.02.10", established=False),
            _floor(1200, FIRST_DATED_CHANGE, "7.2.1"),
            _floor(1000, date(2012, 7, 1), "7.2.1"),
            _floor(fide.FLOOR, date(2024, 3, 1), "7.2.1"),
        ),
        "first_rating": _FIRST_RATING,
        "seeded_from_standard": (
            Rule(False, OLDEST, "R&B 7.2.1", gettext_noop("this is the standard list")),
        ),
    }


def _rapid_blitz() -> dict[str, tuple[Rule[Any], ...]]:
    """Return the rapid and blitz lists' rules from 1 January 2012 (FIDE.md 9, 9a, 10.2)."""
    return {
        "k": (
            Rule(FlatK(20), RAPID_BLITZ_FROM, "R&B (2012)", gettext_noop("K 20 for every player")),
            Rule(TodaysK(), RAPID_BLITZ_FOLLOW_STANDARD, "8.3.3", _K_TODAY_THIS_LIST_TEXT),
        ),
        "seven_hundred": (Rule(True, RAPID_BLITZ_FROM, "R&B (2012)", _700_TEXT),),
        "cap": (
            Rule(DifferenceCap(400), RAPID_BLITZ_FROM, "R&B 7.3.1", _cap_text(400), False),
            Rule(_ONCE, RAPID_BLITZ_FOLLOW_STANDARD, "R&B 7.3.1", _ONCE_TEXT, False),
            Rule(DifferenceCap(400), date(2024, 3, 1), "R&B 7.3.1", _cap_text(400)),
        ),
        "six_hundred": (
            Rule(None, RAPID_BLITZ_FROM, "R&B 7.3.1", gettext_noop("no 600-point rule")),
            Rule(SixHundredRule(), date(2024, 12, 1), "R&B 7.3.1", _600_TEXT),
        ),
        "floor": (
            _floor(1000, RAPID_BLITZ_FROM, "7.2.1", established=False),
            _floor(fide.FLOOR, date(2024, 3, 1), "7.2.1"),
        ),
        "first_rating": _from(_FIRST_RATING, RAPID_BLITZ_FROM, RAPID_BLITZ_FOLLOW_STANDARD),
        "seeded_from_standard": (Rule(True, RAPID_BLITZ_FROM, "R&B 7.2.1", _SEED_TEXT),),
    }


def _floor(value: int, since: date, article: str, *, established: bool = True) -> Rule[int]:
    return Rule(value, since, article, _FLOOR_TEXT % {"floor": value}, established)


_FLOOR_TEXT = gettext_noop(
    "floor %(floor)s: a rating below it is not published; the player is unrated again"
)


def _cap_text(points: int) -> str:
    return _CAP_TEXT % {"points": points}


def _from(timeline: tuple[Rule[Any], ...], start: date, known: date) -> tuple[Rule[Any], ...]:
    """Return the standard list's timeline for a list that begins on ``start``.

    The rule in force on ``start`` begins there. Every rule before ``known`` (the day the list
    is known to follow the standard rules) is marked ``established=False``: that it applied to
    this list is Ladder's reading, not a fact FIDE.md states.
    """
    at = bisect.bisect_right(timeline, start, key=lambda rule: rule.since) - 1
    carried = (dataclasses.replace(timeline[at], since=start), *timeline[at + 1 :])
    return tuple(
        rule if rule.since >= known else dataclasses.replace(rule, established=False)
        for rule in carried
    )


_K_2014_TEXT = gettext_noop(
    "K 40 (fewer than 30 games; juniors under 18 while never 2300+) / 20 / 10 "
    "(once 2400 published, for good)"
)
_K_TODAY_TEXT = gettext_noop(
    "K 40 (fewer than 30 games; juniors to the end of the year they turn 18 while never "
    "2300+) / 20 / 10 (once 2400 published, for good)"
)
_K_TODAY_THIS_LIST_TEXT = gettext_noop(
    "K 40 (fewer than 30 games; juniors to the end of the year they turn 18 while never "
    "2300+) / 20 / 10 (once 2400 published, for good) (this list)"
)
_700_TEXT = gettext_noop("K x n <= 700: with n games in a period K is cut to floor(700 / n)")
_ONCE = DifferenceCap(400, once_per_tournament=True)
_ONCE_TEXT = gettext_noop(
    "a rating difference beyond %(points)s counts as %(points)s (%(points)s-point rule) in only "
    "one game per tournament, the largest gap"
) % {"points": 400}
_EXEMPT = DifferenceCap(400, exempt_from=fide.CAP_EXEMPT_RATING)
_EXEMPT_TEXT = gettext_noop(
    "a rating difference beyond %(points)s counts as %(points)s (%(points)s-point rule); a "
    "player rated 2650+ uses the real difference"
) % {"points": 400}
_600_TEXT = gettext_noop(
    "a game 600+ points apart is not rated when either player is rated above 2600"
)
_SEED_TEXT = gettext_noop(
    "an unrated player with a standard rating is rated with it (considered rated)"
)
_FIRST_RATING = (
    Rule(
        FIRST_RATING_PERFORMANCE,
        OLDEST,
        "8.2",
        gettext_noop("average of rated opponents + dp(p), the performance"),
        established=False,
    ),
    Rule(
        FIRST_RATING_AVERAGE_PLUS_20,
        date(2022, 1, 1),
        "8.2",
        gettext_noop(
            "5 games against rated opponents; average of rated opponents + 20 per half point "
            "above 50 % (+ dp below 50 %)"
        ),
    ),
    Rule(
        FIRST_RATING_HYPOTHETICAL_1800,
        date(2024, 3, 1),
        "7.1.4, 8.2",
        gettext_noop(
            "two hypothetical 1800 opponents, both drawn; at most 2200, over at most 26 months"
        ),
    ),
)


@functools.cache
def _timelines(rating_list: str, settings: EraSettings) -> dict[str, tuple[Rule[Any], ...]]:
    if rating_list == fide.LIST_STANDARD:
        return _standard(settings)
    if rating_list in RAPID_BLITZ_LISTS:
        return _rapid_blitz()
    raise NoRuleSet(_not_a_list(rating_list))


_NOT_A_LIST = gettext_noop("'%(list)s' is not a rating list; choose one of %(lists)s.")
_NO_RULES_YET = gettext_noop(
    "FIDE's %(list)s list rates games from %(first)s; there are no %(list)s rules for %(day)s."
)


def _not_a_list(rating_list: str) -> str:
    return _NOT_A_LIST % {"list": rating_list, "lists": ", ".join(fide.LISTS)}


def _long_day(on: date) -> str:
    return f"{on.day} {on:%B %Y}"


def rule_set(on: date, rating_list: str, settings: EraSettings = EraSettings()) -> RuleSet:  # noqa: B008 - frozen
    """Return the rules for a tournament starting on ``on`` on that list (FIDE.md 10.1, 10.2)."""
    timelines = _timelines(rating_list, settings)
    chosen: dict[str, Rule[Any]] = {}
    for name, timeline in timelines.items():
        at = bisect.bisect_right(timeline, on, key=lambda rule: rule.since)
        if at == 0:
            first = timeline[0].since
            raise NoRuleSet(
                _NO_RULES_YET
                % {"list": rating_list, "first": _long_day(first), "day": _long_day(on)}
            )
        chosen[name] = timeline[at - 1]
    return RuleSet(rating_list=rating_list, **chosen)


def effective_dates(rating_list: str, settings: EraSettings = EraSettings()) -> tuple[date, ...]:  # noqa: B008 - frozen
    """Return every day a rule set of that list begins, in order (``OLDEST`` for the first)."""
    timelines = _timelines(rating_list, settings)
    return tuple(sorted({rule.since for timeline in timelines.values() for rule in timeline}))


# --- one-off adjustments (FIDE.md 10.2) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingAdjustment:
    """A one-off change of published ratings on a day, as a pure function of the rating.

    ``change`` takes the rating on the list and the player's standard rating (None when
    unrated or not needed) and returns the new rating. It applies to the ratings after the
    last period before ``on``, before any tournament starting on or after ``on`` is rated.
    """

    on: date
    lists: tuple[str, ...]
    reason: str
    article: str
    change: Callable[[int, int | None], int]
    uses_standard: bool = False

    def new_rating(self, rating: int, *, standard: int | None = None) -> int:
        """Return the rating after the adjustment."""
        return self.change(rating, standard)


COMPRESSION_BELOW = 2000
COMPRESSION_SHARE = Fraction(2, 5)  # 0.4 x (2000 - rating)
RAPID_BLITZ_GAP = 100


@functools.lru_cache(maxsize=4096)
def raise_below_2000(rating: int, standard: int | None = None) -> int:
    """Raise a rating below 2000 by 0.4 x (2000 - rating): 1000 -> 1400, 1600 -> 1760.

    FIDE.md gives no rounding; 0.4 x a whole number is never a half, so rounding to the nearest
    whole number (``fide.round_half_away``, half up for these positive amounts) is exact.
    Kept for each rating met: a replay raises a whole list's players on the day.
    """
    if rating >= COMPRESSION_BELOW:
        return rating
    return rating + fide.round_half_away(COMPRESSION_SHARE * (COMPRESSION_BELOW - rating))


def raise_to_standard_less_100(rating: int, standard: int | None = None) -> int:
    """Raise a rapid or blitz rating more than 100 below the standard one to standard - 100."""
    if standard is None:
        return rating
    return max(rating, standard - RAPID_BLITZ_GAP)


ADJUSTMENTS = (
    RatingAdjustment(
        on=date(2022, 10, 1),
        lists=RAPID_BLITZ_LISTS,
        reason=gettext_noop(
            "Rapid and blitz ratings more than 100 below the player's standard rating are "
            "raised to the standard rating - 100."
        ),
        article="R&B regulations of 1 October 2022, one-off (FIDE.md 10.2)",
        change=raise_to_standard_less_100,
        uses_standard=True,
    ),
    RatingAdjustment(
        on=date(2024, 3, 1),
        lists=fide.LISTS,
        reason=gettext_noop(
            "Every rating below 2000 is raised by 0.4 x (2000 - rating), after February "
            "2024's games."
        ),
        article="Rating regulations of 1 March 2024, one-off (FIDE.md 10.2)",
        change=raise_below_2000,
    ),
)


def adjustments_between(start: date, end: date, rating_list: str) -> tuple[RatingAdjustment, ...]:
    """Return the one-off adjustments of that list dated from ``start`` to ``end``, inclusive.

    Both ends count, as a rating period's do, so consecutive periods see each adjustment once.
    """
    if rating_list not in fide.LISTS:
        raise NoRuleSet(_not_a_list(rating_list))
    return tuple(a for a in ADJUSTMENTS if start <= a.on <= end and rating_list in a.lists)


def adjustments_due(
    end: date, next_end: date | None, rating_list: str
) -> tuple[RatingAdjustment, ...]:
    """The one-off adjustments of that list made to the list closing a period that ends on
    ``end`` (``next_end``: the end of the period after it, None when there is none yet).

    Decision (FIDE.md 10.1, 10.2): an adjustment FIDE dates ``on`` changes the list in force on
    that day, the one closing the last period that ends before it: with monthly periods, the
    list closing February 2024 (FIDE's list of 1 March 2024) carries the rise of 1 March 2024,
    applied to the ratings after February's games, before any tournament starting in March.
    """
    return tuple(
        a
        for a in ADJUSTMENTS
        if rating_list in a.lists and end < a.on and (next_end is None or next_end >= a.on)
    )


_ADJUSTMENT_REASON = gettext_noop("%(reason)s — %(article)s")


def adjustment_reason(on: date, rating_list: str) -> str:
    """The reason and rule of the adjustment of that list FIDE dates ``on`` ("" for none)."""
    for a in ADJUSTMENTS:
        if a.on == on and rating_list in a.lists:
            return _ADJUSTMENT_REASON % {"reason": a.reason, "article": a.article}
    return ""


def adjusted_rating(
    adjustments: tuple[RatingAdjustment, ...], rating: int, standard: int | None
) -> int:
    """A rating after these adjustments, in date order."""
    for adjustment in adjustments:
        rating = adjustment.new_rating(rating, standard=standard)
    return rating


# --- the rule set a club rates with (LADDER_RULES) -----------------------------------------

RULES_BY_DATE = "by-date"  # each tournament by its start, each period by its start (default)
RULES_CURRENT = "current"  # today's rules for everything


def parse_rules_setting(value: str) -> date | None:
    """Read ``LADDER_RULES`` (or a simulation's rules): None for ``by-date``, else the day
    whose rule set rates everything (``current``: today's newest set; a date, YYYY-MM-DD; a
    month, YYYY-MM, read as its first day). Raise ``ValueError`` with a sentence for anything
    else."""
    text = value.strip().lower()
    if text in ("", RULES_BY_DATE):
        return None
    if text == RULES_CURRENT:
        return date.max
    try:
        return date.fromisoformat(f"{text}-01" if len(text) == 7 else text)
    except ValueError:
        raise ValueError(
            _NOT_RULES
            % {"value": value.strip(), "by_date": RULES_BY_DATE, "current": RULES_CURRENT}
        ) from None


_NOT_RULES = gettext_noop(
    "'%(value)s' is neither '%(by_date)s', '%(current)s' nor a day (YYYY-MM-DD) or a month "
    "(YYYY-MM, its first day) naming the rule set in force then."
)


def rules_for(on: date, rating_list: str, fixed: date | None = None) -> RuleSet:
    """The rule set that rates a tournament starting (or a period opening) on ``on``: the one
    in force then, or the ``fixed`` day's for a club that rates its whole history alike. A
    rapid or blitz game from before FIDE's first lists of 2012 gets those lists' first rules
    (Ladder's choice: FIDE rated none)."""
    day = fixed if fixed is not None else on
    try:
        return rule_set(day, rating_list)
    except NoRuleSet:
        if rating_list not in RAPID_BLITZ_LISTS:
            raise
        return rule_set(RAPID_BLITZ_FROM, rating_list)


def with_parameters(rules: RuleSet, *, cap: int | None = None, floor: int | None = None) -> RuleSet:
    """The rule set with a changed difference cap or floor (a simulation's "what if"): the
    changed rule names no article, since no regulation holds it."""
    changed: dict[str, Rule[Any]] = {}
    if cap is not None:
        value = dataclasses.replace(rules.cap.value, points=cap)
        changed["cap"] = Rule(value, rules.cap.since, "simulated", _cap_text(cap), False)
    if floor is not None:
        changed["floor"] = dataclasses.replace(
            _floor(floor, rules.floor.since, "simulated", established=False)
        )
    if not changed:
        return rules
    return dataclasses.replace(
        rules, cap=changed.get("cap", rules.cap), floor=changed.get("floor", rules.floor)
    )


def first_rating(
    method: str, opponent_ratings: list[int], points: Fraction, floor: int
) -> fide.FirstRating | None:
    """A first rating by the method of the rule set (FIDE.md 6 and 10.2), published when it
    reaches ``floor``; None below five games against rated opponents.

    - ``hypothetical_1800`` (1 March 2024): ``fide.first_rating``;
    - ``average_plus_20`` (1 January 2022): the rated opponents' average Ra, plus 20 a half
      point above 50 %, or plus dp(p) below it;
    - ``performance`` (before 2022, Ladder's choice where FIDE.md establishes no formula):
      Ra + dp(p).
    """
    if method == FIRST_RATING_HYPOTHETICAL_1800:
        found = fide.first_rating(opponent_ratings, points)
        if found is None:
            return None
        return dataclasses.replace(found, published=found.rating >= floor)
    n = len(opponent_ratings)
    if n < fide.FIRST_RATING_MIN_GAMES:
        return None
    average = Fraction(sum(opponent_ratings), n)
    p = fide.percentage_hundredths(points / n)
    half = Fraction(n, 2)
    if method == FIRST_RATING_AVERAGE_PLUS_20 and points >= half:
        gain = int(40 * (points - half))  # 20 a half point above 50 %
    else:
        gain = fide.dp(p)
    rating = fide.round_half_away(average + gain)
    return fide.FirstRating(
        games=n,
        points=fide.units_to_decimal(int(points * fide.UNIT)),
        average=(Decimal(average.numerator) / Decimal(average.denominator)).quantize(
            Decimal("0.01")
        ),
        p=p,
        dp=gain,
        rating=rating,
        published=rating >= floor,
    )
