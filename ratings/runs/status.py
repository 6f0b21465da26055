"""Where runs stand, in words, and how fresh the ratings are: for pages, the API, commands."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, IntegerField, Max, Q, QuerySet, Subquery, Value
from django.utils.translation import gettext

from ladder.records import RatingList
from ladder.records.compiled import Compiled
from ladder.records.translations import rules_text
from ratings.models import RatingRun, RunStatus
from ratings.recompute import summary  # noqa: F401  (marks the summaries' templates)


def describe(run: RatingRun) -> str:
    """Say in a sentence what a run did, or where it stands (naming the list, unless it is the
    standard one)."""
    text = _describe(run)
    if run.rating_list != RatingList.STANDARD:
        return gettext("%(list)s list: %(text)s") % {
            "list": RatingList(run.rating_list).label,
            "text": text,
        }
    return text


def _describe(run: RatingRun) -> str:
    if run.status == RunStatus.DONE:
        return rules_text(run.summary)  # stored in English, shown in the reader's language
    if run.status == RunStatus.FAILED:
        return gettext("Rating run #%(id)s failed: %(error)s") % {"id": run.pk, "error": run.error}
    if settings.LADDER_RECOMPUTE == "background":
        if run.status == RunStatus.QUEUED:
            return gettext(
                "Rating run #%(id)s is queued: a worker (manage.py rating_worker) will rate it."
            ) % {"id": run.pk}
        return gettext(
            "Rating run #%(id)s is running: a worker (manage.py rating_worker) will rate it."
        ) % {"id": run.pk}
    if run.status == RunStatus.QUEUED:
        return gettext("Rating run #%(id)s is queued: another process is rating it.") % {
            "id": run.pk
        }
    return gettext("Rating run #%(id)s is running: another process is rating it.") % {"id": run.pk}


@dataclass(frozen=True)
class Freshness:
    """How fresh the stored ratings are: the latest change rated, and whether runs wait."""

    rated_up_to: datetime | None  # the latest change that a finished run rated
    pending: int  # runs queued or running: results entered since are still being rated
    failed_run: int | None  # the latest run, when it failed and nothing has succeeded since

    @property
    def current(self) -> bool:
        return not self.pending and self.failed_run is None


def freshness() -> Freshness:
    """Read how fresh the ratings are, in one query."""
    found = _FRESHNESS.rows()  # one row: the aggregates of every run
    if not found:  # (a GROUP BY of no runs would have none)
        return Freshness(rated_up_to=None, pending=0, failed_run=None)
    rated_up_to, pending, failed_run = found[0]
    return Freshness(rated_up_to=rated_up_to, pending=pending, failed_run=failed_run)


def _freshness() -> QuerySet[Any, Any]:
    """The query of ``freshness``, compiled once per process (``_FRESHNESS``) and run afresh
    each time: building and compiling its filtered aggregates was nine tenths of it, and it is
    read on every page and by the API's cheapest read.

    Runs are kept (the admin lists them): the aggregates read only the runs that can change
    them, the ones waiting or failed and the latest change done (an index each), not every
    run ever made (50,000 runs: 38-62 ms a page, against 0.3)."""
    done = Q(status=RunStatus.DONE)
    # A failed run stops mattering once a later run has taken its work on and succeeded.
    unhealed = Q(status=RunStatus.FAILED) & (
        Q(folded_into__isnull=True) | ~Q(folded_into__status=RunStatus.DONE)
    )
    latest_done = RatingRun.objects.filter(done).order_by("-last_change_at").values("pk")[:1]
    counted = Q(status__in=(RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.FAILED))
    # Grouped by a constant: the aggregates of those runs, as ``aggregate()`` reads them.
    return (
        RatingRun.objects.filter(counted | Q(pk=Subquery(latest_done)))
        .order_by()
        .annotate(everything=Value(1, IntegerField()))
        .values("everything")
        .annotate(
            rated_up_to=Max("last_change_at", filter=done),
            pending=Count("pk", filter=Q(status__in=(RunStatus.QUEUED, RunStatus.RUNNING))),
            failed_run=Max("pk", filter=unhealed),
        )
        .values_list("rated_up_to", "pending", "failed_run")
    )


_FRESHNESS = Compiled(_freshness)
