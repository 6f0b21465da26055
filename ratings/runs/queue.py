"""Rating runs: how a change to the records becomes new ratings.

1. A change records a *request* in its own transaction (``request_recompute``): a queued
   ``RatingRun`` naming the earliest period and the players whose own games or data changed.
   While a run is queued, every further change merges into it (at most one run waits), so the
   request is as durable as the change: a crash after the commit loses nothing.
2. Runs execute through Django's task interface (``ratings.runs.tasks.execute_runs``): right after
   the commit in the same process (``LADDER_RECOMPUTE=immediate``), or on worker processes that
   drain a database queue (``background``).
3. ``execute_pending`` runs the queued runs one at a time per database: it holds a lock that a
   dead process cannot keep (a PostgreSQL session advisory lock; on SQLite a file lock), so a
   run found *running* by whoever holds the lock was abandoned by a process that died, and is
   retried. Each run recomputes and records its outcome in one transaction: it is done with
   every rating written, or nothing of it is.
"""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from ladder.records import RatingList, RatingPeriod
from ladder.records import versions as data_version
from ratings.models import RatingRun, RunStatus
from ratings.recompute import services

logger = logging.getLogger(__name__)

LOCK_KEY = services.LOCK_KEY  # one run at a time, and no recompute beside it
MAX_ATTEMPTS = 3  # a run that fails this often stays failed (visible in the admin)
REASON_LENGTH = RatingRun._meta.get_field("reason").max_length or 300


# --- requests ---------------------------------------------------------------------------------


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
        run = _merge_into_queued(rating_list, period, players, reason, user)
        if run is None:
            run = _create_queued(rating_list, period, players, reason, user)
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


def _merge_into_queued(
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any,
) -> RatingRun | None:
    run = _locked_queued_run(rating_list)
    if run is None:
        return None
    _widen(run, period, players)
    if run.requested_by_id is None and user is not None and user.is_authenticated:
        run.requested_by, run.reason = user, reason[:REASON_LENGTH]
    run.changes += 1
    run.last_change_at = timezone.now()
    run.save(update_fields=["from_period", "players", "requested_by", "reason", "changes",
                            "last_change_at"])  # fmt: skip
    return run


def _widen(run: RatingRun, period: RatingPeriod | None, players: Iterable[int] | None) -> None:
    """Make ``run`` rate from the earlier period and for the union of the players."""
    current = run.from_period  # None: from the first period already
    if current is not None and (period is None or period.start < current.start):
        run.from_period = period
    if run.players is not None:
        run.players = None if players is None else sorted({*run.players, *players})


def _locked_queued_run(rating_list: str | None) -> RatingRun | None:
    """The waiting run of a list (None: the oldest of any list), locked until the caller's
    transaction ends (writers queue behind it)."""
    queued = RatingRun.objects.filter(status=RunStatus.QUEUED).select_related("from_period")
    if rating_list is not None:
        queued = queued.filter(rating_list=rating_list)
    return queued.order_by("pk").select_for_update(of=("self",)).first()


def _create_queued(
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any,
) -> RatingRun:
    run = RatingRun(
        rating_list=rating_list,
        from_period=period,
        players=None if players is None else sorted(set(players)),
        reason=reason[:REASON_LENGTH],
        requested_by=user if user is not None and user.is_authenticated else None,
    )
    try:
        with transaction.atomic():
            run.save()
    except IntegrityError:
        # Another transaction queued a run at the same moment: merge into that one instead.
        merged = _merge_into_queued(rating_list, period, players, reason, user)
        assert merged is not None
        return merged
    return run


def _schedule(run: RatingRun) -> None:
    """Have ``run`` executed once the caller's transaction commits.

    A database queue takes the task in the same transaction as the request, so the two commit
    together; the run keeps the task's id, so one task is enough however many changes merge.
    The immediate backend runs a task as it is enqueued, so it is enqueued after the commit, by
    every transaction: cheap when another already ran the run, and a run left queued by a
    process that died is picked up.
    """
    from ratings.runs.tasks import execute_runs

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


# --- execution --------------------------------------------------------------------------------


def execute_pending(*, wait: bool = False) -> list[RatingRun]:
    """Execute the queued runs one at a time until none is left; return the runs executed.

    Returns at once when another process is executing runs: it takes whatever is queued
    before it lets the lock go (see ``_executing``). With ``wait`` (PostgreSQL), waits for
    that process to finish instead, then executes what is still queued.
    """
    executed: list[RatingRun] = []
    while RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).exists():
        with _executing(wait=wait) as owner:
            if not owner:
                return executed
            _recover_abandoned()
            while batch := _claim():
                executed.extend(_execute(batch))
        # A run queued after our last claim, by a process that found the lock taken, is ours:
        # the loop condition sees it now that the lock is free.
        if not RatingRun.objects.filter(status=RunStatus.QUEUED).exists():
            break
    return executed


def sweep() -> bool:
    """Enqueue the run task if runs wait and nobody executes them; return whether it did.

    For workers (at start, then every so often): a run abandoned by a killed worker, or queued
    by a change whose task was lost, is retried without anyone acting.
    """
    from django_tasks_db.models import DBTaskResult

    from ratings.runs.tasks import execute_runs

    if not RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).exists():
        return False
    with _executing() as free:
        if not free:
            return False  # an executor is at work and takes whatever is queued
    ready = DBTaskResult.objects.ready().filter(task_path=execute_runs.module_path)
    if ready.exists():
        return False
    execute_runs.enqueue()
    return True


@contextmanager
def _executing(*, wait: bool = False) -> Iterator[bool]:
    """Hold the one-executor-per-database lock, if it is free (or, with ``wait`` on
    PostgreSQL, once it is); yield whether we hold it.

    A process that dies releases it (PostgreSQL drops a dead session's advisory locks; the
    kernel drops a dead process's file locks), so it can never be held by a run that is gone.
    SQLite never waits: a caller inside a write transaction holds the database lock that the
    executing process needs to finish.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            if wait:
                cursor.execute("SELECT pg_advisory_lock(%s), true", [LOCK_KEY])
            else:
                cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
            owner = bool(cursor.fetchone()[-1])
        try:
            yield owner
        finally:
            if owner:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
        return
    with open(_lock_path(), "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _lock_path() -> Path:
    """A lock file per SQLite database, beside it (or in the temp folder for a memory one)."""
    name = str(connection.settings_dict["NAME"])
    if name.startswith(("file:", ":memory:")) or not Path(name).parent.is_dir():
        # A memory database lives in one process: so does its lock.
        safe = "".join(c if c.isalnum() else "_" for c in name)[-60:]
        return Path(tempfile.gettempdir()) / f"ladder-runs-{os.getpid()}-{safe}.lock"
    return Path(f"{name}.runs.lock")


def _recover_abandoned() -> None:
    """Requeue runs left *running* by a process that died (we hold the executor lock)."""
    for run in RatingRun.objects.filter(status=RunStatus.RUNNING).select_related("from_period"):
        logger.warning("Rating run #%s was abandoned by a process that stopped; retrying.", run.pk)
        _retry(run, "The process running it stopped before it finished.")


def _claim() -> list[RatingRun]:
    """Take the oldest queued run and mark it running (committed, so everyone sees it).

    A full recompute takes along the other lists' queued full recomputes from the same period:
    they execute in one pass (``services.recompute_lists``), as ``recompute_ratings`` asks.
    """
    with transaction.atomic():
        run = _locked_queued_run(None)
        if run is None:
            return []
        _fold_failed(run)
        batch = [run]
        if run.players is None:
            others = (
                RatingRun.objects.filter(status=RunStatus.QUEUED)
                .exclude(pk=run.pk)
                .select_related("from_period")
                .order_by("pk")
                .select_for_update(of=("self",))
            )
            for other in others:
                _fold_failed(other)
                other.save(update_fields=["from_period", "players"])
                if other.players is None and other.from_period_id == run.from_period_id:
                    batch.append(other)
        for claimed in batch:
            claimed.status, claimed.started_at, claimed.finished_at = (
                RunStatus.RUNNING, timezone.now(), None
            )  # fmt: skip
            claimed.attempts += 1
            claimed.save(update_fields=["status", "started_at", "finished_at", "attempts",
                                        "from_period", "players"])  # fmt: skip
    return batch


def _fold_failed(run: RatingRun) -> None:
    """Take on the work of the runs of ``run``'s list that gave up (locked; not saved).

    It is not dropped: each later run takes it on again, so the ratings are never silently
    left stale (a lasting cause fails the later runs too, visibly, until it is mended).
    """
    given_up = RatingRun.objects.select_for_update(of=("self",)).select_related("from_period")
    failed_runs = given_up.filter(
        status=RunStatus.FAILED, folded_into__isnull=True, rating_list=run.rating_list
    )
    for failed in failed_runs:
        _widen(run, failed.from_period, failed.players)
        failed.folded_into = run
        failed.save(update_fields=["folded_into"])


def _execute(batch: list[RatingRun]) -> list[RatingRun]:
    """Recompute for the runs (one list, or full recomputes of several) and record the outcome
    in the same transaction."""
    try:
        with transaction.atomic():
            first = batch[0]
            if len(batch) == 1:
                summaries = {
                    first.rating_list: services.recompute_from(
                        first.from_period, rating_list=first.rating_list, players=first.players
                    )
                }
            else:
                summaries = services.recompute_lists(
                    first.from_period, rating_lists=[run.rating_list for run in batch]
                )
            for run in batch:
                summary = summaries[run.rating_list]
                run.status, run.finished_at, run.error = RunStatus.DONE, timezone.now(), ""
                run.periods = _span(summary.periods)
                run.players_changed, run.rows_written = summary.players_changed, summary.rows
                run.summary = str(summary)[:REASON_LENGTH]
                run.save()
    except Exception as error:  # recorded, retried, and visible when it keeps failing
        logger.exception("Rating run%s %s failed.", "s" if len(batch) > 1 else "",
                         ", ".join(f"#{run.pk}" for run in batch))  # fmt: skip
        for run in batch:
            _retry(run, f"{type(error).__name__}: {error}")
    return batch


def _retry(run: RatingRun, error: str) -> None:
    """Queue a failed or abandoned run again, or leave it failed after ``MAX_ATTEMPTS``."""
    with transaction.atomic():
        run.error, run.finished_at = error, timezone.now()
        if run.attempts >= MAX_ATTEMPTS:
            run.status = RunStatus.FAILED
            run.error = f"Gave up after {run.attempts} attempts. {error}"
            run.save()
            return
        queued = RatingRun.objects.filter(status=RunStatus.QUEUED, rating_list=run.rating_list)
        if not queued.exists():
            run.status = RunStatus.QUEUED
            run.save()
            return
        # Another change queued a run meanwhile: this run's work goes into that one.
        run.status = RunStatus.FAILED
        run.save()
        merged = _merge_into_queued(run.rating_list, run.from_period, run.players, run.reason, None)
        assert merged is not None
        run.error, run.folded_into = f"{error} Retried as run #{merged.pk}.", merged
        run.save(update_fields=["error", "folded_into"])


def describe(run: RatingRun) -> str:
    """Say in a sentence what a run did, or where it stands (naming the list, unless it is the
    standard one)."""
    text = _describe(run)
    if run.rating_list != RatingList.STANDARD:
        return f"{RatingList(run.rating_list).label} list: {text}"
    return text


def _describe(run: RatingRun) -> str:
    if run.status == RunStatus.DONE:
        return run.summary
    if run.status == RunStatus.FAILED:
        return f"Rating run #{run.pk} failed: {run.error}"
    where = (
        "a worker (manage.py rating_worker) will rate it"
        if settings.LADDER_RECOMPUTE == "background"
        else "another process is rating it"
    )
    return f"Rating run #{run.pk} is {run.status}: {where}."


def _span(labels: list[str]) -> str:
    if not labels:
        return ""
    return labels[0] if len(labels) == 1 else f"{labels[0]} to {labels[-1]}"


# --- freshness, for pages and the API ----------------------------------------------------------


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
    done = Q(status=RunStatus.DONE)
    # A failed run stops mattering once a later run has taken its work on and succeeded.
    unhealed = Q(status=RunStatus.FAILED) & (
        Q(folded_into__isnull=True) | ~Q(folded_into__status=RunStatus.DONE)
    )
    found = RatingRun.objects.aggregate(
        rated_up_to=Max("last_change_at", filter=done),
        pending=Count("pk", filter=Q(status__in=(RunStatus.QUEUED, RunStatus.RUNNING))),
        failed_run=Max("pk", filter=unhealed),
    )
    return Freshness(
        rated_up_to=found["rated_up_to"], pending=found["pending"], failed_run=found["failed_run"]
    )
