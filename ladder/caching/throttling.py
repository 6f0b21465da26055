"""The anonymous API throttle, counted per client in the shared cache (see settings CACHES).

DRF's own ``SimpleRateThrottle`` keeps, per client, the list of its request times within the
period and reads and writes that whole list on every request: at a rate of thousands an hour
the list is thousands long, and the throttle cost more than the read it guarded (issue 14's
profile). This one keeps two counters per client instead, this window's and the last one's,
and estimates the requests of the sliding period from them (the last window's count weighted
by the part of it the period still covers): constant work per request, at any rate. On Redis
the counting is one round trip (``ladder.caching.backends.RedisCache.count``, or ``read`` with the
read
cache's own lookups); elsewhere a read and a write, as DRF's.


An anonymous API read is counted by ``ladder.caching.read_cache.ReadCacheMiddleware`` before any
view
runs (its answer may be kept); DRF's dispatch then finds that decision on the request and takes
it, so that a request is counted once.
"""

from __future__ import annotations

import math
import random
from typing import Any

from django.db import connection
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle

from ladder.caching.clients import client_ip
from ladder.records import ThrottleCount

_TABLE = ThrottleCount._meta.db_table
# One statement, on PostgreSQL and SQLite alike: a client's first request makes its row; a
# request in the same window adds one; the first of a new window moves the count to
# ``previous`` (if the last window was the one just before) and starts at one.
_COUNT = f"""
INSERT INTO {_TABLE} (key, slot, count, previous) VALUES (%s, %s, 1, 0)
ON CONFLICT (key) DO UPDATE SET
    previous = CASE WHEN {_TABLE}.slot = excluded.slot THEN {_TABLE}.previous
                    WHEN {_TABLE}.slot = %s THEN {_TABLE}.count ELSE 0 END,
    count = CASE WHEN {_TABLE}.slot = excluded.slot THEN {_TABLE}.count + 1 ELSE 1 END,
    slot = excluded.slot
RETURNING previous, count
"""
_UNCOUNT = f"UPDATE {_TABLE} SET count = count - 1 WHERE key = %s AND slot = %s AND count > 0"
_SWEEP = 0.001  # one request in a thousand sweeps out the rows of clients gone quiet
_SWEEP_SQL = f"DELETE FROM {_TABLE} WHERE slot < %s"

_DECIDED = "ladder_throttle"  # the request attribute holding the decision made for it


class AnonThrottle(AnonRateThrottle):
    """Anonymous requests per client (``ladder.caching.clients`` reads the client: DRF's own reading
    trusts any ``X-Forwarded-For``), counted in a sliding window of the rate's period.

    A refused request is not counted, as with DRF's throttle: a client that waits the
    ``Retry-After`` it was given is served again.
    """

    # Set by DRF's ``__init__`` from the rate; its type stubs do not declare them.
    num_requests: int
    duration: int

    def get_ident(self, request: Any) -> str:
        return client_ip(request)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        # Before the authentication middleware (the read cache's), a request has no user yet:
        # it is anonymous there (no session cookie, no Authorization header, or it is not
        # asked).
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request: Any, view: Any) -> bool:
        decided = getattr(request, _DECIDED, None)  # DRF's Request reads its HttpRequest's
        if decided is not None and decided is not self:
            self.__dict__.update(decided.__dict__)  # its figures, for Retry-After
            return bool(decided.allowed)
        if self.rate is None or self.prepare(request) is None:
            return True
        current, timeout, previous = self.counters()
        where = self._counted_in()
        if where == "redis":  # one round trip
            counts = self.cache.count(current, timeout, also=previous)  # type: ignore[attr-defined]
            return self.settle(*counts)
        if where == "database":
            return self.settle(*self._count_in_database())
        # Another cache (a process's own memory, in development and tests): read, then write.
        found = self.cache.get_many([current, previous])
        self.before, self.counted = found.get(previous, 0), found.get(current, 0)
        self.allowed = self._estimate() < self.num_requests
        if self.allowed:
            self.cache.set(current, self.counted + 1, timeout)
        setattr(request, _DECIDED, self)
        return self.allowed

    def _counted_in(self) -> str:
        """Where the counters are: ``redis`` (``ladder.caching.backends.RedisCache``), ``database``
        (``ladder.caching.backends.DatabaseCache``: the ``ThrottleCount`` table), or ``cache``."""
        if hasattr(self.cache, "count"):
            return "redis"
        return "database" if hasattr(self.cache, "read_with_version") else "cache"

    def prepare(self, request: Any) -> str | None:
        """The client's key (None: not throttled); the clock read for this request."""
        self.key = self.get_cache_key(request, None)
        self.now = self.timer()
        setattr(request, _DECIDED, None)
        self.request = request
        return self.key

    def counters(self) -> tuple[str, int, str]:
        """This window's counter, how long to keep it, and the last window's counter."""
        window, self.into = divmod(self.now, self.duration)
        current, previous = f"{self.key}:{int(window)}", f"{self.key}:{int(window) - 1}"
        return current, 2 * self.duration, previous  # a window is read in the next one too

    def settle(self, before: int, counted: int) -> bool:
        """Decide from the counters as read with this request counted in the current one (an
        atomic count); take the count back if refused."""
        self.before, self.counted = before, counted - 1
        self.allowed = self._estimate() < self.num_requests
        where = self._counted_in()
        if not self.allowed:
            if where == "redis":
                self.cache.decr(self.counters()[0])
            else:
                self._uncount_in_database()
        if where == "database" and random.random() < _SWEEP:
            with connection.cursor() as cursor:  # the rows of clients gone quiet
                cursor.execute(_SWEEP_SQL, [int(self.now) - 2 * self.duration])
        setattr(self.request, _DECIDED, self)
        return self.allowed

    def database_count(self) -> tuple[str, list[Any]]:
        """The statement that counts this request in ``ThrottleCount`` (with the database
        cache), and its parameters: one atomic upsert that moves the client's row on to this
        window when it is a new one; it returns the last window's count and this one's."""
        self.counters()
        slot = int(self.now - self.into)  # this window's start, in seconds
        return _COUNT, [self.key, slot, slot - self.duration]

    def _count_in_database(self) -> tuple[int, int]:
        sql, params = self.database_count()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        return int(row[0]), int(row[1])

    def _uncount_in_database(self) -> None:
        slot = int(self.now - self.into)
        with connection.cursor() as cursor:
            cursor.execute(_UNCOUNT, [self.key, slot])

    def _estimate(self) -> float:
        """The requests of the sliding period before this one."""
        return self.before * (1 - self.into / self.duration) + self.counted

    def wait(self) -> float | None:
        """Whole seconds until a request would be served again, if no other came meanwhile."""
        excess = self._estimate() - self.num_requests  # what must slide out, and a little more
        left = self.duration - self.into
        if self.before and excess < self.before * left / self.duration:
            until = excess * self.duration / self.before  # the last window slides out
        else:  # then this window slides out in its turn
            until = left + (self.counted - self.num_requests) * self.duration / self.counted
        return math.floor(until + 1e-9) + 1  # past the instant the estimate is the limit


def window_throttles(request: Any) -> list[Any]:
    """The API's throttles, ready to count ``request`` (``ladder.caching.read_cache``): the ones
    that
    throttle it, each prepared (its key and clock read)."""
    throttles = []
    classes: list[Any] = list(api_settings.DEFAULT_THROTTLE_CLASSES)  # classes, once imported
    for throttle_class in classes:
        throttle = throttle_class()
        if not isinstance(throttle, AnonThrottle):
            throttles.append(throttle)  # counted by its own allow_request
        elif throttle.rate is not None and throttle.prepare(request) is not None:
            throttles.append(throttle)
    return throttles
