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


A process need not ask the shared store about every request. When it counts one there, it also
reserves the client's next few (twice what the client asked of it since its last count, within
a sixteenth of what the client has left: none near the limit). A reservation is counted in the
store at once, as if served; the process serves it (``_Ledger``) for
``LADDER_THROTTLE_SYNC_SECONDS`` (default 1) without asking the store, and gives back what it
did not serve with its next count. Since a request is counted before it is served, no number
of processes lets a client through more than its limit. What it costs: near its limit a client
may be refused a little early while other processes hold reservations it has not used (for a
second at most), and a process that dies never gives its reservations back. Measured with
wrk, counting in the store at every request took a fifth of the cheapest API read's
throughput, and a tenth of a player's detail (docs/benchmarks.md).

An anonymous API read is counted by ``ladder.caching.read_cache.ReadCacheMiddleware`` before any
view
runs (its answer may be kept); DRF's dispatch then finds that decision on the request and takes
it, so that a request is counted once.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle

from ladder.caching.clients import client_ip
from ladder.records import ThrottleCount

_TABLE = ThrottleCount._meta.db_table
# One statement, on PostgreSQL and SQLite alike: a client's first request makes its row; a
# request in the same window adds itself and what its process reserves, less what that process
# gives back of its last reservation; the first of a new window moves the count to
# ``previous`` (if the last window was the one just before) and starts at the request and its
# process's reservation.
_COUNT = f"""
INSERT INTO {_TABLE} (key, slot, count, previous) VALUES (%s, %s, %s, 0)
ON CONFLICT (key) DO UPDATE SET
    previous = CASE WHEN {_TABLE}.slot = excluded.slot THEN {_TABLE}.previous
                    WHEN {_TABLE}.slot = %s THEN {_TABLE}.count ELSE 0 END,
    count = CASE WHEN {_TABLE}.slot <> excluded.slot THEN excluded.count
                 WHEN {_TABLE}.count + %s > 0 THEN {_TABLE}.count + %s ELSE 0 END,
    slot = excluded.slot
RETURNING previous, count
"""
# Take back what was counted and will not be served (a refused request, a reservation unused).
_UNCOUNT = f"""
UPDATE {_TABLE} SET count = CASE WHEN count > %s THEN count - %s ELSE 0 END
WHERE key = %s AND slot = %s
"""
_SWEEP = 0.001  # one request in a thousand sweeps out the rows of clients gone quiet
_SWEEP_SQL = f"DELETE FROM {_TABLE} WHERE slot < %s"

_DECIDED = "ladder_throttle"  # the request attribute holding the decision made for it
_SHARE = 16  # a process reserves at most this fraction of what a client has left
_KEPT = 4096  # clients a process keeps figures of (beyond: those not counted lately forgotten)


@dataclass(slots=True)
class _Figures:
    """A client as this process last counted it in the shared store, and its reservation."""

    slot: int  # the window counted in (its start, in seconds)
    before: int  # the last window's count, as the store returned it
    counted: int  # this window's, reservations included
    at: float  # when (the throttle's clock)
    held: int = 0  # reserved in the store and not served yet
    usable: int = 0  # of those, how many this process may still serve (within the limit)
    used: int = 0  # served from the reservation since the count

    def left(self, slot: int, into: float, duration: int, limit: int) -> float:
        """What the client had left of ``limit`` at the last count, as this process saw it,
        ``into`` the window starting at ``slot`` (this one, or the next: the last count's
        window is then the last one)."""
        if slot == self.slot:
            return limit - (self.before * (1 - into / duration) + self.counted)
        return limit - self.counted * (1 - into / duration)


class _Ledger:
    """The figures of the clients this process counted, shared by its threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clients: dict[str, _Figures] = {}

    def forget(self) -> None:
        with self.lock:
            self.clients.clear()


_LEDGER = _Ledger()


def forget() -> None:
    """Forget every client's figures (their reservations stay counted, unused)."""
    _LEDGER.forget()


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
        if self.ahead():
            return True
        current, timeout, previous = self.counters()
        where = self._counted_in()
        if where == "redis":  # one round trip
            counts = self.cache.count(current, timeout, also=previous, by=self.by)  # type: ignore[attr-defined]
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
        self.by = 1  # what this request's count adds (``ahead``)
        self.reserved = 0  # and of that, reserved for the client's next requests
        setattr(request, _DECIDED, None)
        self.request = request
        return self.key

    def ahead(self) -> bool:
        """Serve this request from the client's reservation in this process (True), or leave
        it to be counted in the shared store now (False). Then ``by`` is what that count adds:
        this request, the next reservation, less what is left of the last one (given back).

        A reservation is served only in the window it was counted in, and within
        ``LADDER_THROTTLE_SYNC_SECONDS`` of that count; with the cache of a process's own
        memory (development, tests), nothing is reserved.
        """
        seconds, key = settings.LADDER_THROTTLE_SYNC_SECONDS, self.key
        if key is None or not self._reserves():
            return False
        slot = self._slot()
        with _LEDGER.lock:
            figures = _LEDGER.clients.get(key)
            if figures is None:  # nothing known of the client: counted alone
                return False
            if figures.slot == slot and self.now - figures.at < seconds and figures.usable > 0:
                figures.usable -= 1
                figures.held -= 1
                figures.used += 1
                self.allowed = True
                setattr(self.request, _DECIDED, self)
                return True
            left = figures.left(slot, self.now - slot, self.duration, self.num_requests)
            # As many as were served since the last count, twice (what the client asks of this
            # process grows or shrinks), within a sixteenth of what it has left.
            demand = figures.used + 1 if self.now - figures.at < 2 * seconds else 0
            self.reserved = max(0, min(2 * demand, math.floor((left - 1) / _SHARE)))
            unused = figures.held if figures.slot == slot else 0  # the last window's: kept
            figures.held = figures.usable = 0  # taken: given back by this count
        self.by = 1 + self.reserved - unused
        return False

    def _reserves(self) -> bool:
        """Whether this process reserves ahead: with a shared store (the database's or
        Redis's, not a process's own memory) and ``LADDER_THROTTLE_SYNC_SECONDS`` above 0."""
        return settings.LADDER_THROTTLE_SYNC_SECONDS > 0 and self._counted_in() != "cache"

    def _slot(self) -> int:
        """The start of this request's window, in seconds."""
        return int(self.now // self.duration) * self.duration

    def _remember(self, before: int, counted: int) -> None:
        """Keep the client's figures as the shared store just gave them (``counted``: this
        window's count, this request and the reservation included), and the reservation."""
        key = self.key
        if key is None or not self._reserves():
            return
        slot = self._slot()
        usable = 0
        if self.allowed and self.reserved:
            # Other processes' reservations may fill what was left: serve only what fits.
            over = before * (1 - self.into / self.duration) + counted - self.num_requests
            usable = max(0, self.reserved - max(0, math.ceil(over)))
        with _LEDGER.lock:
            clients = _LEDGER.clients
            if key not in clients and len(clients) >= _KEPT:
                # Clients not counted lately: their reservations can no longer be served (they
                # stay counted in the store, never given back: a client gone quiet, mostly).
                recent = self.now - settings.LADDER_THROTTLE_SYNC_SECONDS
                for stale in [k for k, f in clients.items() if f.at <= recent]:
                    del clients[stale]
            held = self.reserved if self.allowed else 0
            known = clients.get(key)
            if known is not None and known.slot == slot:  # other threads' reservations too
                held, usable = held + known.held, usable + known.usable
            clients[key] = _Figures(slot, before, counted, self.now, held, usable)

    def counters(self) -> tuple[str, int, str]:
        """This window's counter, how long to keep it, and the last window's counter."""
        window, self.into = divmod(self.now, self.duration)
        current, previous = f"{self.key}:{int(window)}", f"{self.key}:{int(window) - 1}"
        return current, 2 * self.duration, previous  # a window is read in the next one too

    def settle(self, before: int, counted: int) -> bool:
        """Decide from the counters as read with this request counted in the current one (an
        atomic count); take the count back if refused."""
        reserved = self.reserved
        self.before, self.counted = before, counted - 1 - reserved
        self.allowed = self._estimate() < self.num_requests
        where = self._counted_in()
        if not self.allowed:  # neither the request nor the reservation is served
            if where == "redis":
                self.cache.decr(self.counters()[0], 1 + reserved)
            else:
                self._uncount_in_database(1 + reserved)
            counted -= 1 + reserved
        self._remember(before, counted)
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
        slot = self._slot()
        fresh = 1 + self.reserved  # a new window: nothing to give back there
        return _COUNT, [self.key, slot, fresh, slot - self.duration, self.by, self.by]

    def _count_in_database(self) -> tuple[int, int]:
        sql, params = self.database_count()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        return int(row[0]), int(row[1])

    def _uncount_in_database(self, count: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute(_UNCOUNT, [count, count, self.key, self._slot()])

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
    that throttle it, each prepared (its key and clock read). One that lets it through on this
    process's figures (``AnonThrottle.ahead``) is left out, its decision on the request."""
    throttles = []
    classes: list[Any] = list(api_settings.DEFAULT_THROTTLE_CLASSES)  # classes, once imported
    for throttle_class in classes:
        throttle = throttle_class()
        if not isinstance(throttle, AnonThrottle):
            throttles.append(throttle)  # counted by its own allow_request
        elif (
            throttle.rate is not None
            and throttle.prepare(request) is not None
            and not throttle.ahead()  # else served: the decision is left on the request
        ):
            throttles.append(throttle)
    return throttles
