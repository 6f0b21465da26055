"""Schemathesis hooks for scripts/schemathesis.sh (``SCHEMATHESIS_HOOKS``).

The API answers CSV (``text/csv``) where asked: the schema states it as text. This reads it as
CSV and refuses a document that is not a table (a row with more or fewer cells than the header
row), so that Schemathesis checks the CSV answers too rather than skipping them.

A rule between two values (White is not Black, a tournament ends no earlier than it starts) is
beyond OpenAPI: the schema states it as an operation's ``x-distinct`` or ``x-ordered``
(``ladder.api.schema``), and ``filter_case`` reads it there, so that no case sent as valid
breaks it. Cases sent as invalid are left as generated.
"""

from __future__ import annotations

import csv
import io
import operator
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
    if all(FIRST_DAY <= day <= LAST_DAY for day in days.values()):
        return case
    for name, day in days.items():  # linear in the day's ordinal: the order is kept
        span = LAST_DAY.toordinal() - FIRST_DAY.toordinal()
        moved = (day.toordinal() - 1) * span // (date.max.toordinal() - 1)
        case.body[name] = date.fromordinal(FIRST_DAY.toordinal() + moved).isoformat()
    return case


def _day(value: object) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def breaks_pair_rule(case) -> bool:
    """Whether ``case`` breaks a rule between two of its values that its operation states:
    ``x-distinct`` (equal where they must differ) or ``x-ordered`` (a first date after the
    second), both values given."""
    rules = case.operation.definition.raw
    return any(
        _compare(case, first, second, operator.eq) for first, second in rules.get("x-distinct", [])
    ) or any(
        _compare(case, first, second, operator.gt) for first, second in rules.get("x-ordered", [])
    )


def _compare(case, first: str, second: str, broken) -> bool:
    values = [_value(case, name) for name in (first, second)]
    # A path's "2" and a body's 2 name the same player; ISO dates compare as text.
    return _MISSING not in values and broken(str(values[0]), str(values[1]))


_MISSING = object()


def _value(case, name: str) -> object:
    """The value ``location.name`` of a case (``path.id``, ``query.event``, ``body.white``)."""
    location, _, key = name.partition(".")
    found = {"path": case.path_parameters, "query": case.query, "body": case.body}[location]
    return found.get(key, _MISSING) if isinstance(found, dict) else _MISSING
