"""The calculator's extras around ``ratings.rules.fide``: the rules each method applies by default,
the K helper, the opponent's side, levels and the expected-score table at round gaps.

Pure functions only (no Django, no settings, no clock), so the page and the API give the same
numbers. Classic mode is the calculators people know: the logistic formula with no 400-point
rule and no 700 rule; FIDE mode keeps FIDE's rules (FIDE.md 1-3).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ratings.rules import fide
from ratings.rules.wording import gettext_noop

ROUND_GAPS = (0, 50, 100, 150, 200, 250, 300, 400, 500, 600, 700, 800)
K_ARTICLE = "FIDE Rating Regulations, article 8.3.3"

# --- the options every door offers (the page's form and the API read them here) ---------------

METHOD_LABELS = {
    fide.METHOD_FIDE: gettext_noop("FIDE table (8.1.2)"),
    fide.METHOD_ELO: gettext_noop("Classic Elo formula"),
}
# Any K a club (setting LADDER_CLUB_K) or a calculation may use: FIDE's own are 40, 20 and 10
# (8.3.3), and many club and online calculators use 32. Here, not beside the models, because
# the settings read it before Django's models can load.
MIN_K, MAX_K = 1, 100
K_PRESETS = (40, 20, 10, 32)
K_BELOW_MESSAGE = gettext_noop("K must be at least %(min)s.") % {"min": MIN_K}
K_ABOVE_MESSAGE = gettext_noop("K must be at most %(max)s.") % {"max": MAX_K}
K_MISSING_MESSAGE = gettext_noop("Enter a K from %(min)s to %(max)s, or pick a preset.") % {
    "min": MIN_K,
    "max": MAX_K,
}
# The games of one event: 200, the API's limit since it was published (a month of a busy
# blitz player's games), which the page's 100 narrowed for no reason of its own.
MAX_EVENT_GAMES = 200
EVENT_TOO_LONG_MESSAGE = gettext_noop("Enter at most %(most)s games.") % {"most": MAX_EVENT_GAMES}
EVENT_EMPTY_MESSAGE = gettext_noop("Enter at least one game.")


def rules_by_default(method: str) -> dict[str, bool]:
    """Return whether the 400-point and 700 rules apply by default with this method.

    The classic-Elo pages apply neither, so classic mode reproduces them; FIDE mode applies both.
    """
    fide_rules = method == fide.METHOD_FIDE
    return {"apply_cap": fide_rules, "apply_700": fide_rules}


@dataclass(frozen=True, slots=True)
class KAdvice:
    """The K FIDE gives a player, why, and where the rule is written."""

    value: int
    reason: str
    article: str = K_ARTICLE


def k_advice(
    *, rated_games: int, birth_year: int | None, peak_rating: int | None, year: int
) -> KAdvice:
    """Return the K for a player's rated games, birth year and highest rating (8.3.3)."""
    k = fide.k_factor(
        peak_rating=peak_rating, rated_games=rated_games, birth_year=birth_year, year=year
    )
    return KAdvice(k.value, k.reason)


SCORE_UNITS = {"win": fide.UNIT, "draw": fide.UNIT // 2, "loss": 0}
# The words a score may be written with, on the page and in the API (looked up lower-cased).
SCORE_WORDS = {
    **dict.fromkeys(("1", "1.0", "w", "win"), fide.UNIT),
    **dict.fromkeys(("½", "1/2", "0.5", ".5", "=", "d", "draw"), fide.UNIT // 2),
    **dict.fromkeys(("0", "0.0", "l", "loss"), 0),
}
SCORE_HELP = gettext_noop("1, ½ or 0 (also win, draw, loss, 0.5, 1/2, =)")
RESULT_LABELS = {
    "win": gettext_noop("Win"),
    "draw": gettext_noop("Draw"),
    "loss": gettext_noop("Loss"),
}
_NOT_A_SCORE = gettext_noop("'%(word)s' is not a score; use %(scores)s.")


def score_message(word: str) -> str:
    """Say that ``word`` is no score, and which words are."""
    return _NOT_A_SCORE % {"word": word, "scores": SCORE_HELP}


def score_units(word: str) -> int | None:
    """Return a score written as a word ("½", "draw", "1") in UNIT, or None if it is none."""
    return SCORE_WORDS.get(word.strip().lower())


MIRRORED = {"win": "loss", "draw": "draw", "loss": "win"}


def mirrored(own: int, opponent: int, result: str, **options: object) -> fide.EventCalculation:
    """Return the opponent's side of one game, with the same K and options.

    With FIDE's 400-point rule the two sides can differ by more than the sign (8.3.1); with the
    classic formula and no rules they mirror exactly.
    """
    score = SCORE_UNITS[MIRRORED[result]]
    return fide.event_calculation(opponent, [(own, score)], **options)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Levels:
    """The display level of a rating before and after ("FM level"), never a title."""

    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def levels(before: int, after: int) -> Levels:
    """Return the levels of two ratings (FIDE.md 7: CM 2200, FM 2300, IM 2400, GM 2500)."""
    return Levels(fide.rating_level(before), fide.rating_level(after))


@dataclass(frozen=True, slots=True)
class GapRow:
    """One row of the expected-score table: a rating gap and both methods' expectations."""

    gap: int
    fide: Decimal  # PD of the higher-rated player, table 8.1.2
    elo: Decimal  # classic Elo expectation of the higher-rated player
    current: bool  # the difference being calculated

    @property
    def fide_percent(self) -> Decimal:
        return self.fide * 100

    @property
    def elo_percent(self) -> Decimal:
        return (self.elo * 100).quantize(Decimal("0.1"))


def gap_table(difference: int | None) -> tuple[GapRow, ...]:
    """Return the expectations at round gaps, with the current |D| as its own highlighted row
    when it is not one of them."""
    gaps = set(ROUND_GAPS)
    current = abs(difference) if difference is not None else None
    if current is not None:
        gaps.add(current)
    return tuple(
        GapRow(
            gap=gap,
            fide=fide.expected_score(gap),
            elo=fide.units_to_decimal(fide.elo_expected_units(gap, 0)),
            current=gap == current,
        )
        for gap in sorted(gaps)
    )
