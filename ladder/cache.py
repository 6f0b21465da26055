"""Django's Redis cache, keeping its Redis client instead of making one per operation.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a ``redis.Redis`` on
every call (its pool is kept, the client is not), and a client's construction registers some
170 response callbacks: about a third of a millisecond, three times in every API read (the
throttle's two operations, the read cache's one). A ``redis.Redis`` is safe to share between
threads, so one per pool is kept.
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
