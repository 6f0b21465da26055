"""FIDE's XML list (``players_list_xml.zip``, 850 MB unzipped), read by expat a megabyte at a
time: ``<playerslist><player><fideid>...</fideid>...</player>``, element names as FIDE writes
them (``fideid``, ``name``, ``country``, ``sex``, ``title``, ``w_title``, ``o_title``,
``foa_title``, ``rating``, ``games``, ``k``, ``rapid_rating``, ..., ``birthday``, ``flag``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any
from xml.parsers import expat

from django.utils.translation import gettext

from ladder.exceptions import FileProblems, ImportFailed
from ladder.files.fide_list_rows import MAX_PROBLEMS, check, escaped
from ladder.records.fide_list import ROW_FIELDS

XML = {
    "fideid": "fide_id",
    "name": "name",
    "country": "federation",
    "sex": "sex",
    "title": "title",
    "w_title": "women_title",
    "o_title": "other_titles",
    "foa_title": "foa_title",
    "rating": "standard_rating",
    "games": "standard_games",
    "k": "standard_k",
    "rapid_rating": "rapid_rating",
    "rapid_games": "rapid_games",
    "rapid_k": "rapid_k",
    "blitz_rating": "blitz_rating",
    "blitz_games": "blitz_games",
    "blitz_k": "blitz_k",
    "birthday": "birth_year",
    "flag": "flag",
}


# Numbers: the most digits each may have, and whether FIDE's 0 means "none" (stored null).
def xml_rows(first: bytes, file: IO[bytes], problems: FileProblems) -> Iterator[str]:
    """The players of FIDE's XML as COPY lines of every field, through expat (streamed, 1 MB
    at a time, nothing kept but the players read and not yet handed on; expat knows the line
    of each element, which a problem names)."""
    parser = expat.ParserCreate()
    ready: list[str] = []
    state: dict[str, Any] = {"row": None, "text": [], "line": 0, "lines": {}}

    def start(tag: str, attributes: dict) -> None:
        if tag == "player":
            state["row"], state["line"], state["lines"] = {}, parser.CurrentLineNumber, {}
        state["text"] = []

    def end(tag: str) -> None:
        values = state["row"]
        if values is None:
            return
        if tag == "player":
            for name in ROW_FIELDS:
                values.setdefault(name, "")
            bad = check(values)
            if bad:
                name, reason = bad
                if len(problems) < MAX_PROBLEMS:
                    line = state["lines"].get(name, state["line"])
                    problems.add(line, _XML_TAG[name], reason)
            elif not problems:
                ready.append("\t".join(escaped(values[f]) for f in ROW_FIELDS))
            state["row"] = None
        elif tag in XML:
            values[XML[tag]] = "".join(state["text"]).strip()
            state["lines"][XML[tag]] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = lambda text: state["text"].append(text)
    chunk = first
    while True:
        try:
            parser.Parse(chunk, not chunk)
        except expat.ExpatError as error:
            reason = gettext("The XML is broken: %(error)s.") % {
                "error": expat.errors.messages[error.code]
            }
            problems.add(error.lineno, error.offset + 1, reason)
            raise ImportFailed(list(problems)) from error
        yield from ready
        ready.clear()
        if not chunk:
            break
        chunk = file.read(1 << 20)
    if problems:
        raise ImportFailed(list(problems))


_XML_TAG = {f: f"<{tag}>" for tag, f in XML.items()}


_XML_TAG = {f: f"<{tag}>" for tag, f in XML.items()}
