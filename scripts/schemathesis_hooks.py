"""Schemathesis hooks for scripts/schemathesis.sh (``SCHEMATHESIS_HOOKS``).

The API answers CSV (``text/csv``) where asked: the schema states it as text. This reads it as
CSV and refuses a document that is not a table (a row with more or fewer cells than the header
row), so that Schemathesis checks the CSV answers too rather than skipping them.

A rule between two values (White is not Black, a tournament ends no earlier than it starts) is
beyond OpenAPI: the schema states it as an operation's ``x-distinct``, ``x-ordered`` or
``x-requires`` (``ladder.api.schema``), and ``filter_case`` reads it there, so that no case
sent as valid breaks it. Cases sent as invalid are left as generated.
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import date

import schemathesis
from schemathesis import GenerationMode


@schemathesis.deserializer("text/csv")
def csv_document(ctx, response) -> str:
    """The CSV text, once it reads as a table with a header row."""
    text = response.content.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    if rows:
        width = len(rows[0])
        ragged = [n for n, row in enumerate(rows, start=1) if len(row) != width]
        if ragged:
            raise ValueError(f"CSV rows {ragged[:5]} do not have the header's {width} cells")
    return text


@schemathesis.hook
def filter_case(ctx, case) -> bool:
    """Whether a case may be sent: not one generated as valid that breaks a rule between two
    of its values (``breaks_pair_rule``)."""
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return True
    return not breaks_pair_rule(case)


# The days a game, a tournament or a period may be dated (``ladder.records.bounds``): OpenAPI
# 3.0 has no bounds for a date's format. A case generated as valid with a day outside them has
# every day of its body moved, in order, into them (``map_case``).
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2999, 12, 31)
DAY_FIELDS = ("date", "start", "end")


@schemathesis.hook
def map_case(ctx, case):
    """A case generated as valid, its days within the days a club's records may be dated."""
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    if not isinstance(case.body, dict):
        return case
    days = {name: _day(case.body.get(name)) for name in DAY_FIELDS}
    days = {name: day for name, day in days.items() if day is not None}
    if not all(FIRST_DAY <= day <= LAST_DAY for day in days.values()):
        for name, day in days.items():  # linear in the day's ordinal: the order is kept
            span = LAST_DAY.toordinal() - FIRST_DAY.toordinal()
            moved = (day.toordinal() - 1) * span // (date.max.toordinal() - 1)
            case.body[name] = date.fromordinal(FIRST_DAY.toordinal() + moved).isoformat()
    if "/tournaments/" in case.path and not case.path.endswith("/import/"):
        _tournament_in_order(case.body)
    if str(case.body.get("time_control") or "").strip() and "rating_list" in case.body:
        del case.body["rating_list"]  # the time control chooses it (FIDE.md 9), one rule
    return case


def _tournament_in_order(body: dict) -> None:
    """A tournament's own rules between its values, beyond OpenAPI: a change that gives one of
    its days gives the other (the stored one is unknown here, and may be later), and the period
    that rates it holds its last day or is at most the third list after it (FIDE 9.1), else it
    is left to the default (the period holding the last day)."""
    start, end = _day(body.get("start")), _day(body.get("end"))
    if (start is None) != (end is None):
        day = (start or end).isoformat()  # type: ignore[union-attr]
        body["start"] = body["end"] = day
        end = start or end
    if "rated_in" not in body:
        return
    month = _month(body["rated_in"])
    if end is None or month is None or not 0 <= month - (end.year * 12 + end.month - 1) <= 3:
        del body["rated_in"]


def _month(label: object) -> int | None:
    """A monthly period's label (``2026-03``) as a count of months."""
    try:
        year, month = (int(part) for part in str(label).split("-"))
    except ValueError:
        return None
    return year * 12 + month - 1


def _day(value: object) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def breaks_pair_rule(case) -> bool:
    """Whether ``case`` breaks a rule between two of its values that its operation states:
    ``x-distinct`` (equal where they must differ), ``x-ordered`` (a first date or number after
    or above the second, both given) or ``x-requires`` (the first given, not the second; a
    partial change may rely on the one recorded, unknown here, so it is not sent either)."""
    rules = case.operation.definition.raw
    return (
        any(_distinct_broken(case, *pair) for pair in rules.get("x-distinct", []))
        or any(_order_broken(case, *pair) for pair in rules.get("x-ordered", []))
        or any(_requirement_broken(case, *pair) for pair in rules.get("x-requires", []))
    )


def _distinct_broken(case, first: str, second: str) -> bool:
    values = [_value(case, name) for name in (first, second)]
    # A path's "2" and a body's 2 name the same player.
    return _MISSING not in values and str(values[0]) == str(values[1])


def _order_broken(case, first: str, second: str) -> bool:
    values = [_value(case, name) for name in (first, second)]
    if _MISSING in values or None in values:
        return False
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return values[0] > values[1]
    return str(values[0]) > str(values[1])  # ISO dates compare as text


def _requirement_broken(case, first: str, second: str) -> bool:
    """The first given without the second (either of ``body.a|body.b``)."""
    if not _given(_value(case, first)):
        return False
    return not any(_given(_value(case, name)) for name in second.split("|"))


def _given(value: object) -> bool:
    return value is not _MISSING and value is not None and str(value).strip() != ""


_MISSING = object()


def _value(case, name: str) -> object:
    """The value ``location.name`` of a case (``path.id``, ``query.event``, ``body.white``)."""
    location, _, key = name.partition(".")
    found = {"path": case.path_parameters, "query": case.query, "body": case.body}[location]
    return found.get(key, _MISSING) if isinstance(found, dict) else _MISSING


# SCHEMATHESIS_LOG_REFUSED=FILE: every case generated as valid that the API refused with a 400 or
# a 422, one JSON line each (operation, phase, what was sent, the answer), to find which
# constraint the schema does not state when Schemathesis warns of a validation mismatch.
_REFUSED_LOG = os.environ.get("SCHEMATHESIS_LOG_REFUSED")


@schemathesis.hook
def after_call(ctx, case, response) -> None:
    if not _REFUSED_LOG or response.status_code not in (400, 422):
        return
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return
    line = {
        "operation": f"{case.method} {case.path}",
        "phase": str(case.meta.phase.name),
        "path": case.path_parameters,
        "query": case.query,
        "body": case.body if isinstance(case.body, dict | list | str | None) else repr(case.body),
        "status": response.status_code,
        "answer": response.text[:500],
    }
    with open(_REFUSED_LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(line, default=str) + "\n")
