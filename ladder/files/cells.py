"""CSV cells a spreadsheet would run as formulas (CSV injection): neutralised on the way out
(every CSV Ladder writes: the pages' downloads, the API, the commands) and restored on the way
in (the CSV imports), so that a file Ladder wrote imports back as the same records."""

from __future__ import annotations

import re
from typing import Any

from ladder.records import Result

# A spreadsheet reads a cell starting with one of these as a formula (CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?\d+(\.\d+)?")
_RESULTS = frozenset(Result.values)


def neutralise(value: Any) -> Any:
    """Return a text cell a spreadsheet would run as a formula behind a quote ("'=cmd|..."), so
    it shows as text; numbers stay numbers, written as text or not ("-8.40"), and so do the
    results' own codes ("+/-": Ladder's, never typed text; the import reads them back)."""
    if (
        isinstance(value, str)
        and value.startswith(FORMULA_PREFIXES)
        and not _NUMBER.fullmatch(value)
        and value not in _RESULTS
    ):
        return "'" + value
    return value


def restore(value: str) -> str:
    """Undo ``neutralise``: a cell it wrote ("'=SUM(A1)", "'-Blitz night") reads as the text it
    was; any other cell, a quote typed by hand before a number ("'-5") too, stays as it is."""
    if value[:1] == "'" and value[1:2] in FORMULA_PREFIXES and neutralise(value[1:]) == value:
        return value[1:]
    return value
