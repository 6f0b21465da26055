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


def site_urls(request: HttpRequest) -> dict[str, object]:
    """``site_urls``: the URLs every page links to, reversed once per process rather than on
    every page (a ``{% url %}`` cost 50 µs, and the nine of the header and footer were half
    of their rendering)."""
    key = (get_script_prefix(), str(get_urlconf() or settings.ROOT_URLCONF))
    found = _REVERSED.get(key)
    if found is None:
        if len(_REVERSED) > 16:  # a few prefixes at most; never grows without bound
            _REVERSED.clear()
        found = _REVERSED[key] = {short: reverse(name) for short, name in _SITE.items()}
    return {"site_urls": found}


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: object) -> None:
    if setting in {"ROOT_URLCONF", "FORCE_SCRIPT_NAME"}:
        _REVERSED.clear()
