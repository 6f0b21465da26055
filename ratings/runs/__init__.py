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

from ratings.runs.executor import LOCK_KEY, MAX_ATTEMPTS, execute_pending
from ratings.runs.queue import REASON_LENGTH
from ratings.runs.requests import (
    attribute_change,
    queued_run_ids,
    report_on_commit,
    request_recompute,
    schedule_queued,
    settle,
    sweep,
)
from ratings.runs.status import Freshness, describe, freshness

__all__ = [
    "attribute_change",
    "describe",
    "execute_pending",
    "Freshness",
    "freshness",
    "LOCK_KEY",
    "MAX_ATTEMPTS",
    "queued_run_ids",
    "REASON_LENGTH",
    "report_on_commit",
    "request_recompute",
    "schedule_queued",
    "settle",
    "sweep",
]
