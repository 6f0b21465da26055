"""Reads from read replicas: which database each request reads, decided once per request.

With ``DATABASE_REPLICA_URLS`` set (aliases ``replica_1``, ``replica_2``, ... in
``ladder.settings``), ``ReplicaReadsMiddleware`` decides per request and ``ReplicaRouter`` follows
the decision, kept in a context variable for the request's duration (never on a thread or an
object):

- **a replica** serves a safe request (GET, HEAD, OPTIONS) to the API, and a safe request for a
  page without a session cookie (an anonymous reader);
- **the primary** serves everything else: writes (every other method), the admin, a client
  that has just written (its ``Ladder-Pin`` cookie or header, set on the answer to any request
  that may write and valid for ``LADDER_REPLICA_PIN_SECONDS``, so it reads its own writes),
  everything inside a transaction (previews, rating runs, the actions' checks and locks), and
  whatever runs outside a request (commands, workers, the sweeper, immediate runs after a
  write's commit). Every write goes to the primary; migrations run on it only.

The replica is chosen at the request's first read outside a transaction (a request that reads
nothing connects to nothing) and checked then: a fresh connection is opened with a short
connect timeout (``LADDER_REPLICA_CONNECT_SECONDS``), a kept one is asked ``SELECT 1``; one that
does not answer is left out for ``LADDER_REPLICA_RETRY_SECONDS`` and the primary (or another
replica) serves: a replica that stops answering costs at most one connect timeout per process
and retry period, never a 500.

**Kept reads stay fresh.** The read cache (``ladder.caching.read_cache``) keeps an anonymous
answer under the data version it read from the primary before the view ran. A replica behind
that version would let a stale answer be kept under the new one, so when the read cache is on,
an anonymous read goes to a replica only if the replica has replayed the primary's data version
(two one-row reads, only for what the cache did not answer); otherwise the primary serves it
and its answer is the one kept. The first reads after a change are served by the primary, and
the replicas take over as soon as they have caught up.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from ladder.records import DataVersion

logger = logging.getLogger(__name__)

PIN = "Ladder-Pin"  # the cookie, and the header a client without cookies echoes back
_PIN_META = "HTTP_" + PIN.upper().replace("-", "_")
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
API_PREFIX = "/api/"
ADMIN_PREFIX = "/admin/"
# Django's database cache: counted (the throttle) and written on reads, so read where written.
_ON_THE_PRIMARY = frozenset({"django_cache"})


# The replica this request reads (None: the primary), set by the middleware for one request.
@dataclass(slots=True)
class _Reads:
    """A request's reads: the replica they go to, chosen at the request's first read outside
    a transaction (a request that reads nothing connects to nothing)."""

    kept: bool  # whether the read cache may keep the answer (then the replica must be caught up)
    alias: str | None = None
    chosen: bool = False

    def database(self) -> str:
        if not self.chosen:
            self.alias, self.chosen = _choose(kept=self.kept), True
        return self.alias or DEFAULT_DB_ALIAS


# This request's reads (None: the primary), set by the middleware for one request.
_reading: ContextVar[_Reads | None] = ContextVar("ladder_replica_reading", default=None)
# Replicas that did not answer, and until when (time.monotonic()) they are left out.
_down: dict[str, float] = {}


class ReplicaRouter:
    """Send reads where the request's decision says, unless in a transaction; all else to
    the primary."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        reads = _reading.get()
        if reads is None or model._meta.app_label in _ON_THE_PRIMARY:
            return DEFAULT_DB_ALIAS
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS  # a transaction reads what it may write, and its own writes
        return reads.database()

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, first: Any, second: Any, **hints: Any) -> bool:
        return True  # one database and its copies

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS


@contextlib.contextmanager
def reading(alias: str | None) -> Iterator[None]:
    """Read from replica ``alias`` (None: the primary) until the block ends."""
    with _reads(None if alias is None else _Reads(kept=False, alias=alias, chosen=True)):
        yield


@contextlib.contextmanager
def _reads(reads: _Reads | None) -> Iterator[None]:
    token = _reading.set(reads)
    try:
        yield
    finally:
        _reading.reset(token)


def may_read_a_replica(request: HttpRequest, *, now: float | None = None) -> bool:
    """Whether this request's reads may go to a replica (the rules in the module's text)."""
    if request.method not in _SAFE or request.path_info.startswith(ADMIN_PREFIX):
        return False
    if pinned(request, now=now):
        return False
    if request.path_info.startswith(API_PREFIX):
        return True
    return settings.SESSION_COOKIE_NAME not in request.COOKIES


def pinned(request: HttpRequest, *, now: float | None = None) -> bool:
    """Whether the client wrote in the last ``LADDER_REPLICA_PIN_SECONDS`` (by its pin's
    expiry, seconds since the epoch; one further in the future than a pin lasts is ignored)."""
    now = time.time() if now is None else now
    longest = settings.LADDER_REPLICA_PIN_SECONDS + 1
    for value in (request.COOKIES.get(PIN, ""), request.META.get(_PIN_META, "")):
        value = value.strip()
        if value.isascii() and value.isdigit() and now < int(value) <= now + longest:
            return True
    return False


def pin(response: HttpResponseBase, *, now: float | None = None) -> None:
    """Pin the client to the primary for ``LADDER_REPLICA_PIN_SECONDS``: a cookie for browsers,
    the same value in a header for clients that echo it back."""
    seconds = settings.LADDER_REPLICA_PIN_SECONDS
    until = str(int((time.time() if now is None else now) + seconds))
    response[PIN] = until
    response.set_cookie(
        PIN,
        until,
        max_age=seconds,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def answering(alias: str, *, now: float | None = None) -> bool:
    """Whether replica ``alias`` answers now: not left out, and connected (or connecting
    within the connect timeout). One that does not answer is left out for a while."""
    now = time.monotonic() if now is None else now
    if _down.get(alias, 0.0) > now:
        return False
    wrapper = connections[alias]
    try:
        if wrapper.connection is not None and not wrapper.is_usable():
            wrapper.close()
        wrapper.ensure_connection()
    except DatabaseError as error:
        _down[alias] = now + settings.LADDER_REPLICA_RETRY_SECONDS
        logger.warning(
            "Read replica %s does not answer; the primary serves its reads for %s s: %s",
            alias,
            settings.LADDER_REPLICA_RETRY_SECONDS,
            error,
        )
        with contextlib.suppress(DatabaseError):
            wrapper.close()
        return False
    _down.pop(alias, None)
    return True


def caught_up(alias: str) -> bool:
    """Whether replica ``alias`` has replayed the primary's data version (or a later one)."""
    sql = f"SELECT value FROM {DataVersion._meta.db_table} WHERE id = 1"  # noqa: S608 - a name
    seen = []
    for where in (DEFAULT_DB_ALIAS, alias):  # the primary first: its version is the floor
        with connections[where].cursor() as cursor:
            cursor.execute(sql)
            row = cursor.fetchone()
        seen.append(None if row is None else row[0])
    primary, replica = seen
    return primary is not None and replica is not None and replica >= primary


def _choose(*, kept: bool) -> str | None:
    """A replica that answers (and, for an answer the read cache may keep, has caught up with
    the primary), or None for the primary."""
    candidates = list(settings.LADDER_REPLICAS)
    random.shuffle(candidates)  # spread the readers over the replicas
    for alias in candidates:
        if not answering(alias):
            continue
        if kept:
            try:
                if not caught_up(alias):
                    return None  # behind: the primary serves, and its answer is kept
            except DatabaseError:
                _down[alias] = time.monotonic() + settings.LADDER_REPLICA_RETRY_SECONDS
                continue
        return alias
    return None


def _may_be_kept(request: HttpRequest) -> bool:
    """Whether the read cache may keep this request's answer (it keeps only anonymous reads)."""
    return (
        settings.LADDER_READ_CACHE_SECONDS > 0
        and "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


class ReplicaReadsMiddleware:
    """Decide which database the request reads; pin a client that may have written."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method not in _SAFE:
            response = self.get_response(request)
            if settings.LADDER_REPLICAS:
                pin(response)
            return response
        replica = settings.LADDER_REPLICAS and may_read_a_replica(request)
        with _reads(_Reads(kept=_may_be_kept(request)) if replica else None):
            return self.get_response(request)
