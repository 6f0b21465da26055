"""The executor: queued runs executed one at a time per database, failures retried."""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, transaction
from django.utils import timezone

from ladder.records import EventType, webhooks
from ratings.models import RatingRun, RunStatus
from ratings.recompute import services
from ratings.runs.queue import REASON_LENGTH, locked_queued_run, merge_into_waiting, widen

logger = logging.getLogger(__name__)

LOCK_KEY = services.LOCK_KEY  # one run at a time, and no recompute beside it
MAX_ATTEMPTS = 3  # a run that fails this often stays failed (visible in the admin)


def execute_pending(*, wait: bool = False) -> list[RatingRun]:
    """Execute the queued runs one at a time until none is left; return the runs executed.

    Returns at once when another process is executing runs: it takes whatever is queued
    before it lets the lock go (see ``executing``). With ``wait`` (PostgreSQL), waits for
    that process to finish instead, then executes what is still queued.
    """
    executed: list[RatingRun] = []
    while RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).exists():
        with executing(wait=wait) as owner:
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


@contextmanager
def executing(*, wait: bool = False) -> Iterator[bool]:
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
        run = locked_queued_run(None)
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
        widen(run, failed.from_period, failed.players)
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
                webhooks.emit(EventType.RUN_FINISHED, _event(run))
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
            webhooks.emit(EventType.RUN_FAILED, _event(run))
            return
        queued = RatingRun.objects.filter(status=RunStatus.QUEUED, rating_list=run.rating_list)
        if not queued.exists():
            run.status = RunStatus.QUEUED
            run.save()
            return
        # Another change queued a run meanwhile: this run's work goes into that one.
        run.status = RunStatus.FAILED
        run.save()
        merged = merge_into_waiting(run.rating_list, run.from_period, run.players, run.reason, None)
        run.error, run.folded_into = f"{error} Retried as run #{merged.pk}.", merged
        run.save(update_fields=["error", "folded_into"])


def _span(labels: list[str]) -> str:
    if not labels:
        return ""
    return labels[0] if len(labels) == 1 else f"{labels[0]} to {labels[-1]}"


def _event(run: RatingRun) -> dict[str, object]:
    """What a webhook event says of a run: its id, list, first period and outcome."""
    first = run.from_period.label if run.from_period else None
    return {
        "run": run.pk,
        "list": run.rating_list,
        "from_period": first,
        "from_period_id": run.from_period_id,
        "status": run.status,
        "periods": run.periods,
        "players_changed": run.players_changed,
        "error": run.error,
    }
