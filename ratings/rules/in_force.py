"""The rules in force on a day: what the page "Rules in force on ..." and its API show.

Pure, like ``ratings.rules.eras`` that it reads: the rule set for a tournament starting on that
day on one list (``eras.rule_set(...).describe()``), the days the rules changed just before and
after it (``eras.effective_dates``), and FIDE's one-off adjustments of that list near the day
(``eras.ADJUSTMENTS``, within ``ADJUSTMENT_WINDOW`` either side).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ratings.rules import eras, fide
from ratings.rules.wording import gettext_noop

ADJUSTMENT_WINDOW = timedelta(days=730)  # "near": two years either side of the day
DAY = timedelta(days=1)

# What each rule of a ``RuleSet`` is about, as the page heads it.
LABELS = {
    "k": gettext_noop("K factor"),
    "seven_hundred": gettext_noop("The 700 rule"),
    "cap": gettext_noop("The rating difference cap"),
    "six_hundred": gettext_noop("The 600-point rule"),
    "floor": gettext_noop("The rating floor"),
    "first_rating": gettext_noop("A first rating"),
    "seeded_from_standard": gettext_noop("An unrated player with a standard rating"),
}
_IN_FORCE = gettext_noop("in force %(day)s")  # "in force before 1 Jul 2009"
_FROM = gettext_noop("from %(day)s")
_NOT_A_DATE = gettext_noop("'%(text)s' is not a date; write YYYY-MM-DD, e.g. 2025-11-01.")
_NOT_A_LIST = gettext_noop("'%(list)s' is not a rating list; choose one of %(lists)s.")


class NotInForce(ValueError):
    """The day or the list asked for names no rule set; ``field`` says which one is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Change:
    """A neighbouring rule set: a day it is in force and how to name it."""

    on: date  # a day it is in force: the one to link to
    text: str  # "1 Jan 2022", or "before 1 Jul 2009"
    oldest: bool = False  # the set in force before the first change FIDE.md dates

    @property
    def phrase(self) -> str:
        """Name it in a sentence: "from 1 Jan 2022", "in force before 1 Jul 2009"."""
        return (_IN_FORCE if self.oldest else _FROM) % {"day": self.text}


@dataclass(frozen=True, slots=True)
class RulesInForce:
    """The rules one list used for a tournament starting on ``on``, and what is near it."""

    on: date
    rating_list: str
    since: date | None  # None: in force before the first change FIDE.md dates
    since_text: str
    lines: tuple[eras.RuleLine, ...]
    previous: Change | None  # the rule set before this one (None: this is the first)
    next: Change | None  # the next one (None: this one is today's)
    adjustments: tuple[eras.RatingAdjustment, ...]

    def label(self, line: eras.RuleLine) -> str:
        """Return what a rule is about ("K factor")."""
        return LABELS.get(line.name, line.name)


def parse_day(text: str | None, *, today: date) -> date:
    """Read ``YYYY-MM-DD`` (blank: ``today``); raise ``NotInForce`` with a sentence."""
    if text is None or not text.strip():
        return today
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise NotInForce("date", _NOT_A_DATE % {"text": text.strip()[:40]}) from None


def parse_list(text: str | None) -> str:
    """Read a FIDE list's name (blank: standard); raise ``NotInForce`` with a sentence."""
    name = (text or "").strip().lower() or fide.LIST_STANDARD
    if name not in fide.LISTS:
        raise NotInForce("list", _NOT_A_LIST % {"list": name[:40], "lists": ", ".join(fide.LISTS)})
    return name


def rules_in_force(
    on: date,
    rating_list: str,
    settings: eras.EraSettings = eras.EraSettings(),  # noqa: B008 - frozen
) -> RulesInForce:
    """Return the rules in force on ``on`` for that list; raise ``NotInForce`` when none is
    (a list FIDE did not yet keep on that day)."""
    try:
        rules = eras.rule_set(on, rating_list, settings)
    except eras.NoRuleSet as error:
        raise NotInForce("date", str(error)) from None
    since = rules.effective_from
    days = eras.effective_dates(rating_list, settings)
    at = days.index(since)
    previous = None
    if at > 0:
        before = days[at - 1]
        previous = Change(since - DAY, _since_text(before), oldest=before == eras.OLDEST)
    later = days[at + 1] if at + 1 < len(days) else None
    return RulesInForce(
        on=on,
        rating_list=rating_list,
        since=None if since == eras.OLDEST else since,
        since_text=_since_text(since),
        lines=rules.describe(),
        previous=previous,
        next=Change(later, _since_text(later)) if later else None,
        adjustments=eras.adjustments_between(
            _shift(on, -ADJUSTMENT_WINDOW), _shift(on, ADJUSTMENT_WINDOW), rating_list
        ),
    )


def _since_text(day: date) -> str:
    if day == eras.OLDEST:
        return eras.before(eras.FIRST_DATED_CHANGE)
    return f"{day.day} {day:%b %Y}"


def _shift(on: date, by: timedelta) -> date:
    try:
        return on + by
    except OverflowError:
        return date.max if by > timedelta(0) else date.min
