"""Requests: a change records what to recompute, and has the run task enqueued.

Imports one way: requests -> tasks -> executor, so nothing here is imported back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.db import transaction

from ladder.records import RatingPeriod
from ladder.records import versions as data_version
from ratings.models import RatingRun, RunStatus
from ratings.runs.executor import execute_pending, executing
from ratings.runs.queue import REASON_LENGTH, create_queued, merge_into_queued
from ratings.runs.tasks import execute_runs


def request_recompute(
    *,
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any = None,
    schedule: bool = True,
) -> RatingRun:
    """Record that ratings on ``rating_list`` must be recomputed from ``period`` (None: the
    first) for ``players`` (None: everyone), in the caller's transaction; return the queued
    run it went into (one waits per list).

    The run executes after the commit: at once in this process, or on a worker. With
    ``schedule=False`` it is only recorded, for a caller about to write (a ``pre_save``
    receiver): it executes with the next scheduled request, or by a worker's sweep.
    """
    with transaction.atomic():
        run = merge_into_queued(rating_list, period, players, reason, user)
        if run is None:
            run = create_queued(rating_list, period, players, reason, user)
        if schedule:
            _schedule(run)
        # What the reads show changed (the games, bulk-written, send no signal of their own).
        data_version.bump_on_commit()
    return run


def schedule_queued() -> None:
    """Have the queued runs, if any, executed after the caller's commit."""
    for run in RatingRun.objects.filter(status=RunStatus.QUEUED):
        _schedule(run)


def attribute_change(*, reason: str, user: Any, rating_lists: Iterable[str]) -> None:
    """Name the change and the user behind the queued runs of these lists, unless someone is
    named already.

    For actions, which know who made a change: the signal receivers that record the request
    do not.
    """
    if user is None or not user.is_authenticated:
        return
    RatingRun.objects.filter(
        status=RunStatus.QUEUED, requested_by__isnull=True, rating_list__in=set(rating_lists)
    ).update(requested_by=user, reason=reason[:REASON_LENGTH])


def _schedule(run: RatingRun) -> None:
    """Have ``run`` executed once the caller's transaction commits.

    A database queue takes the task in the same transaction as the request, so the two commit
    together; the run keeps the task's id, so one task is enough however many changes merge.
    The immediate backend runs a task as it is enqueued, so it is enqueued after the commit, by
    every transaction: cheap when another already ran the run, and a run left queued by a
    process that died is picked up.
    """
    if settings.LADDER_RECOMPUTE != "background":
        transaction.on_commit(execute_runs.enqueue)
    elif not run.task_id:
        run.task_id = str(execute_runs.enqueue().id)
        run.save(update_fields=["task_id"])


def settle(*, wait: bool = False) -> None:
    """In immediate mode, execute what is queued now: for commands, which report the outcome
    (the commit already did, unless they run inside an outer transaction). With ``wait``, a
    run another process is executing is waited for (``execute_pending``)."""
    if settings.LADDER_RECOMPUTE != "background":
        execute_pending(wait=wait)


def queued_run_ids() -> list[int]:
    """Return the ids of the runs (one a list) that will rate what this transaction changed.

    Inside a transaction that requested a recompute these are the runs it merged into: the
    transaction holds their rows' locks until it commits, so no worker can have taken them.
    """
    queued = RatingRun.objects.filter(status=RunStatus.QUEUED).order_by("pk")
    return list(queued.values_list("pk", flat=True))


def report_on_commit(report: Callable[[RatingRun | None], None]) -> None:
    """Call ``report`` with each run rating this transaction's changes, after the commit
    (with None when there is none).

    In immediate mode the runs have executed by then (their callbacks were registered first),
    so ``report`` sees them done; in background mode they are still queued or running.
    """
    run_ids = queued_run_ids()

    def after_commit() -> None:
        found = list(RatingRun.objects.filter(pk__in=run_ids).order_by("pk"))
        if not found:
            report(None)
        for run in found:
            report(run)

    transaction.on_commit(after_commit)


def sweep() -> bool:
    """Enqueue the run task if runs wait and nobody executes them; return whether it did.

    For workers (at start, then every so often): a run abandoned by a killed worker, or queued
    by a change whose task was lost, is retried without anyone acting.
    """
    from django_tasks_db.models import DBTaskResult

    if not RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).exists():
        return False
    with executing() as free:
        if not free:
            return False  # an executor is at work and takes whatever is queued
    ready = DBTaskResult.objects.ready().filter(task_path=execute_runs.module_path)
    if ready.exists():
        return False
    execute_runs.enqueue()
    return True
