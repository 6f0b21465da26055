"""Bounds of the club's records: one home for every limit the doors check."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy

from ladder.records.translations import rules_text_lazy
from ratings.rules import calculator
from ratings.rules.calculator import MAX_K, MIN_K

# The rules' sentences, in the reader's language when shown.
K_BELOW_MESSAGE = rules_text_lazy(calculator.K_BELOW_MESSAGE)
K_ABOVE_MESSAGE = rules_text_lazy(calculator.K_ABOVE_MESSAGE)

# Any rating a door takes to calculate with (the calculator, the next-game preview); the
# ratings Ladder stores are bounded by the model fields' own validators.
MIN_RATING, MAX_RATING = 0, 3500
RATING_BELOW_MESSAGE = format_lazy(gettext_lazy("A rating cannot be below {low}."), low=MIN_RATING)
RATING_ABOVE_MESSAGE = format_lazy(
    gettext_lazy("A rating cannot be above {high}."), high=MAX_RATING
)
# An entry rating is a published rating: FIDE publishes none below its floor of 1400 (FIDE.md,
# 7.2.1 and 8.2.3: a player who falls below it is listed unrated), and Ladder's ceiling is 3500
# (no one has come within 600 points of it). A player below the floor enters unrated.
ENTRY_RATING_FLOOR = 1400
ENTRY_RATING_MESSAGE = format_lazy(
    gettext_lazy(
        "A published rating lies between {floor} (FIDE's floor) and {high}; "
        "leave it blank for an unrated player."
    ),
    floor=ENTRY_RATING_FLOOR,
    high=MAX_RATING,
)
MIN_BIRTH_YEAR = 1900


def latest_birth_year() -> int:
    """The latest birth year a player may have: this year (in the club's time zone)."""
    return timezone.localdate().year


# Far above any real career, far below what the games counters can hold once games are added.
MAX_ENTRY_RATED_GAMES = 100_000
# Games are dated within these years; outside them the month arithmetic of the rules fails.
FIRST_GAME_DATE, LAST_GAME_DATE = date(1900, 1, 1), date(2999, 12, 31)
GAME_DATE_MESSAGE = format_lazy(
    gettext_lazy("A game must be dated between {first} and {last}."),
    first=FIRST_GAME_DATE,
    last=LAST_GAME_DATE,
)
TOURNAMENT_DATE_MESSAGE = format_lazy(
    gettext_lazy("A tournament must be dated between {first} and {last}."),
    first=FIRST_GAME_DATE,
    last=LAST_GAME_DATE,
)
PERIOD_DATE_MESSAGE = format_lazy(
    gettext_lazy("A rating period cannot start or end before {first}."), first=FIRST_GAME_DATE
)

# The largest value the FIDE id column (a positive bigint) can hold.
MAX_FIDE_ID = 2**63 - 1

# K's bounds are the rules' (the settings read them there, before the models load): named here
# too so that a door finds every bound in one place.
__all__ = [
    "ENTRY_RATING_FLOOR", "ENTRY_RATING_MESSAGE", "FIRST_GAME_DATE", "GAME_DATE_MESSAGE",
    "K_ABOVE_MESSAGE", "K_BELOW_MESSAGE", "LAST_GAME_DATE", "MAX_ENTRY_RATED_GAMES", "MAX_FIDE_ID",
    "MAX_K", "MAX_RATING", "MIN_BIRTH_YEAR", "MIN_K", "MIN_RATING", "RATING_ABOVE_MESSAGE",
    "RATING_BELOW_MESSAGE", "PERIOD_DATE_MESSAGE", "TOURNAMENT_DATE_MESSAGE", "dated_within",
]  # fmt: skip


def dated_within(message: Any) -> list[MinValueValidator | MaxValueValidator]:
    """The validators of a day a game could be played on (``FIRST_GAME_DATE`` to
    ``LAST_GAME_DATE``), refusing with ``message``: the days of games, tournaments and periods
    (a period's label writes its year in four digits)."""
    return [
        MinValueValidator(FIRST_GAME_DATE, message=message),
        MaxValueValidator(LAST_GAME_DATE, message=message),
    ]
