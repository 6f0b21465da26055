"""Reads answered from the cache, kept under the data version (``ladder.records.versions``).

A page or API read returns the same bytes until a write commits or a rating run finishes, and
each of those moves the data version. So an anonymous read is rendered once per version and
served from Django's cache framework after that (the database cache, or Redis when
``REDIS_URL`` is set: shared by every worker), with an ``ETag`` and ``Last-Modified`` that let
a client ask again conditionally and get a 304 without anything being rendered.

Kept answers are served by ``ReadCacheMiddleware``, near the top of the middleware stack: a
kept read skips the session, CSRF, authentication, messages, history and CSP middleware, URL
resolving and DRF, since its answer already carries every header they set. Which reads are
kept is the views' say: ``cached_page`` (and ``ladder.api.views.cached_api``) mark their
answers, and the middleware keeps what was marked, on its way out.

Only what is the same for everyone is kept: GET and HEAD without a session cookie or an
``Authorization`` header, answered 200 without setting a cookie (a page with a form sets the
CSRF cookie: never kept), and never a read made inside an open transaction (it may see
uncommitted data; tests run inside one, so they read afresh unless they commit). The key holds
the scheme and host (pagination links are absolute), the path with its query, for the API the
negotiated format, the language it is answered in (the switcher's cookie, else
``Accept-Language``) and the day (activity, a junior's K and the charts follow the calendar); the
kept answer holds the version it was read under, and is served only while that is current.

An API read by an anonymous client is counted by the API's throttle here, once, whether its
answer was kept or not (DRF's dispatch then takes the decision made here: never counted twice);
a refused one goes on to DRF, which answers 429. On Redis the version, the kept answer and the
throttle's counters are one round trip (``ladder.caching.backends.RedisCache.read``); with the
database's
cache, the version and the kept answer are one query and the throttle's count another.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.urls import Resolver404, resolve
from django.utils import timezone, translation
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date

from ladder.records import versions as data_version

# Reads under this path are the API's: their format is negotiated, anonymous ones throttled.
API_PREFIX = "/api/"
# Headers an answer is given anew each time (or never kept with it).
_NOT_KEPT = {
    "set-cookie", "content-length", "date", "etag", "last-modified", "cache-control",
    "expires", "x-read-cache",
}  # fmt: skip
_MARK = "_ladder_read_cache_keep"


@dataclass(slots=True)
class _Found:
    version: data_version.Version
    kept: tuple[Any, ...] | None  # (version, status, headers, content) as kept
    admitted: bool  # by the throttle (True when none counts this read)


class ReadCacheMiddleware:
    """Serve kept reads before the rest of the stack; keep the reads the views marked."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        view = _kept_view(request.path_info) if _keepable_request(request) else None
        if view is None:
            return self.get_response(request)
        reads = _READS.get(view)
        if reads is not None and not reads.covers(request.GET):
            return self.get_response(request)  # a parameter the view never reads: not kept
        api = request.path_info.startswith(API_PREFIX)
        key = _key(request, api)
        found = _lookup(request, key, api)
        version = found.version
        if not version.value:  # its row is gone: the next write makes it again
            return self.get_response(request)
        etag = f'"{version.value}-{key[-12:]}"'
        modified = int(version.changed_at.timestamp())
        kept = found.kept
        if reads is not None and kept is not None and kept[0] == version.value and found.admitted:
            unchanged = get_conditional_response(request, etag=etag, last_modified=modified)
            if unchanged is not None:  # only for what was kept: nothing is said of the rest
                return _validators(unchanged, etag, modified)
            _, status, headers, content = kept
            answer = HttpResponse(content, status=status)
            for name, value in headers:
                answer[name] = value
            answer["X-Read-Cache"] = "hit"
            return _validators(answer, etag, modified)
        recorder = _Recorder.of(request.GET)
        request.GET = recorder  # type: ignore[assignment]  # WSGIRequest.GET: a cached property
        response = self.get_response(request)
        reads = _READS.setdefault(view, _Reads())
        reads.learn(recorder)
        if not getattr(response, _MARK, False) or not _keepable_response(response):
            return response
        if not reads.covers(recorder) or not _may_add(request):
            return response
        if not isinstance(response, HttpResponse):
            return response
        headers = [(k, v) for k, v in response.items() if k.lower() not in _NOT_KEPT]
        cache.set(key, (version.value, response.status_code, headers, response.content),
                  _seconds())  # fmt: skip
        response["X-Read-Cache"] = "miss"
        return _validators(response, etag, modified)


class _Recorder(QueryDict):
    """A request's query that notes which parameters the view reads, by name (a copy notes
    into the same set: a form bound to ``request.GET.copy()`` reads its fields there)."""

    def __init__(
        self,
        query_string: str | bytes | None = None,
        mutable: bool = False,
        encoding: str | None = None,
        *,
        read: set[str] | None = None,
    ) -> None:
        super().__init__(query_string, mutable=mutable, encoding=encoding)
        self.read: set[str] = set() if read is None else read

    @classmethod
    def of(cls, query: QueryDict, read: set[str] | None = None) -> _Recorder:
        recorder = cls(mutable=True, encoding=query.encoding, read=read)
        for name, values in QueryDict.lists(query):
            recorder.setlist(name, list(values))
        return recorder

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def getlist(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().getlist(key, default)

    def copy(self) -> _Recorder:
        return _Recorder.of(self, read=self.read)


@dataclass(slots=True)
class _Reads:
    """The query parameters a kept view has been seen to read, in this process."""

    names: set[str] = field(default_factory=set)

    def learn(self, recorder: _Recorder) -> None:
        self.names |= recorder.read

    def covers(self, query: QueryDict) -> bool:
        """Whether the view reads every parameter of ``query``: only then is an answer kept
        or served, so a parameter no view reads (``/?junk=1``) never adds a kept answer; such
        a read is rendered afresh (and teaches the view's parameters, if it reads them)."""
        return all(name in self.names for name in QueryDict.keys(query))


_READS: dict[Callable[..., Any], _Reads] = {}


def _may_add(request: HttpRequest) -> bool:
    """Count one more kept answer for this client this hour; False once it has added
    ``LADDER_READ_CACHE_CLIENT_ENTRIES``: what one client can add to the cache is bounded."""
    from ladder.caching.clients import client_ip

    hour = int(time.time() // 3600)
    counter = f"ladder:read-adds:{hour}:{client_ip(request)}"
    cache.add(counter, 0, 3600)
    try:
        added = cache.incr(counter)
    except ValueError:  # expired between add and incr
        added = 1
    return added <= settings.LADDER_READ_CACHE_CLIENT_ENTRIES


@functools.lru_cache(maxsize=4096)
def _kept_view(path: str) -> Callable[..., Any] | None:
    """The view of ``path`` when its answers are kept (it is ``cached_page`` or
    ``cached_api``), else None: nothing is looked up for the others."""
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return match.func if getattr(match.func, _MARK, False) else None


def kept_view(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Mark a view (a URL's callback) as one whose answers are kept; see ``keep``."""
    setattr(view, _MARK, True)
    return view


def keep(response: HttpResponseBase) -> HttpResponseBase:
    """Mark a read's answer as one to keep (``ReadCacheMiddleware`` keeps it if it may)."""
    setattr(response, _MARK, True)
    return response


def _lookup(request: HttpRequest, key: str, api: bool) -> _Found:
    """The data version, the answer kept under ``key`` and, for an API read, the throttle's
    decision (left on the request for DRF's dispatch)."""
    from ladder.caching.throttling import AnonThrottle, window_throttles

    throttles = window_throttles(request) if api else []
    read = getattr(cache, "read", None)
    if (
        read is not None
        and len(throttles) <= 1
        and all(isinstance(t, AnonThrottle) for t in throttles)
    ):  # one round trip
        throttle = throttles[0] if throttles else None
        counters = throttle.counters() if throttle else None
        by = throttle.by if throttle else 1
        mirrored, kept, counts = read(data_version.MIRROR_KEY, key, count=counters, by=by)
        version = data_version.from_mirror(mirrored) if mirrored else data_version.current()
        admitted = throttle.settle(*counts) if throttle and counts else True
        return _Found(version, kept, admitted)
    read_with_version = getattr(cache, "read_with_version", None)
    if (
        read_with_version is not None
        and len(throttles) <= 1
        and all(isinstance(t, AnonThrottle) for t in throttles)
    ):  # the database's: one query on PostgreSQL
        throttle = throttles[0] if throttles else None
        row, kept, counts = read_with_version(
            key, count=throttle.database_count() if throttle else None
        )
        version = data_version.from_row(row)
        admitted = throttle.settle(*counts) if throttle and counts else True
        return _Found(version, kept, admitted)
    version, kept = data_version.current(), cache.get(key)
    # Every throttle counts the request, as in DRF's dispatch: a list, not a short circuit.
    admitted = all([throttle.allow_request(request, None) for throttle in throttles])  # noqa: C419
    return _Found(version, kept, admitted)


def _seconds() -> int:
    return int(settings.LADDER_READ_CACHE_SECONDS)


def cached_page(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Decorate a page view: its anonymous answers are kept under the data version."""

    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        return keep(view(request, *args, **kwargs))

    wrapper.__name__, wrapper.__doc__ = view.__name__, view.__doc__
    wrapper.__wrapped__ = view  # type: ignore[attr-defined]
    return kept_view(wrapper)


def _keepable_request(request: HttpRequest) -> bool:
    if request.method not in ("GET", "HEAD") or settings.LADDER_READ_CACHE_SECONDS <= 0:
        return False
    if connection.in_atomic_block:
        return False
    if "HTTP_AUTHORIZATION" in request.META:
        return False
    return settings.SESSION_COOKIE_NAME not in request.COOKIES and "messages" not in request.COOKIES


def _keepable_response(response: HttpResponseBase) -> bool:
    return (
        isinstance(response, HttpResponse)
        and response.status_code == 200
        and not response.cookies
        and not response.has_header("Set-Cookie")
    )


def _key(request: HttpRequest, api: bool) -> str:
    # The day too: what is inactive (12 months), a junior's K (the year) and the chart's
    # line to today change at midnight, with no write.
    variant = ""
    if api:  # the API's format is negotiated
        variant = f"{request.META.get('HTTP_ACCEPT', '')}|{request.GET.get('format', '')}"
    # The language too (the switcher's cookie, else Accept-Language): pages and the API's
    # messages are answered in it (LocaleMiddleware, after this one, picks the same).
    language = translation.get_language_from_request(request)
    where = (
        f"{request.scheme}://{request.get_host()}{request.get_full_path()}|{variant}|"
        f"{timezone.localdate().isoformat()}|{language}"
    )
    digest = hashlib.blake2b(where.encode(), digest_size=16).hexdigest()
    return f"ladder:read:{digest}"


def _validators(response: HttpResponseBase, etag: str, modified: int) -> HttpResponseBase:
    response["ETag"] = etag
    response["Last-Modified"] = http_date(modified)
    # Kept anywhere, but asked again each time: the next write must show at once.
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("Cookie", "Authorization"))
    return response
