"""Rating periods and their log (why and by whom a period was closed or reopened)."""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import date

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from simple_history.models import HistoricalRecords

from ladder.records.bounds import PERIOD_DATE_MESSAGE, dated_within
from ladder.records.text import (
    PERIOD_LABEL_VALIDATOR,
    refuse_control_characters_but_lines,
)


class PeriodStatus(models.TextChoices):
    OPEN = "open", gettext_lazy("Open")
    CLOSED = "closed", gettext_lazy("Closed")


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

    def reopened(self) -> RatingPeriodQuerySet:
        """The periods reopened for corrections: open again after a close (``is_reopened``)."""
        reopens = PeriodLog.objects.filter(period=OuterRef("pk"), action=PeriodLog.Action.REOPENED)
        return self.filter(Exists(reopens), status=PeriodStatus.OPEN)


def _month(day: date) -> tuple[date, date]:
    return day.replace(day=1), day.replace(day=calendar.monthrange(day.year, day.month)[1])


class RatingPeriod(models.Model):
    label = models.CharField(
        max_length=20,
        unique=True,
        validators=[PERIOD_LABEL_VALIDATOR],
        help_text=gettext_lazy("e.g. 2026-03 for a month."),
    )
    # The last day is bounded more tightly by the write path (``latest_game_date``).
    start = models.DateField(unique=True, validators=dated_within(PERIOD_DATE_MESSAGE)[:1])
    end = models.DateField(validators=dated_within(PERIOD_DATE_MESSAGE)[:1])
    status = models.CharField(
        max_length=6, choices=PeriodStatus.choices, default=PeriodStatus.OPEN, editable=False
    )
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    objects = RatingPeriodQuerySet.as_manager()
    history = HistoricalRecords()

    class Meta:
        verbose_name = gettext_lazy("rating period")
        verbose_name_plural = gettext_lazy("rating periods")
        ordering = ["start"]
        constraints = [
            models.CheckConstraint(
                condition=Q(start__lte=F("end")),
                name="period_start_before_end",
                violation_error_message=gettext_lazy("A period cannot end before it starts."),
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
                raise ValidationError({"end": gettext("A period cannot end before it starts.")})
            clash = (
                RatingPeriod.objects.overlapping(self.start, self.end).exclude(pk=self.pk).first()
            )
            if clash is not None:
                raise ValidationError(
                    gettext(
                        "The period %(start)s to %(end)s overlaps %(label)s "
                        "(%(clash_start)s to %(clash_end)s); periods cannot overlap."
                    )
                    % {
                        "start": self.start,
                        "end": self.end,
                        "label": clash.label,
                        "clash_start": clash.start,
                        "clash_end": clash.end,
                    }  # fmt: skip
                )
        if self.pk and self.start and self.end:
            outside = self.games.exclude(date__gte=self.start, date__lte=self.end)
            if outside.exists():
                raise ValidationError(
                    gettext(
                        "Games of this period would fall outside its new dates; move them first."
                    )
                )

    @property
    def is_closed(self) -> bool:
        return self.status == PeriodStatus.CLOSED

    @property
    def is_reopened(self) -> bool:
        """Whether the period is open again after a close, for corrections (its list was
        published; closing it again publishes a revision). The one test of it: the
        QuerySet's ``reopened()`` asks the same of many periods."""
        return not self.is_closed and self.last_reopen() is not None

    def last_reopen(self) -> PeriodLog | None:
        """The latest reopen recorded in the period's log (who, when, why), or None."""
        return self.log.filter(action=PeriodLog.Action.REOPENED).order_by("-at", "-pk").first()

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
                    "date": gettext(
                        "No rating period holds %(day)s, and the month's period "
                        "would overlap %(label)s; create a period for this date first."
                    )
                    % {"day": day.isoformat(), "label": clash.label}
                }
            )
        return f"{start.year:04d}-{start.month:02d}", start, end

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


class PeriodLog(models.Model):
    """Why and by whom a period was closed or reopened (a reopen needs a reason)."""

    class Action(models.TextChoices):
        CLOSED = "closed", gettext_lazy("Closed")
        REOPENED = "reopened", gettext_lazy("Reopened")

    period = models.ForeignKey(RatingPeriod, on_delete=models.CASCADE, related_name="log")
    action = models.CharField(max_length=8, choices=Action.choices)
    reason = models.TextField(blank=True, validators=[refuse_control_characters_but_lines])
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("period log")
        verbose_name_plural = gettext_lazy("period logs")
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.period} {self.action} {self.at:%Y-%m-%d %H:%M}"


def closed_message(period: RatingPeriod) -> str:
    """Say that a period is closed and how to reopen it, for every door alike."""
    return gettext(
        "The period %(label)s is closed; its games are frozen. Reopen it first "
        "(admin action 'Reopen', or: manage.py reopen_period %(label)s --reason '...')."
    ) % {"label": period.label}
