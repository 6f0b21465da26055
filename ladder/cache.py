"""Django's Redis cache, keeping its Redis client instead of making one per operation.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a ``redis.Redis`` on
every call (its pool is kept, the client is not), and a client's construction registers some
170 response callbacks: about a third of a millisecond, three times in every API read (the
throttle's two operations, the read cache's one). A ``redis.Redis`` is safe to share between
threads, so one per pool is kept.

It also counts in one round trip (``RedisCache.count``), which the API throttle uses.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _KeptClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own client's internals, which its type stubs do not describe.
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with its clients kept (see above)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _KeptClient

    def count(self, key: str, timeout: int, *, also: str) -> tuple[int, int]:
        """Add one to the counter ``key`` (made, expiring after ``timeout`` seconds, if it is
        not there) and read the counter ``also``, in one round trip: ``(also, key)`` counts.

        Django's ``incr`` asks whether the key exists first and refuses a missing one; this is
        Redis's own atomic INCR, so concurrent counts are never lost.
        """
        counted, other = self.make_and_validate_key(key), self.make_and_validate_key(also)
        client = self._cache.get_client(counted, write=True)
        with client.pipeline(transaction=False) as pipeline:
            pipeline.incr(counted)
            pipeline.expire(counted, timeout)
            pipeline.get(other)
            now, _, before = pipeline.execute()
        return int(before or 0), int(now)
