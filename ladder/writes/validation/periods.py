"""Rating periods added, changed or deleted: the rules that keep published lists as they are."""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import date

from django.core.exceptions import ValidationError
from django.db.models import Count
from django.utils.translation import gettext, ngettext

from ladder.exceptions import (
    PeriodClosedError,
)
from ladder.records import (
    BaseCorrection,
    Game,
    PeriodStatus,
    RatingPeriod,
)
from ladder.writes.validation.games import (
    latest_game_date,
)
from ratings.models import Publication

# --- periods ------------------------------------------------------------------------------------

# FIDE published its lists every two months from 1 July 2009 to 30 June 2012, monthly since
# (FIDE.md 10.2): a club replaying those years may keep two-month periods there, and no longer
# ones anywhere; everywhere else a period is at most one month long.
TWO_MONTH_LISTS = (date(2009, 7, 1), date(2012, 6, 30))


def check_period(period: RatingPeriod, *, stored: RatingPeriod | None = None) -> None:
    """Refuse a new period, or a change to the ``stored`` one, that would move a published list.

    A closed period's label and dates belong to its published list (``PeriodClosedError``).
    New dates may not start on or before the end of the latest closed period (a game in it
    would change the lists after it), end after the last day a game may be dated (its year would
    become the current one), or span more than a month (two in FIDE's two-month years).
    """
    if stored is not None and stored.is_closed:
        changed = [name for name in ("label", "start", "end")
                   if getattr(period, name) != getattr(stored, name)]  # fmt: skip
        if changed:
            message = gettext(
                "The period %(label)s is closed; its label and dates belong to its "
                "published list. Reopen it first (admin action 'Reopen', or: manage.py "
                "reopen_period %(label)s --reason '...')."
            ) % {"label": stored.label}
            raise PeriodClosedError(dict.fromkeys(changed, message))
        return
    if period.start is None or period.end is None or period.end < period.start:
        return  # the model's own checks say what is missing or reversed
    if stored is not None and (stored.start, stored.end) == (period.start, period.end):
        return  # a new label only: no game changes list
    problems: dict[str, list[str]] = {}
    latest = (
        RatingPeriod.objects.filter(status=PeriodStatus.CLOSED)
        .exclude(pk=period.pk)
        .order_by("-end")
        .first()
    )
    if latest is not None and period.start <= latest.end:
        problems["start"] = [
            gettext(
                "A period must start after %(end)s, the end of %(label)s "
                "(the latest published list): its games would change lists already published."
            )
            % {"end": latest.end.isoformat(), "label": latest.label}
        ]
    bound = latest_game_date()
    if period.end > bound:
        problems["end"] = [
            gettext(
                "A period cannot end after %(bound)s, the last day a game may be dated "
                "today: %(end)s is still to come."
            )
            % {"bound": bound.isoformat(), "end": period.end.isoformat()}
        ]
    months = 2 if TWO_MONTH_LISTS[0] <= period.start <= TWO_MONTH_LISTS[1] else 1
    longest = longest_period_end(period.start, months)
    if months == 2 and longest > TWO_MONTH_LISTS[1]:
        longest = max(TWO_MONTH_LISTS[1], longest_period_end(period.start, 1))
    if period.end > longest:
        if months == 1:
            message = gettext(
                "A rating period is at most one month long (FIDE publishes its lists monthly): "
                "a period starting on %(start)s ends on %(longest)s at the latest."
            )
        else:
            message = gettext(
                "A rating period is at most two months long (FIDE published its lists every "
                "two months until June 2012): a period starting on %(start)s ends on "
                "%(longest)s at the latest."
            )
        problems.setdefault("end", []).append(
            message % {"start": period.start.isoformat(), "longest": longest.isoformat()}
        )
    if problems:
        raise ValidationError(problems)


def longest_period_end(start: date, months: int) -> date:
    """The last day of a period of ``months`` months from ``start`` (the day before the same
    day ``months`` months later; the 1st of a month gives that month's last day)."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    day = min(start.day, calendar.monthrange(year, month)[1])
    return date.fromordinal(date(year, month, day).toordinal() - 1)


def check_period_deletion(periods: Iterable[RatingPeriod]) -> None:
    """Refuse to delete a closed period, one with games, or one whose list was ever published
    (its publications are kept); every refused period is named in one ``ValidationError``."""
    periods = sorted(periods, key=lambda p: p.start)
    pks = [p.pk for p in periods]
    games = dict(
        Game.objects.filter(period__in=pks)
        .values("period")
        .annotate(n=Count("pk"))
        .values_list("period", "n")
    )
    published = set(Publication.objects.filter(period__in=pks).values_list("period", flat=True))
    corrected = set(BaseCorrection.objects.filter(period__in=pks).values_list("period", flat=True))
    problems = []
    for period in periods:
        if period.is_closed:
            problems.append(
                gettext(
                    "The period %(label)s is closed; its published list is kept, so it "
                    "cannot be deleted."
                )
                % {"label": period.label}
            )
        elif period.pk in games:
            count = games[period.pk]
            problems.append(
                ngettext(
                    "The period %(label)s holds %(count)s game; delete or move them first.",
                    "The period %(label)s holds %(count)s games; delete or move them first.",
                    count,
                )
                % {"label": period.label, "count": count}
            )
        elif period.pk in corrected:
            problems.append(
                gettext("The period %(label)s holds base corrections; delete them first.")
                % {"label": period.label}
            )
        elif period.pk in published:
            problems.append(
                gettext(
                    "The list of %(label)s was published before the period was reopened; "
                    "published lists are kept, so it cannot be deleted."
                )
                % {"label": period.label}
            )
    if problems:
        raise ValidationError(problems)
