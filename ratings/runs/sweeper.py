"""The sweeper: each serving process picks up rating runs that nobody executes.

In immediate mode a run executes in the process that committed its change, right after the
commit. If that process is killed between the commit and the end of the run, the run stays
queued or "running" with nobody at work, and before this sweeper it was picked up only by
some later, unrelated write. So every serving process starts one daemon thread (on its first
request, again after a fork) that sweeps soon after it starts and then every
``LADDER_RUN_SWEEP_SECONDS``: when runs wait and no process holds the executor's lock, it
executes them (``requests.sweep``; a run left running by a dead process is retried). Each sweep
also sends ``swept``, on which webhook deliveries a stopped process left are taken up. Background
workers sweep by themselves (``manage.py rating_worker``).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.db import close_old_connections, connection
from django.dispatch import Signal

from ratings.runs import requests

logger = logging.getLogger(__name__)
FIRST_SWEEP_SECONDS = 5.0  # after a process starts: a run its predecessor left is not kept long
_started_in: int | None = None  # the process whose thread runs (a fork starts its own)
_starting = threading.Lock()


def start(seconds: float) -> bool:
    """Start this process's sweeper thread unless it runs already (or ``seconds`` is 0);
    return whether it was started."""
    global _started_in
    if seconds <= 0:
        return False
    with _starting:
        if _started_in == os.getpid():
            return False
        _started_in = os.getpid()
    thread = threading.Thread(target=_loop, args=(seconds,), name="ladder-run-sweeper")
    thread.daemon = True
    thread.start()
    return True


def _loop(seconds: float) -> None:
    time.sleep(min(seconds, FIRST_SWEEP_SECONDS))
    while True:
        close_old_connections()
        try:
            tick()
        finally:
            connection.close()  # this thread's own connection: never held between sweeps
        time.sleep(seconds)


# Sent on each sweep, for what else a stopped process may have left (webhook deliveries:
# ``ladder.writes.webhooks.sweep``, a layer above this one).
swept = Signal()


def tick() -> bool:
    """Sweep once; return whether runs were set going. Never raises: a sweep that fails (the
    database away for a moment) is logged, and the next one tries again."""
    for receiver, outcome in swept.send_robust(sender=tick):
        if isinstance(outcome, Exception):
            logger.error("The sweep of %s failed; it is tried again later.", receiver,
                         exc_info=outcome)  # fmt: skip
    try:
        return requests.sweep()
    except Exception:  # a daemon thread has nobody to raise to
        logger.exception("The sweep for waiting rating runs failed; it is tried again later.")
        return False
