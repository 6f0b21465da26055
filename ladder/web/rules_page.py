"""The page "Rules in force on ...": FIDE's rules for a tournament starting on a day.

An adapter: ``ratings.rules.in_force`` reads the rule sets by date (pure, no database) and this
renders them. ``?date=YYYY-MM-DD`` (default today) and ``?list=standard|rapid|blitz`` (default
standard); a day or a list that names no rule set is said on the page, with status 400.
"""

from __future__ import annotations

from http import HTTPStatus

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from ladder.records.translations import rules_text
from ratings.rules import fide, in_force


def rules(request: HttpRequest) -> HttpResponse:
    """Show the rule set in force on the day asked, its neighbours and nearby adjustments."""
    today = timezone.localdate()
    context: dict[str, object] = {
        "lists": fide.LISTS,
        "asked_date": request.GET.get("date", "")[:40],
        "asked_list": request.GET.get("list", "")[:40],
    }
    try:
        on = in_force.parse_day(request.GET.get("date"), today=today)
        rating_list = in_force.parse_list(request.GET.get("list"))
        found = in_force.rules_in_force(on, rating_list)
    except in_force.NotInForce as error:
        context["error"] = rules_text(error)
        return render(request, "ladder/rules.html", context, status=HTTPStatus.BAD_REQUEST)
    context |= {
        "found": found,
        "lines": [(found.label(line), line) for line in found.lines],
        "asked_date": on.isoformat(),
        "asked_list": rating_list,
    }
    return render(request, "ladder/rules.html", context)
