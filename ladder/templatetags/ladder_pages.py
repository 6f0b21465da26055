"""Template helpers of the players' pages: the club's name, the links of paged lists, periods
named by their month, and days written the way the page's language writes them."""

from __future__ import annotations

import re
from datetime import date

from django import template
from django.conf import settings
from django.template import defaulttags
from django.utils.dateformat import format as date_format
from django.utils.translation import pgettext

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
    return date_format(date(int(match.group(1)), int(match.group(2)), 1), "F Y")


def _written(value: object, layout: str) -> str:
    if not isinstance(value, date):  # a datetime is a date too; None and "" stay blank
        return ""
    return date_format(value, layout)


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
