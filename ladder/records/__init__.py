"""The club's records: players, rating periods and games.

Ratings are derived from these by the ``ratings`` app; nothing here computes a rating. The
``Player`` fields under "derived" are written only by ``ratings.recompute.services``.
"""

from __future__ import annotations

import calendar
import hashlib
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from simple_history.models import HistoricalRecords

MIN_RATING, MAX_RATING = 0, 3500
# An entry rating is a published rating: FIDE publishes none below its floor of 1400 (FIDE.md,
# 7.2.1 and 8.2.3: a player who falls below it is listed unrated), and Ladder's ceiling is 3500
# (no one has come within 600 points of it). A player below the floor enters unrated.
ENTRY_RATING_FLOOR = 1400
ENTRY_RATING_MESSAGE = (
    f"A published rating lies between {ENTRY_RATING_FLOOR} (FIDE's floor) and {MAX_RATING}; "
    "leave it blank for an unrated player."
)
MIN_BIRTH_YEAR = 1900
# Far above any real career, far below what the games counters can hold once games are added.
MAX_ENTRY_RATED_GAMES = 100_000
# Games are dated within these years; outside them the month arithmetic of the rules fails.
FIRST_GAME_DATE, LAST_GAME_DATE = date(1900, 1, 1), date(2999, 12, 31)
GAME_DATE_MESSAGE = f"A game must be dated between {FIRST_GAME_DATE} and {LAST_GAME_DATE}."
# Bidirectional overrides reorder what a reader sees (a name that shows as something else).
_INVISIBLE = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def _control_character(value: str, allowed: str = "") -> str | None:
    for char in value:
        if char in allowed:
            continue
        if unicodedata.category(char) == "Cc" or ord(char) in _INVISIBLE:
            return char
    return None


def refuse_control_characters(value: str) -> None:
    """Refuse a one-line text holding a control character (ESC, BEL, a newline, ...): it would
    reach terminals and CSV files as it is."""
    char = _control_character(value)
    if char is not None:
        raise ValidationError(
            f"Contains the control character U+{ord(char):04X}; use plain printable text.",
            code="control_character",
        )


def refuse_control_characters_but_lines(value: str) -> None:
    """Refuse a control character in a text of several lines (newlines and tabs allowed)."""
    char = _control_character(value, allowed="\n\r\t")
    if char is not None:
        raise ValidationError(
            f"Contains the control character U+{ord(char):04X}; use plain printable text.",
            code="control_character",
        )


PERIOD_LABEL_VALIDATOR = RegexValidator(
    r"\A[0-9A-Za-z][0-9A-Za-z._-]*\Z",
    "A period label is letters, digits and '-', '_' or '.', starting with a letter or digit "
    "(e.g. 2026-03): it is part of the period page's address.",
    code="invalid_label",
)


class RatingList(models.TextChoices):
    """FIDE's three lists (FIDE.md 9): every game is rated on one; a player has a rating on each."""

    STANDARD = "standard", "Standard"
    RAPID = "rapid", "Rapid"
    BLITZ = "blitz", "Blitz"


@dataclass(frozen=True)
class ListFields:
    """The names of a player's fields for one list: entry data and the derived state.

    The standard list keeps the names it always had (API v1 clients read them); the rapid and
    blitz lists prefix them.
    """

    entry_rating: str
    entry_rated_games: str
    entry_peak_rating: str
    rating: str
    rated_games: str
    peak_rating: str
    last_rated_on: str
    last_change: str

    @property
    def entry(self) -> tuple[str, str, str]:
        return (self.entry_rating, self.entry_rated_games, self.entry_peak_rating)

    @property
    def derived(self) -> tuple[str, str, str, str, str]:
        return (self.rating, self.rated_games, self.peak_rating, self.last_rated_on,
                self.last_change)  # fmt: skip


def _list_fields(prefix: str) -> ListFields:
    names = ("entry_rating", "entry_rated_games", "entry_peak_rating", "rating", "rated_games",
             "peak_rating", "last_rated_on", "last_change")  # fmt: skip
    return ListFields(*(prefix + name for name in names))


LIST_FIELDS: dict[str, ListFields] = {
    RatingList.STANDARD: _list_fields(""),
    RatingList.RAPID: _list_fields("rapid_"),
    RatingList.BLITZ: _list_fields("blitz_"),
}


def kept_lists() -> list[str]:
    """The lists the club keeps (setting ``LADDER_LISTS``; default all three), FIDE's order."""
    return list(settings.LADDER_LISTS)


def default_list() -> str:
    """The list a game goes on when nothing says otherwise: standard, if the club keeps it."""
    kept = kept_lists()
    return RatingList.STANDARD if RatingList.STANDARD in kept else kept[0]


def entry_fields(rating_list: str) -> tuple[str, ...]:
    """A change to any of these changes the player's ratings on that list from the first game."""
    return (*LIST_FIELDS[rating_list].entry, "birth_year")


# A change to any of these changes the player's ratings (on some list) from their first game on.
PLAYER_ENTRY_FIELDS = tuple(
    dict.fromkeys(name for fields in LIST_FIELDS.values() for name in (*fields.entry,))
) + ("birth_year",)
# The largest value the FIDE id column (a positive bigint) can hold.
MAX_FIDE_ID = 2**63 - 1


def parse_fide_id(text: str) -> int | None:
    """Return the FIDE id written in ``text``, or None when it is not one.

    Only ASCII digits count: ``str.isdigit()`` also accepts characters such as "²" that ``int()``
    rejects, and a number too large for the column would fail in the database.
    """
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 0 < number <= MAX_FIDE_ID else None


class Result(models.TextChoices):
    WHITE_WIN = "1-0", "1-0"
    BLACK_WIN = "0-1", "0-1"
    DRAW = "1/2-1/2", "½-½"
    WHITE_FORFEIT_WIN = "+/-", "+/− (White wins by forfeit, unrated)"
    BLACK_FORFEIT_WIN = "-/+", "−/+ (Black wins by forfeit, unrated)"
    DOUBLE_FORFEIT = "0-0", "0-0 (double forfeit, unrated)"

    @classmethod
    def parse(cls, text: str) -> str:
        """Return the stored code for a result as people type it, or raise ``ValueError``."""
        cleaned = text.strip().replace(" ", "").replace("½", "1/2").replace("–", "-")
        cleaned = cleaned.replace("−", "-").replace("0.5", "1/2")
        aliases = {"=": cls.DRAW, "1/2": cls.DRAW, "draw": cls.DRAW, "+-": "+/-", "-+": "-/+"}
        code = aliases.get(cleaned.lower(), cleaned)
        if code in cls.values:
            return code
        raise ValueError(f"'{text}' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0.")


class Sex(models.TextChoices):
    MALE = "M", "Male"
    FEMALE = "F", "Female"


class Title(models.TextChoices):
    """Real FIDE titles, labelled as FIDE writes them (not "Gm", "Wgm")."""

    GM = "GM", "GM"
    IM = "IM", "IM"
    FM = "FM", "FM"
    CM = "CM", "CM"
    WGM = "WGM", "WGM"
    WIM = "WIM", "WIM"
    WFM = "WFM", "WFM"
    WCM = "WCM", "WCM"


def _entry_rating(name: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        f"{name} entry rating",
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=f"Published {name} rating on entry; blank = unrated on that list.",
    )


def _entry_rated_games(name: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(
        f"{name} entry rated games",
        default=0,
        validators=[MaxValueValidator(MAX_ENTRY_RATED_GAMES)],
        help_text=f"{name.capitalize()} rated games completed before entry.",
    )


def _entry_peak_rating(name: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        f"{name} entry peak rating",
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=f"Highest published {name} rating before entry; blank = the entry rating.",
    )


class PlayerQuerySet(models.QuerySet["Player"]):
    def rated(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        return self.filter(**{f"{LIST_FIELDS[rating_list].rating}__isnull": False})

    def unrated(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        return self.filter(**{f"{LIST_FIELDS[rating_list].rating}__isnull": True})

    def search(self, text: str) -> PlayerQuerySet:
        """Filter by part of the name, or by the exact FIDE id when the text is a number."""
        # No stored text holds a NUL, and PostgreSQL refuses one in a query parameter.
        text = text.replace("\x00", "").strip()
        if not text:
            return self
        condition = Q(name__icontains=text)
        fide_id = parse_fide_id(text)
        if fide_id is not None:
            condition |= Q(fide_id=fide_id)
        return self.filter(condition)

    def standings(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        """Order rated players first by their rating on the list, then by name."""
        rating = F(LIST_FIELDS[rating_list].rating)
        return self.order_by(rating.desc(nulls_last=True), "name", "pk")


class Player(models.Model):
    name = models.CharField(max_length=200, db_index=True, validators=[refuse_control_characters])
    fide_id = models.PositiveBigIntegerField(
        "FIDE id",
        null=True,
        blank=True,
        unique=True,
        validators=[MinValueValidator(1, message="A FIDE id is a whole number from 1 up.")],
        help_text="Unique when given.",
    )
    birth_year = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_BIRTH_YEAR)],
        help_text="FIDE publishes only the year; it is all the junior rule needs.",
    )
    sex = models.CharField(max_length=1, choices=Sex.choices, blank=True)
    federation = models.CharField(
        max_length=3,
        blank=True,
        validators=[refuse_control_characters],
        help_text="FIDE code, e.g. ENG.",
    )
    title = models.CharField(
        max_length=3, choices=Title.choices, blank=True, help_text="A real FIDE title only."
    )
    # Entry data, for players who arrive with a history.
    entry_rating = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text="Published rating on entry; blank = unrated.",
    )
    entry_rated_games = models.PositiveIntegerField(
        default=0,
        validators=[MaxValueValidator(MAX_ENTRY_RATED_GAMES)],
        help_text="Rated games completed before entry.",
    )
    entry_peak_rating = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text="Highest published rating before entry; blank = the entry rating.",
    )
    rapid_entry_rating = _entry_rating("rapid")
    rapid_entry_rated_games = _entry_rated_games("rapid")
    rapid_entry_peak_rating = _entry_peak_rating("rapid")
    blitz_entry_rating = _entry_rating("blitz")
    blitz_entry_rated_games = _entry_rated_games("blitz")
    blitz_entry_peak_rating = _entry_peak_rating("blitz")
    # Derived: written by ratings.recompute.services only (the standard list's, then rapid and
    # blitz).
    rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rated_games = models.PositiveIntegerField(default=0, editable=False)
    peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    last_rated_on = models.DateField(null=True, blank=True, editable=False)
    last_change = models.IntegerField(null=True, blank=True, editable=False)
    rapid_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rapid_rated_games = models.PositiveIntegerField(default=0, editable=False)
    rapid_peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rapid_last_rated_on = models.DateField(null=True, blank=True, editable=False)
    rapid_last_change = models.IntegerField(null=True, blank=True, editable=False)
    blitz_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    blitz_rated_games = models.PositiveIntegerField(default=0, editable=False)
    blitz_peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    blitz_last_rated_on = models.DateField(null=True, blank=True, editable=False)
    blitz_last_change = models.IntegerField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = PlayerQuerySet.as_manager()
    history = HistoricalRecords(
        excluded_fields=[
            *(name for fields in LIST_FIELDS.values() for name in fields.derived),
            "updated",
        ]
    )

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(entry_rating__isnull=True) | Q(entry_rating__lte=MAX_RATING),
                name="player_entry_rating_range",
                violation_error_message="The entry rating must lie between 0 and 3500.",
            ),
            models.CheckConstraint(
                condition=Q(birth_year__isnull=True) | Q(birth_year__gte=MIN_BIRTH_YEAR),
                name="player_birth_year_range",
            ),
            models.CheckConstraint(
                condition=Q(entry_rated_games__lte=MAX_ENTRY_RATED_GAMES),
                name="player_entry_rated_games_range",
                violation_error_message="Rated games before entry cannot exceed 100,000.",
            ),
            *(
                constraint
                for prefix in ("rapid_", "blitz_")
                for constraint in (
                    models.CheckConstraint(
                        condition=Q(**{f"{prefix}entry_rating__isnull": True})
                        | Q(**{f"{prefix}entry_rating__lte": MAX_RATING}),
                        name=f"player_{prefix}entry_rating_range",
                        violation_error_message="The entry rating must lie between 0 and 3500.",
                    ),
                    models.CheckConstraint(
                        condition=Q(**{f"{prefix}entry_rated_games__lte": MAX_ENTRY_RATED_GAMES}),
                        name=f"player_{prefix}entry_rated_games_range",
                        violation_error_message="Rated games before entry cannot exceed 100,000.",
                    ),
                )
            ),
        ]
        # No index on the derived rating: a rating run rewrites every rated player's row, and
        # with no indexed column changing (and room on the page: fillfactor 50, migration
        # 0005) PostgreSQL rewrites it in place without touching the indexes (a "HOT" update):
        # 0.2 s instead of 1.5 s for 100,000 players. The standings sort at read time.

    def __str__(self) -> str:
        return f"{self.name} ({self.fide_id})" if self.fide_id else self.name

    def save(self, *args, **kwargs) -> None:
        if self._state.adding:
            self.start_from_entry()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("ladder:player", args=[self.pk])

    def start_from_entry(self) -> None:
        """Set the derived state of a player with no games, on every list: the entry data."""
        for fields in LIST_FIELDS.values():
            setattr(self, fields.rating, getattr(self, fields.entry_rating))
            setattr(self, fields.rated_games, getattr(self, fields.entry_rated_games))
            setattr(self, fields.peak_rating, self.entry_peak_on(fields))
            setattr(self, fields.last_rated_on, None)
            setattr(self, fields.last_change, None)

    def clean(self) -> None:
        errors = {}
        this_year = timezone.localdate().year
        if self.birth_year is not None and self.birth_year > this_year:
            errors["birth_year"] = (
                f"The birth year {self.birth_year} is in the future (this is {this_year})."
            )
        for fields in LIST_FIELDS.values():
            rating, peak = (
                getattr(self, fields.entry_rating),
                getattr(self, fields.entry_peak_rating),
            )
            if peak is not None and rating is not None and peak < rating:
                errors[fields.entry_peak_rating] = (
                    "The peak rating cannot be lower than the entry rating."
                )
            if peak is not None and rating is None:
                errors[fields.entry_peak_rating] = (
                    "An unrated player has no peak rating; leave it blank or give an entry rating."
                )
        if errors:
            raise ValidationError(errors)

    @property
    def entry_peak(self) -> int | None:
        """The peak on entry to the standard list: the one given, else the entry rating."""
        return self.entry_peak_on(LIST_FIELDS[RatingList.STANDARD])

    def entry_peak_on(self, fields: ListFields) -> int | None:
        """The peak on entry to a list: the one given, else the entry rating."""
        peak = getattr(self, fields.entry_peak_rating)
        return peak if peak is not None else getattr(self, fields.entry_rating)

    def on_list(self, rating_list: str) -> ListState:
        """The player's derived state on one list."""
        fields = LIST_FIELDS[rating_list]
        return ListState(rating_list, *(getattr(self, name) for name in fields.derived))


@dataclass(frozen=True)
class ListState:
    """What one list says of a player now (derived: written by the rating runs)."""

    rating_list: str
    rating: int | None
    rated_games: int
    peak_rating: int | None
    last_rated_on: date | None
    last_change: int | None

    @property
    def label(self) -> str:
        return RatingList(self.rating_list).label


class PeriodStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class RatingPeriodQuerySet(models.QuerySet["RatingPeriod"]):
    def containing(self, day: date) -> RatingPeriodQuerySet:
        return self.filter(start__lte=day, end__gte=day)

    def overlapping(self, start: date, end: date) -> RatingPeriodQuerySet:
        return self.filter(start__lte=end, end__gte=start)

    def for_date(self, day: date) -> RatingPeriod:
        """Return the period holding ``day``, creating that month's period if there is none.

        Raise ``ValidationError`` on ``date`` when it would overlap another period.
        """
        # One read for both questions: a period holding the day overlaps its month, and a
        # period another writer has just committed is seen by both at once (read separately,
        # it could appear between them and look like an overlap).
        among = list(self.overlapping(*_month(day)))
        period = next((p for p in among if p.contains(day)), None)
        if period is not None:
            return period
        label, start, end = RatingPeriod.month_of(day, among=among)
        try:
            with transaction.atomic():
                return self.create(label=label, start=start, end=end)
        except IntegrityError:  # another writer created the month's period at the same moment
            return self.get(start=start, end=end)

    def latest_period(self) -> RatingPeriod | None:
        return self.order_by("-start").first()


def _month(day: date) -> tuple[date, date]:
    return day.replace(day=1), day.replace(day=calendar.monthrange(day.year, day.month)[1])


class RatingPeriod(models.Model):
    label = models.CharField(
        max_length=20,
        unique=True,
        validators=[PERIOD_LABEL_VALIDATOR],
        help_text="e.g. 2026-03 for a month.",
    )
    start = models.DateField(unique=True)
    end = models.DateField()
    status = models.CharField(
        max_length=6, choices=PeriodStatus.choices, default=PeriodStatus.OPEN, editable=False
    )
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    objects = RatingPeriodQuerySet.as_manager()
    history = HistoricalRecords()

    class Meta:
        ordering = ["start"]
        constraints = [
            models.CheckConstraint(
                condition=Q(start__lte=F("end")),
                name="period_start_before_end",
                violation_error_message="A period cannot end before it starts.",
            ),
            models.CheckConstraint(
                condition=Q(status__in=PeriodStatus.values), name="period_status_valid"
            ),
        ]
        # Beyond the correction window (settings.LADDER_CORRECTION_WINDOW_DAYS) a closed period
        # is reopened only by its holders: see ladder.writes.correction_window.
        permissions = [
            ("reopen_after_window", "Can reopen a period after its correction window"),
        ]

    def __str__(self) -> str:
        return self.label

    def get_absolute_url(self) -> str:
        return reverse("ladder:period", args=[self.label])

    def clean(self) -> None:
        if self.start and self.end:
            if self.end < self.start:
                raise ValidationError({"end": "A period cannot end before it starts."})
            clash = (
                RatingPeriod.objects.overlapping(self.start, self.end).exclude(pk=self.pk).first()
            )
            if clash is not None:
                raise ValidationError(
                    f"The period {self.start} to {self.end} overlaps {clash.label} "
                    f"({clash.start} to {clash.end}); periods cannot overlap."
                )
        if self.pk and self.start and self.end:
            outside = Game.objects.filter(period=self).exclude(
                date__gte=self.start, date__lte=self.end
            )
            if outside.exists():
                raise ValidationError(
                    "Games of this period would fall outside its new dates; move them first."
                )

    @property
    def is_closed(self) -> bool:
        return self.status == PeriodStatus.CLOSED

    @staticmethod
    def month_of(day: date, *, among: Iterable[RatingPeriod]) -> tuple[str, date, date]:
        """Return the label, start and end of ``day``'s month as a new period.

        Raise ``ValidationError`` on ``date`` when it would overlap one of ``among``.
        """
        start, end = _month(day)
        clash = next((p for p in among if p.start <= end and p.end >= start), None)
        if clash is not None:
            raise ValidationError(
                {
                    "date": f"No rating period holds {day.isoformat()}, and the month's period "
                    f"would overlap {clash.label}; create a period for this date first."
                }
            )
        return start.strftime("%Y-%m"), start, end

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


class PeriodLog(models.Model):
    """Why and by whom a period was closed or reopened (a reopen needs a reason)."""

    class Action(models.TextChoices):
        CLOSED = "closed", "Closed"
        REOPENED = "reopened", "Reopened"

    period = models.ForeignKey(RatingPeriod, on_delete=models.CASCADE, related_name="log")
    action = models.CharField(max_length=8, choices=Action.choices)
    reason = models.TextField(blank=True, validators=[refuse_control_characters_but_lines])
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.period} {self.action} {self.at:%Y-%m-%d %H:%M}"


class GameQuerySet(models.QuerySet["Game"]):
    def in_period(self, period: RatingPeriod) -> GameQuerySet:
        return self.filter(period=period)

    def with_players(self) -> GameQuerySet:
        return self.select_related("white", "black", "period")

    def for_player(self, player: Player | int) -> GameQuerySet:
        return self.filter(Q(white=player) | Q(black=player))

    def on_list(self, rating_list: str) -> GameQuerySet:
        return self.filter(rating_list=rating_list)


class Game(models.Model):
    # Indexed with the list (game_period_list_idx): a rating run reads one list of a period.
    period = models.ForeignKey(
        RatingPeriod,
        on_delete=models.PROTECT,
        related_name="games",
        editable=False,
        db_index=False,
    )
    date = models.DateField(
        db_index=True,
        validators=[
            MinValueValidator(FIRST_GAME_DATE, message=GAME_DATE_MESSAGE),
            MaxValueValidator(LAST_GAME_DATE, message=GAME_DATE_MESSAGE),
        ],
    )
    white = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_white")
    black = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_black")
    result = models.CharField(max_length=7, choices=Result.choices)
    event = models.CharField(max_length=200, blank=True, validators=[refuse_control_characters])
    round = models.CharField(max_length=20, blank=True, validators=[refuse_control_characters])
    rating_list = models.CharField(
        "list",
        max_length=8,
        choices=RatingList.choices,
        default=RatingList.STANDARD,
        help_text="The list the game is rated on (from the time control when one is given).",
    )
    time_control = models.CharField(
        max_length=20,
        blank=True,
        help_text="Base minutes + increment seconds, e.g. 90+30, 15+10, 3+2.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = GameQuerySet.as_manager()
    history = HistoricalRecords()

    class Meta:
        ordering = ["date", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(white=F("black")),
                name="game_white_is_not_black",
                violation_error_message="A player cannot play themselves.",
            ),
            models.CheckConstraint(
                condition=Q(result__in=Result.values),
                name="game_result_valid",
                violation_error_message="Unknown result.",
            ),
            models.CheckConstraint(
                condition=Q(date__gte=FIRST_GAME_DATE, date__lte=LAST_GAME_DATE),
                name="game_date_range",
                violation_error_message=GAME_DATE_MESSAGE,
            ),
            models.CheckConstraint(
                condition=Q(rating_list__in=RatingList.values),
                name="game_rating_list_valid",
                violation_error_message="Unknown list.",
            ),
        ]
        indexes = [models.Index(fields=["period", "rating_list"], name="game_period_list_idx")]

    def __str__(self) -> str:
        return f"{self.date} {self.white.name} - {self.black.name} {self.result}"

    def save(self, *args, **kwargs) -> None:
        # The period always follows the date, whichever door the game came through.
        if self.date and (self.period_id is None or not self.period.contains(self.date)):
            self.period = RatingPeriod.objects.for_date(self.date)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # Periods (closed, overlapping) and duplicates are batch checks: ladder.writes.validation.
        if self.white_id and self.black_id and self.white_id == self.black_id:
            raise ValidationError({"black": "A player cannot play themselves."})


def closed_message(period: RatingPeriod) -> str:
    """Say that a period is closed and how to reopen it, for every door alike."""
    return (
        f"The period {period.label} is closed; its games are frozen. Reopen it first "
        f"(admin action 'Reopen', or: manage.py reopen_period {period.label} --reason '...')."
    )


class DataVersion(models.Model):
    """One row: a number that every committed write and every finished rating run bumps.

    What any read returns depends on the records and the ratings only, so a read's answer can
    be kept under this number and served again until it moves (``ladder.caching.read_cache``); see
    ``ladder.records.versions``.
    """

    value = models.BigIntegerField(default=0)
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="one_data_version")]

    def __str__(self) -> str:
        return f"data version {self.value} ({self.changed_at:%Y-%m-%d %H:%M:%S})"


class ThrottleCount(models.Model):
    """A client's requests counted by the API's anonymous throttle when the cache is the
    database's (``ladder.caching.throttling``; on Redis they are counted there): this window's
    count and the last one's, moved on by one atomic statement per request. Counts that a crash
    loses cost nothing, so on PostgreSQL the table is unlogged (written without the WAL).
    """

    key = models.CharField(max_length=200, primary_key=True)
    slot = models.BigIntegerField(help_text="The window: seconds since the epoch // its length.")
    count = models.PositiveIntegerField(default=0)
    previous = models.PositiveIntegerField(default=0, help_text="The window before's count.")

    def __str__(self) -> str:
        return f"{self.key}: {self.count} (+{self.previous} before)"


class IdempotentRequest(models.Model):
    """The first answer to an API POST sent with an ``Idempotency-Key`` header: a retry with the
    same key (a client that timed out) gets this answer again and writes nothing more."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request body.")
    status = models.PositiveSmallIntegerField()
    response = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotent_request_user_key")
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.key})"


class ImportedFile(models.Model):
    """A file imported whole, by its fingerprint: the same file again is refused."""

    class Kind(models.TextChoices):
        PLAYERS = "players", "Players (CSV)"
        GAMES = "games", "Games (CSV)"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    sha256 = models.CharField(max_length=64)
    rows = models.PositiveIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "sha256"], name="imported_file_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.sha256[:12]} ({self.at:%Y-%m-%d %H:%M})"


class ApiToken(models.Model):
    """An API token, stored as the SHA-256 of its key (the key is shown once, when issued),
    with an expiry and a revocation (``manage.py issue_token``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True, validators=[refuse_control_characters])
    prefix = models.CharField(max_length=8, help_text="The key's first characters, to name it.")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key.")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @staticmethod
    def hash(key: str) -> str:
        # A key is 256 random bits: a fast hash is enough (nothing to guess by brute force).
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def issue(cls, user: Any, *, days: int, name: str = "") -> tuple[ApiToken, str]:
        """Create a token for ``user`` valid ``days`` days; return it and its key (shown once)."""
        key = secrets.token_urlsafe(32)
        while key.startswith("-"):  # its prefix must not read as an option: --revoke PREFIX
            key = secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, prefix=key[:8], digest=cls.hash(key),
            expires_at=timezone.now() + timedelta(days=days),
        )  # fmt: skip
        return token, key

    @property
    def active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()
