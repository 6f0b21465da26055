"""The deployed caches for tests that run on each: the database's, and Redis when one answers."""

import os

from django.core.cache import cache
from django.core.management import call_command

DATABASE = {"BACKEND": "ladder.caching.backends.DatabaseCache", "LOCATION": "ladder_cache"}


def redis_url(db: int) -> str | None:
    """REDIS_URL, else database ``db`` of a local Redis; None when no Redis answers there."""
    url = os.environ.get("REDIS_URL", f"redis://127.0.0.1:6379/{db}")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=0.2).ping()
    except Exception:  # noqa: BLE001 - no Redis here: that backend's cases are skipped
        return None
    return url


def redis(url: str) -> dict[str, str]:
    """The Redis cache at ``url``."""
    return {"BACKEND": "ladder.caching.backends.RedisCache", "LOCATION": url}


def use(settings, backend: dict[str, str]) -> None:
    """Make ``backend`` the default cache for the test, empty, its table made if it needs one
    (migrate makes it only for the cache configured then)."""
    settings.CACHES = {"default": backend}
    call_command("createcachetable", verbosity=0)
    cache.clear()
