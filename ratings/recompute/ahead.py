"""The games of a replay's periods read ahead, on a connection of their own (PostgreSQL).

A replay of many periods alternates: the server reads a period's games while Python waits,
then Python rates them while the server waits, then the server stores the rows. Reading the
next periods' games on a second connection, in a thread, lets the server read them on the
other core while the replay's own connection stores rows (the history benchmark's replay
waited for the games read a tenth of its time; docs/benchmarks.md).

The second connection sees what is committed, as each statement of the replay's own
transaction does (READ COMMITTED), so it reads ahead only for a transaction that has written
nothing yet (``storage.begin``): a preview that wrote games before it recomputes, or a test
inside its transaction, reads its games itself. Whatever goes wrong on the second connection
(it cannot connect, a lock waits too long), the replay reads the rest of the games itself:
reading ahead makes a replay faster, never different.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import psycopg
from django.db import connection

from ladder.records import RatingPeriod
from ratings.recompute import bulk

logger = logging.getLogger(__name__)

# Periods read ahead of the one being rated: enough to keep the server reading while the
# replay rates and stores one; each is a few MB of packed games at a federation's size.
DEPTH = 2
# A lock the read waits for longer than this (a migration's, queued behind the replay's own
# transaction) ends the reading ahead instead of waiting on the replay that waits on it.
_LOCK_TIMEOUT = "2s"
# The reading thread's name, and the second connection's application_name (pg_stat_activity).
THREAD = "ladder games ahead"

Groups = list[tuple[tuple[Any, ...], np.ndarray]]
Query = tuple[int, str, Sequence[Any], np.dtype[Any]]


class Half(NamedTuple):
    """One of two halves of a period's games, cut at a page of the games table: the games
    stored before ``page`` (``low``) or from it on. Two connections each read one half at
    once, each scanning its own pages (a TID range scan, PostgreSQL 14+)."""

    low: bool
    page: int

    def other(self) -> Half:
        return Half(not self.low, self.page)


class GamesAhead:
    """Reads the packed games of each period in turn (``storage.games_query``), ahead of the
    replay; ``take`` returns them period by period, in the same order, or None once the
    reading ahead has stopped (the caller then reads for itself)."""

    def __init__(self, queries: list[Query], *, half_left: tuple[int, Half] | None = None) -> None:
        self._queries = queries
        self._half_left = half_left
        self._found: queue.Queue[tuple[int, Groups] | BaseException] = queue.Queue(DEPTH)
        self._stop = threading.Event()
        self._stopped = False
        self._params = connection.get_connection_params()
        self._thread = threading.Thread(target=self._read, name=THREAD, daemon=True)

    def __enter__(self) -> GamesAhead:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        while self._thread.is_alive():  # free a put waiting for room, then let it see the stop
            with contextlib.suppress(queue.Empty):
                self._found.get(timeout=0.05)
        self._thread.join()

    def half_left(self, period: RatingPeriod) -> Half | None:
        """For the period whose games this reads one half of (the first of a replay, which
        nothing else overlaps), the half (``storage.games_query``) left to the caller, to
        read on its own connection meanwhile; asked once. The two halves together take
        about two thirds of the whole's time on a 2-core machine (docs/benchmarks.md)."""
        if self._half_left is None or self._half_left[0] != period.pk:
            return None
        half, self._half_left = self._half_left[1], None
        return half

    def take(self, period: RatingPeriod) -> Groups | None:
        """The packed games of ``period`` (the next one read), or None."""
        if self._stopped:
            return None
        while True:
            try:
                found = self._found.get(timeout=0.5)
                break
            except queue.Empty:
                if not self._thread.is_alive() and self._found.empty():  # ended, nothing sent
                    self._stopped = True
                    return None
        if isinstance(found, BaseException) or found[0] != period.pk:
            if isinstance(found, BaseException):
                logger.warning("Reading the games ahead stopped: %s", found)
            self._stopped = True
            return None
        return found[1]

    def _read(self) -> None:
        try:
            params = {k: v for k, v in self._params.items() if k != "cursor_factory"}
            params["application_name"] = THREAD
            with psycopg.Connection.connect(**params, autocommit=True) as side:
                side.execute(
                    "SELECT set_config('lock_timeout', %s, false), set_config('jit', 'off', false)",
                    [_LOCK_TIMEOUT],
                )
                for pk, sql, values, dtype in self._queries:
                    with psycopg.Cursor(side) as cursor:
                        cursor.execute(sql, values, binary=True)
                        groups = bulk.unpacked(cursor.fetchall(), dtype)
                    if not self._put((pk, groups)):
                        return
        except Exception as error:  # the replay reads for itself from here on
            self._put(error)

    def _put(self, item: tuple[int, Groups] | BaseException) -> bool:
        while not self._stop.is_set():
            try:
                self._found.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False
