"""Django's caches as Ladder deploys them: Redis (``REDIS_URL``) or the database (default).

``RedisCache``: Django's Redis cache, keeping its Redis client instead of making one per
operation.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a ``redis.Redis`` on
every call (its pool is kept, the client is not), and a client's construction registers some
170 response callbacks: about a third of a millisecond, three times in every API read (the
throttle's two operations, the read cache's one). A ``redis.Redis`` is safe to share between
threads, so one per pool is kept.

It also counts in one round trip (``RedisCache.count``), which the API throttle uses, reads a
kept answer with the data version and the throttle's counters in one (``RedisCache.read``), and
keeps a copy of the data version (``RedisCache.mirror``), so that a kept read costs no query.

``DatabaseCache``: Django's database cache, which also reads a kept answer together with the
data version, in one query (``DatabaseCache.read_with_version``).
"""

from __future__ import annotations

import base64
import pickle
from typing import Any

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import connections, models, router
from django.utils import timezone


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


# Set the data version's copy unless it holds a later version already (bumps may land in any
# order); keep it ``ARGV[3]`` seconds. The value is "version:changed_at" (epoch seconds).
_MIRROR = """
local held = redis.call('GET', KEYS[1])
if held then
  local version = tonumber(string.match(held, '^(%d+)'))
  if version and version >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
return 1
"""


class RedisCache(DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with its clients kept (see above)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _KeptClient

    def count(self, key: str, timeout: int, *, also: str, by: int = 1) -> tuple[int, int]:
        """Add ``by`` to the counter ``key`` (made, expiring after ``timeout`` seconds, if it is
        not there) and read the counter ``also``, in one round trip: ``(also, key)`` counts.

        Django's ``incr`` asks whether the key exists first and refuses a missing one; this is
        Redis's own atomic INCR, so concurrent counts are never lost.
        """
        counted, other = self.make_and_validate_key(key), self.make_and_validate_key(also)
        client = self._cache.get_client(counted, write=True)
        with client.pipeline(transaction=False) as pipeline:
            pipeline.incr(counted, by)
            pipeline.expire(counted, timeout)
            pipeline.get(other)
            now, _, before = pipeline.execute()
        return int(before or 0), int(now)

    def read(
        self, mirror: str, key: str, *, count: tuple[str, int, str] | None = None, by: int = 1
    ) -> tuple[bytes | None, Any, tuple[int, int] | None]:
        """In one round trip: the data version's copy (``mirror``, raw), the value at ``key``,
        and, with ``count`` (key, timeout, other key), what ``count`` returns (adding ``by``)."""
        mirrored, kept = self.make_and_validate_key(mirror), self.make_and_validate_key(key)
        client = self._cache.get_client(kept, write=count is not None)
        with client.pipeline(transaction=False) as pipeline:
            pipeline.get(mirrored)
            pipeline.get(kept)
            if count is not None:
                counted, timeout, also = count
                counted = self.make_and_validate_key(counted)
                pipeline.incr(counted, by)
                pipeline.expire(counted, timeout)
                pipeline.get(self.make_and_validate_key(also))
            found = pipeline.execute()
        value = None if found[1] is None else self._cache._serializer.loads(found[1])  # type: ignore[attr-defined]
        counts = (int(found[4] or 0), int(found[2])) if count is not None else None
        return found[0], value, counts

    def mirror(self, key: str, version: int, changed_at: int, timeout: int) -> None:
        """Keep ``version`` (changed at ``changed_at``, epoch seconds) at ``key`` for
        ``timeout`` seconds, unless a later version is kept there already."""
        client = self._cache.get_client(key, write=True)
        client.eval(_MIRROR, 1, self.make_and_validate_key(key), version, changed_at, timeout)


class DatabaseCache(DjangoDatabaseCache):
    """Django's database cache, reading a kept read's answer with the data version."""

    def read_with_version(
        self, key: str, *, count: tuple[str, list[Any]] | None = None
    ) -> tuple[tuple[Any, Any] | None, Any, tuple[int, int] | None]:
        """In one query: the data version's row (value, changed_at as the database gives it;
        None if it is gone), the value at ``key`` (None if missing or expired) and, with
        ``count`` (a statement and its parameters, the throttle's count), the two numbers that
        statement returns: on PostgreSQL it runs in the same query (a data-modifying ``WITH``);
        elsewhere just before.

        The value is decoded as Django's ``DatabaseCache.get_many`` decodes what it stored.
        """
        from ladder.records import DataVersion

        connection = connections[router.db_for_read(self.cache_model_class)]
        name = connection.ops.quote_name
        table = self._table  # type: ignore[attr-defined]  # set by Django's __init__
        read = (
            f"{name(DataVersion._meta.db_table)} v ON v.id = 1 "
            f"LEFT JOIN {name(table)} c ON c.cache_key = %s"
        )
        params: list[Any] = [self.make_and_validate_key(key)]
        counts = None
        with connection.cursor() as cursor:
            if count is not None and connection.vendor == "postgresql":
                sql, count_params = count
                cursor.execute(
                    f"WITH counted AS ({sql}) SELECT v.value, v.changed_at, c.value, "
                    f"c.expires, counted.* FROM counted LEFT JOIN {read}",
                    [*count_params, *params],
                )
                row = cursor.fetchone()
                counts, row = (int(row[4]), int(row[5])), row[:4]
            else:
                if count is not None:
                    cursor.execute(*count)
                    counted = cursor.fetchone()
                    counts = (int(counted[0]), int(counted[1]))
                cursor.execute(
                    f"SELECT v.value, v.changed_at, c.value, c.expires FROM (SELECT 1) one "
                    f"LEFT JOIN {read}",
                    params,
                )
                row = cursor.fetchone()
        version, changed_at, value, expires = row
        found = None if version is None else (version, changed_at)
        if value is None:
            return found, None, counts
        expression = models.Expression(output_field=models.DateTimeField())
        converters = connection.ops.get_db_converters(expression) + expression.get_db_converters(
            connection
        )
        for converter in converters:
            expires = converter(expires, expression, connection)
        if expires < timezone.now():
            return found, None, counts
        value = connection.ops.process_clob(value)
        return found, pickle.loads(base64.b64decode(value.encode())), counts
