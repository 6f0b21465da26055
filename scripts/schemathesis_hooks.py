"""Schemathesis hooks for scripts/schemathesis.sh (``SCHEMATHESIS_HOOKS``).

The API answers CSV (``text/csv``) where asked: the schema states it as text. This reads it as
CSV and refuses a document that is not a table (a row with more or fewer cells than the header
row), so that Schemathesis checks the CSV answers too rather than skipping them.
"""

from __future__ import annotations

import csv
import io

import schemathesis


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
