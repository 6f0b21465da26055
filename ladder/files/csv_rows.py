"""Reading a CSV file of the ladder: the header, the rows as they are needed, the file's
fingerprint, and what the importers refuse a file with (``ImportFailed``, by line and column).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any, TextIO

from django.core.exceptions import NON_FIELD_ERRORS
from django.utils.translation import gettext

from ladder.exceptions import AlreadyImported, FileProblem, ImportFailed
from ladder.files.cells import restore
from ladder.records import ImportedFile

GAME_COLUMNS = (
    "date", "white", "black", "result", "event", "round", "list", "time_control",
    "tournament", "start", "end", "rated_in",
)  # fmt: skip
# The columns that name a game's tournament (FIDE.md 10.1): its name, first and last day, and
# for a late report the label of the period that rates it.
TOURNAMENT_COLUMNS = ("tournament", "start", "end", "rated_in")


def fingerprinted(file: TextIO, kind: str) -> tuple[TextIO, str]:
    """Return the file, rewound, with its fingerprint (read in chunks: a big file is never held
    whole), or raise ``AlreadyImported``. A file that cannot be rewound is read into memory."""
    if not file.seekable():
        file = io.StringIO(file.read(), newline="")
    start = file.tell()
    digest = hashlib.sha256()
    while chunk := file.read(1 << 20):
        digest.update(chunk.encode("utf-8"))
    file.seek(start)
    earlier = ImportedFile.objects.filter(kind=kind, sha256=digest.hexdigest()).first()
    if earlier is not None:
        raise AlreadyImported(earlier)
    return file, digest.hexdigest()


def rows(
    file: TextIO, columns: Iterable[str], required: set[str]
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield each row as (line, {column: value}); see ``table``."""
    header, rows = table(file, columns, required)
    for line, values in rows:
        yield line, dict(zip(header, values, strict=True))


def table(
    file: TextIO, columns: Iterable[str], required: set[str]
) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Check the header row and return it with the rows, each (line, values in the header's
    order), read as they are needed so that a big file is never held twice. Once the file is
    read, the rows raise ``ImportFailed`` if any row was not sound CSV."""
    reader = csv.reader(file)
    try:
        header = [(h or "").strip().lower() for h in next(reader, [])]
    except csv.Error as error:
        raise ImportFailed([_csv_error(reader, error)]) from error
    if not any(header):
        raise ImportFailed(
            [FileProblem(1, "", gettext("The file is empty; a header row is required."))]
        )
    missing = sorted(required - set(header))
    unknown = sorted(set(header) - set(columns))
    twice = sorted({c for c in header if header.count(c) > 1})
    problems = [FileProblem(1, c, gettext("This required column is missing.")) for c in missing]
    expected = gettext("Unknown column; expected some of: %(columns)s.") % {
        "columns": ", ".join(columns)
    }
    problems += [FileProblem(1, c, expected) for c in unknown]
    twice_said = gettext("This column appears twice; keep one.")
    problems += [FileProblem(1, c, twice_said) for c in twice]
    if problems:
        raise ImportFailed(problems)
    return header, _values(reader, header)


def _values(reader: Any, header: list[str]) -> Iterator[tuple[int, list[str]]]:
    # A million rows pass here: the usual row (as wide as the header, no NUL) is taken in a
    # few C calls.
    width = len(header)
    padding = [""] * width
    problems: list[FileProblem] = []
    try:
        for raw in reader:
            if not raw:
                continue  # a blank line
            line = reader.line_num
            if len(raw) == width:
                values = list(map(str.strip, raw))
            else:
                if len(raw) > width:
                    problems.append(FileProblem(line, "", _too_many(len(raw), width)))
                values = list(map(str.strip, raw[:width]))
                values += padding[len(values) :]
            joined = "".join(values)
            if "'" in joined:  # a cell Ladder neutralised on the way out reads as it was
                values = [restore(v) if v[:1] == "'" else v for v in values]
            if "\x00" in joined:
                # Databases cannot store a NUL; one usually means a binary file or UTF-16 text.
                problems += [
                    FileProblem(line, column, gettext(
                        "Contains a NUL character; save the file as UTF-8 text."))
                    for column, value in zip(header, values, strict=True)
                    if "\x00" in value
                ]  # fmt: skip
            yield line, values
    except csv.Error as error:
        problems.append(_csv_error(reader, error))
    if problems:
        raise ImportFailed(problems)


def _too_many(found: int, expected: int) -> str:
    return gettext(
        "This row has %(found)s fields but the header has %(expected)s: a text holding a comma "
        'must be in double quotes ("Smith, John").'
    ) % {"found": found, "expected": expected}


def _csv_error(reader: Any, error: csv.Error) -> FileProblem:
    if "field larger than field limit" in str(error):
        limit = csv.field_size_limit() // 1024
        return FileProblem(
            reader.line_num,
            "",
            gettext("A field is longer than %(limit)s KB: a double quote is probably left open.")
            % {"limit": limit},
        )
    return FileProblem(
        reader.line_num, "", gettext("This is not valid CSV (%(error)s).") % {"error": error}
    )


GAME_FIELD_COLUMNS = {NON_FIELD_ERRORS: "", "rating_list": "list"}


def parse_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def date_problem(value: str) -> str:
    if not value:
        return "A date is required (YYYY-MM-DD)."
    return f"'{value}' is not a date in the form YYYY-MM-DD."
