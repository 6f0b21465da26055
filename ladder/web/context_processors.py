"""Template context for every page: how fresh the ratings are (read only when a page shows it)
and the URLs of the pages every page links to."""

from __future__ import annotations

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import SimpleLazyObject

from ratings import runs


def freshness(request: HttpRequest) -> dict[str, object]:
    return {"freshness": SimpleLazyObject(runs.freshness)}


# The pages the header's menu, the footer and the language switcher link to (``site_urls``),
# by the names ``base.html`` reads them by.
_SITE = {
    "standings": "ladder:standings",
    "periods": "ladder:periods",
    "statistics": "ladder:statistics",
    "calculator": "ladder:calculator",
    "rules": "ladder:rules",
    "admin": "admin:index",
    "api_docs": "api:docs",
    "api_schema": "api:schema",
    "set_language": "set_language",
}
# Their URLs by script prefix and URLconf, reversed once (``_forget``: a test's URLconf).
_REVERSED: dict[tuple[str, str], dict[str, str]] = {}
# ``reversed_once``'s URLs, by script prefix, URLconf, name and arguments.
_REVERSED_ONE: dict[tuple[str, str, str, tuple[object, ...]], str] = {}


def _served_under() -> tuple[str, str]:
    """What a reversed URL depends on beside its name and arguments: the request's script
    prefix and URLconf."""
    return get_script_prefix(), str(get_urlconf() or settings.ROOT_URLCONF)


def site_urls(request: HttpRequest) -> dict[str, object]:
    """``site_urls``: the URLs every page links to, reversed once per process rather than on
    every page (a ``{% url %}`` cost 50 µs, and the nine of the header and footer were half
    of their rendering)."""
    key = _served_under()
    found = _REVERSED.get(key)
    if found is None:
        if len(_REVERSED) > 16:  # a few prefixes at most; never grows without bound
            _REVERSED.clear()
        found = _REVERSED[key] = {short: reverse(name) for short, name in _SITE.items()}
    return {"site_urls": found}


def reversed_once(name: str, *args: object) -> str:
    """``reverse(name, args=args)``, kept per script prefix and URLconf as ``site_urls``
    keeps the header's links (50 µs a ``reverse``)."""
    key = (*_served_under(), name, args)
    found = _REVERSED_ONE.get(key)
    if found is None:
        if len(_REVERSED_ONE) > 256:  # arguments may be ids: never grows without bound
            _REVERSED_ONE.clear()
        found = _REVERSED_ONE[key] = reverse(name, args=args)
    return found


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: object) -> None:
    if setting in {"ROOT_URLCONF", "FORCE_SCRIPT_NAME"}:
        _REVERSED.clear()
        _REVERSED_ONE.clear()
