"""Date-times read from PostgreSQL by psycopg's C parser rather than Django's Python one.

Django (5.2) reads every ``timestamptz`` through its own loader, a subclass of psycopg's
pure-Python one that parses the text in Python and then sets the time zone Django expects
(``BaseTzLoader``): 5.8 µs a value, against 0.3 µs for psycopg's C loader (measured), and
about a twentieth of a player's read or a 50-player page not kept by the read cache (two
date-times a player, others a page). When the session's time zone is UTC and Django's is
``datetime.timezone.utc`` (``USE_TZ`` with no ``TIME_ZONE`` of the database's own, as Ladder
runs), psycopg's C loader already gives what Django's gives: the same instant with
``tzinfo`` ``datetime.timezone.utc`` (psycopg maps the session's "UTC" to it). Each new
connection then reads ``timestamptz`` through ``FastUtcLoader``, which calls the C loader;
in any other case (another time zone, psycopg without its C extension) Django's loader
stays. ``tests/ladder/test_timestamps.py`` holds the two equal.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper


def _c_loader() -> type | None:
    """psycopg's own ``timestamptz`` text loader when it is its C one, else None."""
    try:
        import psycopg
        from psycopg.pq import Format
        from psycopg.types.datetime import TimestamptzLoader
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    loader = psycopg.adapters.get_loader(psycopg.adapters.types["timestamptz"].oid, Format.TEXT)
    return None if loader is None or loader is TimestamptzLoader else loader


def use_c_loader(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """``connection_created``: read ``timestamptz`` with psycopg's C loader where it gives
    what Django's gives (see the module)."""
    if connection.vendor != "postgresql" or connection.timezone is not datetime.UTC:
        return
    raw = connection.connection
    if raw is None or raw.info.parameter_status("TimeZone") != "UTC":
        return
    loader = _fast_utc_loader()
    if loader is not None:
        raw.adapters.register_loader("timestamptz", loader)


@functools.cache
def _fast_utc_loader() -> type | None:
    """A ``timestamptz`` loader for a UTC session that parses with psycopg's C loader; None
    without psycopg's C extension."""
    found = _c_loader()
    if found is None:
        return None
    c_loader: type = found
    from psycopg.adapt import Loader

    class FastUtcLoader(Loader):
        # Django's cursors compare this with the connection's time zone and register their
        # own loader when they differ (``DatabaseWrapper.create_cursor``).
        timezone = datetime.UTC

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            self._load = c_loader(oid, context).load

        def load(self, data: Any) -> datetime.datetime:
            return self._load(data)

    return FastUtcLoader
