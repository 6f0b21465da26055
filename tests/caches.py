"""The deployed caches for tests that run on each: the database's, and Redis when one answers."""

import os
from urllib.parse import urlsplit, urlunsplit

from django.core.cache import cache
from django.core.management import call_command

DATABASE = {"BACKEND": "ladder.caching.backends.DatabaseCache", "LOCATION": "ladder_cache"}


def for_worker(url: str) -> str:
    """Return ``url`` with a Redis database of this pytest-xdist worker's own: the tests empty
    their database, which must not be the one another worker is testing in (gw0 keeps the
    database of the URL, gw1 takes the one below it, and so on)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    parts = urlsplit(url)
    if not worker or parts.scheme not in ("redis", "rediss"):  # unix sockets: left as they are
        return url
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(db - worker) % 16}"))


def redis_url(db: int) -> str | None:
    """REDIS_URL, else database ``db`` of a local Redis (each xdist worker its own, see
    ``for_worker``); None when no Redis answers there."""
    url = for_worker(os.environ.get("REDIS_URL", f"redis://127.0.0.1:6379/{db}"))
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
