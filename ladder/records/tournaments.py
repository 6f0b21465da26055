"""Tournaments: a rated event with its dates, its list and the period it is rated in.

FIDE rates each tournament with the list in force on the day it started (FIDE.md 10.1), in the
period its report reaches (by default the one holding its last day). Games name their
tournament; a game's period is its tournament's ``rated_in``.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import Protocol

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext, gettext_lazy
from simple_history.models import HistoricalRecords

from ladder.records.bounds import TOURNAMENT_DATE_MESSAGE, dated_within
from ladder.records.codes import CONFLICT
from ladder.records.lists import RatingList
from ladder.records.periods import RatingPeriod
from ladder.records.text import refuse_control_characters

# 9.1: a tournament whose report misses the third list after its end is not rated. The lists
# after its end close the period holding its end and the two after it.
LATE_REPORT_PERIODS = 2


def months_between(earlier: date, later: date) -> int:
    """Return how many calendar months ``later``'s month lies after ``earlier``'s."""
    return (later.year - earlier.year) * 12 + later.month - earlier.month


def month_end(day: date) -> date:
    """Return the last day of ``day``'s month."""
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


class TournamentQuerySet(models.QuerySet["Tournament"]):
    def starting_before(self, day: date) -> TournamentQuerySet:
        """The tournaments that started before ``day`` (before the period they are rated in,
        when ``day`` is its start: they are rated with an earlier list)."""
        return self.filter(start__lt=day)


class Tournament(models.Model):
    """A rated event: its games use the ratings of the list in force on ``start``."""

    class Origin(models.TextChoices):
        ENTERED = "entered", "Entered"
        CSV = "csv", "CSV file"
        TRF = "trf", "TRF file"
        PGN = "pgn", "PGN file"

    name = models.CharField(max_length=200, validators=[refuse_control_characters])
    start = models.DateField(
        validators=dated_within(TOURNAMENT_DATE_MESSAGE),
        help_text=gettext_lazy("The first day: the list in force then rates every game."),
    )
    end = models.DateField(validators=dated_within(TOURNAMENT_DATE_MESSAGE))
    rating_list = models.CharField(
        "list", max_length=8, choices=RatingList.choices, default=RatingList.STANDARD
    )
    time_control = models.CharField(
        max_length=20,
        blank=True,
        help_text=gettext_lazy("Base minutes + increment seconds, e.g. 90+30."),
    )
    rated_in = models.ForeignKey(
        RatingPeriod,
        on_delete=models.PROTECT,
        related_name="tournaments",
        help_text=gettext_lazy(
            "The period whose list rates it: by default the one holding its last day; "
            "a later one for a late report (at most the third list after its end, 9.1)."
        ),
    )
    origin = models.CharField(max_length=8, choices=Origin.choices, default=Origin.ENTERED)
    origin_file = models.CharField(
        max_length=255,
        blank=True,
        help_text=gettext_lazy("The name of the TRF or PGN file it came from."),
    )
    created = models.DateTimeField(auto_now_add=True)

    objects = TournamentQuerySet.as_manager()
    history = HistoricalRecords()

    class Meta:
        verbose_name = gettext_lazy("tournament")
        verbose_name_plural = gettext_lazy("tournaments")
        ordering = ["start", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(start__lte=F("end")),
                name="tournament_start_before_end",
                violation_error_message=gettext_lazy("A tournament cannot end before it starts."),
            ),
            models.CheckConstraint(
                condition=Q(rating_list__in=RatingList.values),
                name="tournament_rating_list_valid",
                violation_error_message=gettext_lazy("Unknown list."),
            ),
            models.UniqueConstraint(
                fields=["name", "start", "rating_list"],
                name="tournament_once",
                violation_error_message=gettext_lazy(
                    "A tournament of this name, list and start is already recorded."
                ),
                violation_error_code=CONFLICT,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.start} to {self.end})"

    def clean(self) -> None:
        if self.start and self.end and self.end < self.start:
            raise ValidationError({"end": gettext("A tournament cannot end before it starts.")})
        if self.end and self.rated_in_id is not None:
            try:
                period = self.rated_in
            except RatingPeriod.DoesNotExist:  # the foreign key's own check names it
                return
            check_rated_in(self.end, period)

    @property
    def spans_periods(self) -> bool:
        """Whether it started before the period it is rated in (an earlier list rates it)."""
        return self.start < self.rated_in.start


class Dated(Protocol):
    """A tournament, recorded or as a file names it: its name and days."""

    @property
    def name(self) -> str: ...

    @property
    def start(self) -> date: ...

    @property
    def end(self) -> date: ...


def game_problems(tournament: Dated, day: date | None, rating_list: str) -> dict[str, str]:
    """The problems of a game dated ``day`` on ``rating_list`` in ``tournament``, by field:
    a day outside its dates, another list than a recorded tournament's."""
    problems: dict[str, str] = {}
    if day is not None and not tournament.start <= day <= tournament.end:
        problems["date"] = gettext(
            "%(day)s lies outside the tournament %(name)s (%(start)s to %(end)s)."
        ) % {"day": day, "name": tournament.name, "start": tournament.start, "end": tournament.end}
    if isinstance(tournament, Tournament) and tournament.rating_list != rating_list:
        problems["rating_list"] = gettext(
            "The tournament %(name)s is rated on the %(list)s list."
        ) % {"name": tournament.name, "list": tournament.get_rating_list_display().lower()}
    return problems


def check_rated_in(end: date, period: RatingPeriod) -> None:
    """Refuse a period that cannot rate a tournament ending on ``end`` (FIDE.md 10.1, 9.1)."""
    if period.end < end:
        raise ValidationError(
            {
                "rated_in": gettext(
                    "The period %(label)s ends on %(period_end)s, before the "
                    "tournament's last day (%(end)s): a tournament is rated in the period holding "
                    "its end, or a later one."
                )
                % {"label": period.label, "period_end": period.end, "end": end}
            }
        )
    late = months_between(end, period.start)
    if late > LATE_REPORT_PERIODS:
        raise ValidationError(
            {
                "rated_in": gettext(
                    "The period %(label)s is past the third list after the "
                    "tournament's end (%(end)s): FIDE does not rate a report that late (9.1)."
                )
                % {"label": period.label, "end": end}
            }
        )
