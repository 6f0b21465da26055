"""Template helpers of the players' pages: the club's name, the links of paged lists, periods
named by their month, and days written the way the page's language writes them."""

from __future__ import annotations

import functools
import re
from datetime import date

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import defaulttags
from django.utils.dateformat import format as date_format
from django.utils.translation import get_language, pgettext

from ladder.records import translations

register = template.Library()

MONTH_LABEL = re.compile(r"^(\d{4})-(\d{2})$")


@register.simple_tag(takes_context=True)
def page_query(context: template.Context, param: str, number: int) -> str:
    """Django's ``querystring`` for a page parameter named at render time: the request's query
    string with ``param`` (a page's several paged lists each have theirs: ``page``, ``upage``,
    ``rpage``; ``page`` when empty) set to ``number``, the other parameters kept."""
    return defaulttags.querystring(context, None, **{param or "page": number})


@register.simple_tag
def club_name() -> str:
    """Return the club's name (``LADDER_CLUB_NAME``, "Ladder" when unset)."""
    return settings.LADDER_CLUB_NAME


@register.filter
def rules_text(text: object) -> str:
    """A sentence of the rules (a K's reason, a rule line) in the page's language
    (``ladder.records.translations``); any other text as it is."""
    return translations.rules_text(text)


@register.filter
def month_name(label: object) -> str:
    """Name a month's period as people read it ("2026-10" -> "October 2026"); any other label
    is returned as it is."""
    text = str(label)
    match = MONTH_LABEL.match(text)
    if match is None or not 1 <= int(match.group(2)) <= 12:
        return text
    return _formatted(
        date(int(match.group(1)), int(match.group(2)), 1), None, "F Y", get_language()
    )


def _written(value: object, layout: str) -> str:
    if not isinstance(value, date):  # a datetime is a date too; None and "" stay blank
        return ""
    return _formatted(value, getattr(value, "tzinfo", None), layout, get_language())


@functools.lru_cache(maxsize=2048)
def _formatted(value: date, zone: object, layout: str, language: str | None) -> str:
    """``value`` written with ``layout`` in ``language``: the same few days and months on
    every page, and Django's ``date_format`` (20-odd µs) was a twentieth of the standings'
    time with the read cache off. ``zone``: a moment's time zone, which the key needs (the
    same moment in two zones is one ``datetime`` key)."""
    return date_format(value, layout)


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: object) -> None:
    if setting in _FORMATTED_BY:
        _formatted.cache_clear()


# The settings a day's text depends on.
_FORMATTED_BY = {
    "LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "FORMAT_MODULE_PATH", "TIME_ZONE", "USE_TZ",
}  # fmt: skip


@register.filter(expects_localtime=True)
def day(value: object) -> str:
    """A day as the page's language writes it short: "2 Mar 2026", "2. Mär 2026"."""
    return _written(value, pgettext("date format (Django's date filter): 2 Mar 2026", "j M Y"))


@register.filter(expects_localtime=True)
def long_day(value: object) -> str:
    """A day as the page's language writes it in full: "2 March 2026", "2. März 2026"."""
    return _written(value, pgettext("date format (Django's date filter): 2 March 2026", "j F Y"))


@register.filter(expects_localtime=True)
def day_time(value: object) -> str:
    """A moment as the page's language writes it: "2 Mar 2026, 14:05"."""
    layout = pgettext("date format (Django's date filter): 2 Mar 2026, 14:05", "j M Y, H:i")
    return _written(value, layout)
