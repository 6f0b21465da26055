"""Template helpers of the players' pages: the club's name and periods named by their month."""

from __future__ import annotations

import re
from datetime import date

from django import template
from django.conf import settings
from django.utils.dateformat import format as date_format

register = template.Library()

MONTH_LABEL = re.compile(r"^(\d{4})-(\d{2})$")


@register.simple_tag
def club_name() -> str:
    """Return the club's name (``LADDER_CLUB_NAME``, "Ladder" when unset)."""
    return settings.LADDER_CLUB_NAME


@register.filter
def month_name(label: object) -> str:
    """Name a month's period as people read it ("2026-10" -> "October 2026"); any other label
    is returned as it is."""
    text = str(label)
    match = MONTH_LABEL.match(text)
    if match is None or not 1 <= int(match.group(2)) <= 12:
        return text
    return date_format(date(int(match.group(1)), int(match.group(2)), 1), "F Y")
