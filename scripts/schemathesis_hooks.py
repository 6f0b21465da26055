"""Schemathesis hooks for scripts/schemathesis.sh (``SCHEMATHESIS_HOOKS``).

The API answers CSV (``text/csv``) where asked: the schema states it as text. This reads it as
CSV and refuses a document that is not a table (a row with more or fewer cells than the header
row), so that Schemathesis checks the CSV answers too rather than skipping them.

A rule between two values (White is not Black) is beyond OpenAPI: the schema states it as an
operation's ``x-distinct`` (``ladder.api.schema.distinct``), and ``filter_case`` reads it there,
so that no case sent as valid breaks it. Cases sent as invalid are left as generated.
"""

from __future__ import annotations

import csv
import io

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
    """Whether a case may be sent: not one generated as valid whose values that the
    operation's ``x-distinct`` says must differ are equal."""
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return True
    return not breaks_distinct(case)


def breaks_distinct(case) -> bool:
    """Whether two values of ``case`` that its operation's ``x-distinct`` says must differ are
    equal (both given)."""
    pairs = case.operation.definition.raw.get("x-distinct", [])
    return any(_equal(case, first, second) for first, second in pairs)


def _equal(case, first: str, second: str) -> bool:
    values = [_value(case, name) for name in (first, second)]
    # A path's "2" and a body's 2 name the same player.
    return _MISSING not in values and str(values[0]) == str(values[1])


_MISSING = object()


def _value(case, name: str) -> object:
    """The value ``location.name`` of a case (``path.id``, ``query.event``, ``body.white``)."""
    location, _, key = name.partition(".")
    found = {"path": case.path_parameters, "query": case.query, "body": case.body}[location]
    return found.get(key, _MISSING) if isinstance(found, dict) else _MISSING
