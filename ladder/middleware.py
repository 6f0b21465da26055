"""Request and response hygiene shared by every page, the admin and the API."""

from __future__ import annotations

import http
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from asgiref.sync import iscoroutinefunction
from csp import middleware as csp
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.utils.decorators import sync_and_async_middleware
from simple_history.middleware import HistoryRequestMiddleware


class StripNulMiddleware:
    """Drop NUL characters from the query string's names and values.

    No stored text holds a NUL (every door refuses one), and PostgreSQL refuses one in a query
    parameter with an error; ``?result=%00`` in the admin's games list answered 500.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            cleaned = query.replace("%00", "").replace("\x00", "")
            request.GET = QueryDict(cleaned, encoding=request.encoding)
        return self.get_response(request)


# What HTTP calls safe: no write, so no history record to name its user in.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


@sync_and_async_middleware
def history_request_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    """django-simple-history's ``HistoryRequestMiddleware`` for the requests that may write.

    It hands each request to the history records, so that a change names its user; a read
    writes nothing (CSRF protection and ``ladder.writes`` rest on that), and handing it over
    and taking it back was a twentieth of the API's cheapest read."""
    recorded = HistoryRequestMiddleware(get_response)
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            if request.method in _SAFE_METHODS:
                return await get_response(request)
            return await recorded(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponseBase:
        if request.method in _SAFE_METHODS:
            return get_response(request)
        return recorded(request)

    return middleware


# The two headers' policies as the settings give them, by report-only, built once
# (``ContentSecurityPolicyMiddleware``); forgotten when a test changes the settings.
_POLICIES: dict[bool, str] = {}
# What a view or decorator sets on a response to change its policy (django-csp's decorators).
_OWN_POLICY = tuple(
    f"_csp_{part}{suffix}" for part in ("config", "update", "replace") for suffix in ("", "_ro")
)
# As django-csp skips them under DEBUG, for Django's technical pages.
_DEBUG_PAGES = (http.HTTPStatus.INTERNAL_SERVER_ERROR, http.HTTPStatus.NOT_FOUND)


@receiver(setting_changed)
def _forget_policies(*, setting: str, **kwargs: object) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _POLICIES.clear()


def _policy(report_only: bool) -> str:
    if report_only not in _POLICIES:
        _POLICIES[report_only] = build_policy(**asdict(csp.PolicyParts()), report_only=report_only)
    return _POLICIES[report_only]


class ContentSecurityPolicyMiddleware(csp.CSPMiddleware):
    """django-csp's middleware, the settings' policy built once rather than for every response.

    django-csp builds both headers afresh on every response (its settings turned into a dict,
    then into text, twice): a twentieth of an uncached API read's time (measured with
    ``scripts/profile_reads.py``). A response whose policy is the settings' own (no nonce
    asked, no decorator's change) gets the text built once; any other goes through
    django-csp's own code, unchanged.
    """

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        nonce = getattr(request, "_csp_nonce", None)
        own = any(getattr(response, name, None) is not None for name in _OWN_POLICY)
        if nonce is not None or own:
            return super().process_response(request, response)
        if response.status_code in _DEBUG_PAGES and settings.DEBUG:
            return response
        for header, report_only, exempt in (
            (HEADER, False, "_csp_exempt"),
            (HEADER_REPORT_ONLY, True, "_csp_exempt_ro"),
        ):
            policy = _policy(report_only)
            if not policy or getattr(response, exempt, False) is not False or header in response:
                continue
            name = f"CONTENT_SECURITY_POLICY{'_REPORT_ONLY' if report_only else ''}"
            prefixes = (getattr(settings, name, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if not request.path_info.startswith(tuple(prefixes)):
                response[header] = policy
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = csp.CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
