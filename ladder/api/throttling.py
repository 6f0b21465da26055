"""The anonymous API throttle, counted per client in the shared cache (see settings CACHES).

DRF's own ``SimpleRateThrottle`` keeps, per client, the list of its request times within the
period and reads and writes that whole list on every request: at a rate of thousands an hour
the list is thousands long, and the throttle cost more than the read it guarded (issue 14's
profile). This one keeps two counters per client instead, this window's and the last one's,
and estimates the requests of the sliding period from them (the last window's count weighted
by the part of it the period still covers): constant work per request, at any rate. On Redis
the counting is one round trip (``ladder.cache.RedisCache.count``); elsewhere a read and a
write, as DRF's.
"""

from __future__ import annotations

import math
from typing import Any

from rest_framework.throttling import AnonRateThrottle

from ladder.clients import client_ip


class AnonThrottle(AnonRateThrottle):
    """Anonymous requests per client (``ladder.clients`` reads the client: DRF's own reading
    trusts any ``X-Forwarded-For``), counted in a sliding window of the rate's period.

    A refused request is not counted, as with DRF's throttle: a client that waits the
    ``Retry-After`` it was given is served again.
    """

    # Set by DRF's ``__init__`` from the rate; its type stubs do not declare them.
    num_requests: int
    duration: int

    def get_ident(self, request: Any) -> str:
        return client_ip(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window, into = divmod(self.now, self.duration)
        current, previous = f"{self.key}:{int(window)}", f"{self.key}:{int(window) - 1}"
        self.into, timeout = into, 2 * self.duration  # a window is read in the next one too
        count = getattr(self.cache, "count", None)
        if count is not None:  # counted first, then taken back if refused: one round trip
            self.before, self.counted = count(current, timeout, also=previous)
            self.counted -= 1
            if self._estimate() < self.num_requests:
                return True
            self.cache.decr(current)
            return False
        found = self.cache.get_many([current, previous])
        self.before, self.counted = found.get(previous, 0), found.get(current, 0)
        if self._estimate() >= self.num_requests:
            return False
        self.cache.set(current, self.counted + 1, timeout)
        return True

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
