"""FIDE's rating list files, read as FIDE publishes them, a line at a time.

Three shapes, zipped or not (``open_list`` tells them apart by their first bytes):

- the combined fixed-width TXT (``players_list.zip``: standard, rapid and blitz on one line),
  header ``ID Number  Name  Fed Sex Tit  WTit OTit  FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK
  B-day Flag``; older files lack ``FOA``;
- the per-list TXT (``standard_rating_list.txt``, ``rapid_…``, ``blitz_…``, or an archive's
  ``standard_oct26frl.txt``), whose rating column is named for the month (``OCT26 Gms K``);
- the XML (``players_list_xml.zip``): ``<playerslist><player><fideid>…``, 850 MB unzipped.

The columns of a TXT are found from its header, each running from its name to the next name;
a title longer than its column (``SI,FI,LSI,SLI,NA``) pushes the rest of its line right, which
the line's length tells. Rows come out as text in ``ROW_FIELDS`` order, ready for COPY
(FIDE's ``0`` for none kept, a blank number read as 0); a bad line is a ``FileProblem``
naming the line and the 1-based column, and the file is refused whole at its end
(``ImportFailed``) -- nothing is ever loaded whole.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from operator import itemgetter
from typing import IO

from django.utils import timezone
from django.utils.translation import gettext

from ladder.exceptions import FileProblem, FileProblems, ImportFailed
from ladder.files import fide_list_xml
from ladder.files.fide_list_rows import (
    MAX_PROBLEMS,
    NUMBERS,
    TEXT_LENGTHS,
    check,
    columns_of,
    escaped,
)
from ladder.records.fide_list import LIST_COLUMNS

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_MONTH_TOKEN = re.compile(rf"^({'|'.join(_MONTHS)})(\d\d)$", re.IGNORECASE)
_NAME_MONTH = re.compile(rf"({'|'.join(_MONTHS)})(\d\d)frl", re.IGNORECASE)
_LIST_IN_NAME = re.compile(r"(standard|rapid|blitz)", re.IGNORECASE)

# The combined list's header names (any case) and the row field each fills.
_COMBINED = {
    "id number": "fide_id",
    "name": "name",
    "fed": "federation",
    "sex": "sex",
    "tit": "title",
    "wtit": "women_title",
    "otit": "other_titles",
    "foa": "foa_title",
    "srtng": "standard_rating",
    "sgm": "standard_games",
    "sk": "standard_k",
    "rrtng": "rapid_rating",
    "rgm": "rapid_games",
    "rk": "rapid_k",
    "brtng": "blitz_rating",
    "bgm": "blitz_games",
    "bk": "blitz_k",
    "b-day": "birth_year",
    "flag": "flag",
}
# The XML's element names and the row field each fills.


@dataclass
class FideListFile:
    """An opened FIDE list: its shape, the lists it carries, the month its name or header
    gives (or None), and its rows (a generator, read once)."""

    shape: str  # "combined", "per-list" or "xml"
    lists: tuple[str, ...]
    month: date | None
    rows: Iterator[str]
    problems: FileProblems = field(default_factory=FileProblems)

    @property
    def columns(self) -> tuple[str, ...]:
        """The row fields of each row, in order: the identity, and the lists it carries."""
        lists = {name for rating_list in self.lists for name in LIST_COLUMNS[rating_list]}
        return columns_of(lists)


def month_of(text: str) -> date:
    """The first day of the month ``YYYY-MM`` names; ``ValueError`` with a sentence if none."""
    match = re.fullmatch(r"(\d{4})-(\d{1,2})", text.strip())
    if not match or not 1 <= int(match[2]) <= 12:
        raise ValueError(
            gettext("'%(text)s' is not a month; write it YYYY-MM, e.g. 2026-10.") % {"text": text}
        )
    return date(int(match[1]), int(match[2]), 1)


def _month_token(match: re.Match[str]) -> date:
    return date(2000 + int(match[2]), _MONTHS.index(match[1].upper()) + 1, 1)


@contextmanager
def open_list(file: IO[bytes], name: str = "", rating_list: str = "") -> Iterator[FideListFile]:
    """Open a FIDE list (a binary file, seekable if zipped) named ``name``; ``rating_list``
    names the list of a per-list TXT whose name does not say it. Raise ``ImportFailed`` for a
    file that is none of FIDE's shapes."""
    start = file.read(4)
    file.seek(0)
    if start.startswith(b"PK"):
        try:
            archive = zipfile.ZipFile(file)
        except zipfile.BadZipFile as error:
            said = gettext("%(name)s is no zip: %(error)s.") % {
                "name": name or gettext("The file"),
                "error": error,
            }
            problem = FileProblem(0, 0, said)
            raise ImportFailed([problem]) from error
        with archive:
            members = [
                m for m in archive.infolist() if m.filename.lower().endswith((".txt", ".xml"))
            ]
            if len(members) != 1:
                raise ImportFailed(
                    [
                        FileProblem(
                            0,
                            0,
                            gettext(
                                "The zip should hold one .txt or .xml list; it holds %(count)s."
                            )
                            % {"count": len(members)},
                        )
                    ]
                )
            with archive.open(members[0]) as inner:
                yield _open_plain(inner, members[0].filename, rating_list)
        return
    yield _open_plain(file, name, rating_list)


def _open_plain(file: IO[bytes], name: str, rating_list: str) -> FideListFile:
    named = _NAME_MONTH.search(name)
    month = _month_token(named) if named else None
    first = file.readline()
    problems = FileProblems()
    if first.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        rows = fide_list_xml.xml_rows(first, file, problems)
        return FideListFile("xml", tuple(LIST_COLUMNS), month, rows, problems)
    header = _decode(first).lstrip("\ufeff").rstrip("\r\n")
    spans, lists, header_month = _layout(header, name, rating_list)
    listed = FideListFile(
        "combined" if len(lists) > 1 else "per-list",
        lists,
        header_month or month,
        iter(()),
        problems,
    )
    listed.rows = _txt_rows(file, header, spans, problems)
    return listed


def _decode(raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:  # older lists: Windows-1252
        return raw.decode("cp1252", errors="replace")


# --- TXT -------------------------------------------------------------------------------------


def _layout(
    header: str, name: str, rating_list: str
) -> tuple[list[tuple[str, int, int]], tuple[str, ...], date | None]:
    """The (field, start, end) of each known column of a TXT header, in header order, the
    lists it carries and the month a per-list header names."""
    tokens = [(m.group(), m.start()) for m in re.finditer(r"\S+", header)]
    merged: list[tuple[str, int]] = []
    for text, start in tokens:
        if merged and merged[-1][0].lower() == "id" and text.lower() == "number":
            merged[-1] = ("ID Number", merged[-1][1])
        else:
            merged.append((text, start))
    month = None
    per_list = rating_list or _list_named(name)
    fields: list[tuple[str, int]] = []
    for text, start in merged:
        key = text.lower()
        monthly = _MONTH_TOKEN.match(text)
        if monthly:
            month = _month_token(monthly)
            key = "rtng"
        if key in ("rtng", "gms", "k"):
            if not per_list:
                raise ImportFailed(
                    [
                        FileProblem(
                            1,
                            start + 1,
                            gettext(
                                "A one-list file whose name does not say which list (standard, "
                                "rapid or blitz): name it (--list)."
                            ),
                        )
                    ]
                )
            suffix = {"rtng": "rating", "gms": "games", "k": "k"}[key]
            fields.append((f"{per_list}_{suffix}", start))
        elif key in _COMBINED:
            fields.append((_COMBINED[key], start))
        else:
            fields.append(("", start))  # a column FIDE may add: read past, not guessed at
    known = {f for f, _ in fields}
    missing = [f for f in ("fide_id", "name") if f not in known]
    if missing or len(header) > 400:
        raise ImportFailed(
            [
                FileProblem(
                    1,
                    0,
                    gettext(
                        "This is not a FIDE rating list: its first line should be the header "
                        "'ID Number  Name  Fed Sex Tit ...'."
                    ),
                )
            ]
        )
    spans = [
        (f, start, fields[i + 1][1] if i + 1 < len(fields) else 10_000)
        for i, (f, start) in enumerate(fields)
    ]
    lists = tuple(n for n, cols in LIST_COLUMNS.items() if cols[0] in known)
    return [s for s in spans if s[0]], lists, month


def _list_named(name: str) -> str:
    found = _LIST_IN_NAME.search(name.rsplit("/", 1)[-1])
    return found[1].lower() if found else ""


def _txt_rows(
    file: IO[bytes], header: str, spans: list[tuple[str, int, int]], problems: FileProblems
) -> Iterator[str]:
    """The rows of a TXT as COPY lines of the file's ``columns``.

    Each line is cut into its columns by one ``itemgetter`` of slices, its padding stripped,
    joined and checked whole by one pattern (all in C: 1.93 million
    lines are read in seconds); a line the pattern refuses, or longer than the header (a
    title overflowing its column), takes the slow way, field by field, which names the
    column of a problem."""
    width = len(header.rstrip())
    given = {f for f, _, _ in spans}
    columns = columns_of(given)
    by_field = {f: (a, b) for f, a, b in spans}
    getter = itemgetter(*(slice(*by_field.get(f, (0, 0))) for f in columns))
    valid = _pattern(columns)
    text_order = [i for i, (f, _, b) in enumerate(spans) if f in TEXT_LENGTHS and b < width]
    stream = io.TextIOWrapper(file, encoding="utf-8", errors="surrogateescape")
    number = 1
    strip, join, fullmatch = str.strip, "\t".join, valid.fullmatch  # looked up once
    for line in stream:
        number += 1
        line = line.rstrip("\n")
        if len(line) <= width and line.isascii() and "\t" not in line and "\\" not in line:
            text = join(map(strip, getter(line)))
            if fullmatch(text):
                if not problems:
                    yield text
                continue
        if not line.strip():
            continue
        line = _cp1252_if_not_utf8(line)
        plan = [(f, a, b) for f, a, b in spans]
        if len(line) > width:
            plan = _shifted(line, spans, text_order, len(line) - width) or plan
        values = {f: line[a:b].strip() for f, a, b in plan}
        bad = check(values)
        if bad:
            name, reason = bad
            if len(problems) < MAX_PROBLEMS:
                column = next((a + 1 for f, a, _ in plan if f == name), 0)
                problems.add(number, column, reason)
            continue
        if not problems:
            yield "\t".join(escaped(values.get(f, "")) for f in columns)
    if problems:
        raise ImportFailed(list(problems))


def _cp1252_if_not_utf8(line: str) -> str:
    """A line that was not UTF-8 (undecodable bytes kept as surrogates), read as Windows-1252,
    as older lists were written."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return line.encode("utf-8", "surrogateescape").decode("cp1252", errors="replace")
    return line


def _pattern(columns: tuple[str, ...]) -> re.Pattern[str]:
    """A row every field of which is well formed, its padding dropped."""
    parts = {
        "fide_id": r"[1-9]\d{0,11}",
        "name": r"[^\t\x00-\x1f]{1,100}",
        "federation": r"[A-Za-z]{0,3}",
        "sex": r"[MF]?",
    }
    return re.compile(
        "\t".join(
            parts.get(f)
            or (rf"\d{{1,{NUMBERS[f]}}}" if f in NUMBERS else rf"[^\t]{{0,{TEXT_LENGTHS[f]}}}")
            for f in columns
        )
    )


def _shifted(
    line: str, spans: list[tuple[str, int, int]], text_order: list[int], extra: int
) -> list[tuple[str, int, int]] | None:
    """The columns of a line ``extra`` characters longer than its header whose text column
    runs into the next one (a title longer than its column): every later column moves right.
    None when no text column overflows (the line is only padded further)."""
    overflow = next(
        (
            i
            for i in text_order
            if len(pair := line[spans[i][2] - 1 : spans[i][2] + 1]) == 2 and " " not in pair
        ),
        None,
    )
    if overflow is None:
        return None
    plan = []
    for i, (f, a, b) in enumerate(spans):
        if i > overflow:
            a += extra
        if i >= overflow:
            b += extra
        plan.append((f, a, b))
    return plan


def choose_month(given: str | None, listed: FideListFile) -> date:
    """The month to store a list under: the one given (``YYYY-MM``), else the one the file's
    name or header gives, else this month (FIDE's current download). ``ValueError`` for a
    month given that is no month, or that the header contradicts."""
    if given:
        month = month_of(given)
        if listed.month and listed.month != month and listed.shape == "per-list":
            raise ValueError(
                gettext("The file is FIDE's list of %(listed)s, not %(given)s.")
                % {"listed": f"{listed.month:%Y-%m}", "given": f"{month:%Y-%m}"}
            )
        return month
    if listed.month:
        return listed.month
    return timezone.localdate().replace(day=1)
