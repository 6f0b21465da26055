"""Reads answered from the cache, kept under the data version (``ladder.data_version``).

A page or API read returns the same bytes until a write commits or a rating run finishes, and
each of those moves the data version. So an anonymous read is rendered once per version and
served from Django's cache framework after that (the database cache, or Redis when
``REDIS_URL`` is set: shared by every worker), with an ``ETag`` and ``Last-Modified`` that let
a client ask again conditionally and get a 304 without anything being rendered.

Only what is the same for everyone is kept: GET and HEAD without a session cookie or an
``Authorization`` header, answered 200 without setting a cookie (a page with a form sets the
CSRF cookie: never kept), and never a read made inside an open transaction (it may see
uncommitted data; tests run inside one, so they read afresh unless they commit). The key holds
the version, the scheme and host (pagination links are absolute), the path with its query, the
negotiated format and the day (activity, a junior's K and the charts follow the calendar).
An API answer is kept once DRF answered an anonymous request 200; a kept one is served before
DRF's dispatch with the anonymous throttle counted first (``ladder.api.views.cached_api``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date

from . import data_version

# Headers a kept answer carries again (the rest are set anew on each answer).
_KEPT_HEADERS = ("Content-Type", "Content-Disposition", "Content-Language", "Vary", "Allow", "Link")


def serve(
    request: HttpRequest,
    produce: Callable[[], HttpResponseBase],
    *,
    variant: str = "",
    admit: Callable[[], bool] | None = None,
) -> HttpResponseBase:
    """Answer a read from the cache, or by ``produce()`` (a rendered response), kept if it may
    be; ``variant`` tells apart answers of one URL (the API's format). ``admit`` is asked
    before a kept answer (or a 304) is given: when it says no, ``produce()`` answers (the API's
    throttle: the full view then says 429)."""
    if not _keepable_request(request):
        return produce()
    version = data_version.current()
    if not version.value:  # its row is gone: the next write makes it again
        return produce()
    key = _key(request, version.value, variant)
    kept = cache.get(key)
    if kept is not None:
        if admit is not None and not admit():
            return produce()
        etag = f'"{version.value}-{key[-12:]}"'
        modified = int(version.changed_at.timestamp())
        unchanged = get_conditional_response(request, etag=etag, last_modified=modified)
        if unchanged is not None:  # only for what was kept: nothing is said of anything else
            return _validators(unchanged, etag, modified)
        status, headers, content = kept
        response: HttpResponseBase = HttpResponse(content, status=status)
        for name, value in headers:
            response[name] = value
        response["X-Read-Cache"] = "hit"
        return _validators(response, etag, modified)
    response = produce()
    if not _keepable_response(response):
        return response
    assert isinstance(response, HttpResponse)
    headers = [(name, response[name]) for name in _KEPT_HEADERS if response.has_header(name)]
    cache.set(key, (response.status_code, headers, response.content), _seconds())
    response["X-Read-Cache"] = "miss"
    etag = f'"{version.value}-{key[-12:]}"'
    return _validators(response, etag, int(version.changed_at.timestamp()))


def _seconds() -> int:
    return int(settings.LADDER_READ_CACHE_SECONDS)


def cached_page(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Decorate a page view: its anonymous answers are kept under the data version."""

    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        def produce() -> HttpResponseBase:
            response = view(request, *args, **kwargs)
            render = getattr(response, "render", None)
            return render() if callable(render) else response

        return serve(request, produce)

    wrapper.__name__, wrapper.__doc__ = view.__name__, view.__doc__
    wrapper.__wrapped__ = view  # type: ignore[attr-defined]
    return wrapper


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


def _key(request: HttpRequest, version: int, variant: str) -> str:
    # The day too: what is inactive (12 months), a junior's K (the year) and the chart's
    # line to today change at midnight, with no write.
    where = (
        f"{request.scheme}://{request.get_host()}{request.get_full_path()}|{variant}|"
        f"{timezone.localdate().isoformat()}"
    )
    digest = hashlib.blake2b(where.encode(), digest_size=16).hexdigest()
    return f"ladder:read:{version}:{digest}"


def _validators(response: HttpResponseBase, etag: str, modified: int) -> HttpResponseBase:
    response["ETag"] = etag
    response["Last-Modified"] = http_date(modified)
    # Kept anywhere, but asked again each time: the next write must show at once.
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("Cookie", "Authorization"))
    return response
