"""CSV import of players and games (DESIGN Contracts): whole file or nothing.

Every row is validated before anything is written; the first problems are reported with the
line, the column and the reason, and the database is left as it was.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, TextIO

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import IntegrityError, transaction

from .models import (
    ENTRY_RATING_FLOOR,
    ENTRY_RATING_MESSAGE,
    LIST_FIELDS,
    MAX_ENTRY_RATED_GAMES,
    MAX_FIDE_ID,
    MAX_RATING,
    MIN_BIRTH_YEAR,
    ImportedFile,
    Player,
    RatingList,
    Sex,
    Title,
)
from .validation import GameEntry, GamesInvalid

# Entry data per list: ``rating`` (standard, as it always was), ``rapid_rating``, ...
_LIST_PREFIXES = {RatingList.STANDARD: "", RatingList.RAPID: "rapid_", RatingList.BLITZ: "blitz_"}
PLAYER_COLUMNS = (
    "name", "fide_id", "birth_year", "sex", "federation", "title",
    *(f"{prefix}{column}" for prefix in _LIST_PREFIXES.values()
      for column in ("rating", "rated_games", "peak_rating")),
)  # fmt: skip
GAME_COLUMNS = ("date", "white", "black", "result", "event", "round", "list", "time_control")
MAX_REPORTED = 20
_SMALLINT = 32767  # what a rating column can hold


@dataclass(frozen=True)
class RowError:
    line: int
    column: str
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column '{self.column}'" if self.column else "")
        return f"{where}: {self.reason}"


class ImportFailed(Exception):
    """The file was not imported; ``errors`` say where and why."""

    def __init__(self, errors: list[RowError]):
        self.errors = errors
        shown = "\n".join(str(e) for e in errors[:MAX_REPORTED])
        more = len(errors) - MAX_REPORTED
        super().__init__(shown + (f"\n... and {more} more problems." if more > 0 else ""))


class AlreadyImported(ImportFailed):
    """The very same file was imported before (by its SHA-256 fingerprint)."""

    def __init__(self, earlier: ImportedFile):
        self.errors = []
        what = "players" if earlier.kind == ImportedFile.Kind.PLAYERS else "games"
        Exception.__init__(
            self,
            f"This file was already imported on {earlier.at:%Y-%m-%d %H:%M} UTC ({earlier.rows} "
            f"{what}); importing it again would record them twice.",
        )


def fingerprinted(file: TextIO, kind: str) -> tuple[TextIO, str]:
    """Read the file once; return it again with its fingerprint, or raise ``AlreadyImported``."""
    text = file.read()
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    earlier = ImportedFile.objects.filter(kind=kind, sha256=digest).first()
    if earlier is not None:
        raise AlreadyImported(earlier)
    return io.StringIO(text, newline=""), digest


def remember(digest: str, *, kind: str, rows: int, user: Any) -> None:
    """Record an imported file in the import's transaction; a concurrent import of the same
    file loses here (the unique fingerprint) and rolls back whole."""
    user = user if user is not None and user.is_authenticated else None
    try:
        with transaction.atomic():
            ImportedFile.objects.create(kind=kind, sha256=digest, rows=rows, user=user)
    except IntegrityError as error:
        raise AlreadyImported(ImportedFile.objects.get(kind=kind, sha256=digest)) from error


def _rows(file: TextIO, columns: Iterable[str], required: set[str]) -> list[tuple[int, dict]]:
    reader = csv.DictReader(file)
    try:
        header = [(h or "").strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as error:
        raise ImportFailed([_csv_error(reader, error)]) from error
    if not header:
        raise ImportFailed([RowError(1, "", "The file is empty; a header row is required.")])
    missing = sorted(required - set(header))
    unknown = sorted(set(header) - set(columns))
    twice = sorted({c for c in header if header.count(c) > 1})
    problems = [RowError(1, c, "This required column is missing.") for c in missing]
    problems += [
        RowError(1, c, f"Unknown column; expected some of: {', '.join(columns)}.") for c in unknown
    ]
    problems += [RowError(1, c, "This column appears twice; keep one.") for c in twice]
    if problems:
        raise ImportFailed(problems)
    reader.fieldnames = header
    rows: list[tuple[int, dict]] = []
    try:
        for row in reader:
            if row.get(None):  # DictReader's rest key: more fields than the header
                problems.append(RowError(reader.line_num, "", _too_many(row, len(header))))
            rows.append((reader.line_num, {k: (v or "").strip() for k, v in row.items() if k}))
    except csv.Error as error:
        problems.append(_csv_error(reader, error))
    # Databases cannot store a NUL character; one usually means a binary file or UTF-16 text.
    problems += [
        RowError(line, column, "Contains a NUL character; save the file as UTF-8 text.")
        for line, row in rows
        for column, value in row.items()
        if "\x00" in value
    ]
    if problems:
        raise ImportFailed(problems)
    return rows


def _too_many(row: dict, expected: int) -> str:
    found = expected + len(row[None])
    return (
        f"This row has {found} fields but the header has {expected}: a text holding a comma "
        'must be in double quotes ("Smith, John").'
    )


def _csv_error(reader: csv.DictReader, error: csv.Error) -> RowError:
    if "field larger than field limit" in str(error):
        limit = csv.field_size_limit() // 1024
        return RowError(
            reader.line_num + 1,
            "",
            f"A field is longer than {limit} KB: a double quote is probably left open.",
        )
    return RowError(reader.line_num + 1, "", f"This is not valid CSV ({error}).")


def _int(value: str, column: str, errors: list, line: int, *, low: int, high: int) -> int | None:
    if value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        errors.append(RowError(line, column, f"'{value}' is not a whole number."))
        return None
    if not low <= number <= high:
        errors.append(RowError(line, column, f"{number} is outside {low} to {high}."))
        return None
    return number


def _model_errors(exc: ValidationError, line: int, columns: dict[str, str]) -> list[RowError]:
    if not hasattr(exc, "error_dict"):
        return [RowError(line, "", " ".join(exc.messages))]
    return [
        RowError(line, columns.get(field, field if field != "__all__" else ""), message)
        for field, messages in exc.message_dict.items()
        for message in messages
    ]


_PLAYER_FIELD_COLUMNS = {
    field: f"{prefix}{column}"
    for rating_list, prefix in _LIST_PREFIXES.items()
    for field, column in zip(
        LIST_FIELDS[rating_list].entry, ("rating", "rated_games", "peak_rating"), strict=True
    )
}


def import_players(file: TextIO) -> int:
    """Import players from CSV; return how many were created. Raise ``ImportFailed``."""
    rows = _rows(file, PLAYER_COLUMNS, {"name"})
    errors: list[RowError] = []
    players: list[Player] = []
    seen_ids: dict[int, int] = {}
    for line, row in rows:
        found = len(errors)
        player = _player_from_row(row, line, errors)
        if player.fide_id is not None:
            if player.fide_id in seen_ids:
                errors.append(
                    RowError(line, "fide_id", f"FIDE id {player.fide_id} is also on line "
                             f"{seen_ids[player.fide_id]}.")
                )  # fmt: skip
            seen_ids.setdefault(player.fide_id, line)
        if len(errors) == found:
            players.append(player)
    stored = Player.objects.filter(fide_id__in=list(seen_ids)).values_list("fide_id", flat=True)
    taken = {fide_id for fide_id in stored if fide_id is not None}
    errors += [
        RowError(seen_ids[i], "fide_id", f"A player with FIDE id {i} already exists.")
        for i in sorted(taken)
    ]
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line))
    with transaction.atomic():
        for player in players:
            player.start_from_entry()
        Player.objects.bulk_create(players, batch_size=2000)
    return len(players)


def _player_from_row(row: dict, line: int, errors: list[RowError]) -> Player:
    entry: dict[str, int | None] = {}
    for field, column in _PLAYER_FIELD_COLUMNS.items():
        games = column.endswith("rated_games")
        if games:
            value = _int(row.get(column, ""), column, errors, line, low=0,
                         high=MAX_ENTRY_RATED_GAMES)  # fmt: skip
        else:  # the model's bounds and sentence, as at every door
            value = _int(row.get(column, ""), column, errors, line, low=-_SMALLINT, high=_SMALLINT)
            if value is not None and not ENTRY_RATING_FLOOR <= value <= MAX_RATING:
                errors.append(RowError(line, column, ENTRY_RATING_MESSAGE))
                value = None
        entry[field] = (value or 0) if games else value
    player = Player(**entry,
        name=row.get("name", ""),
        fide_id=_int(row.get("fide_id", ""), "fide_id", errors, line, low=1, high=MAX_FIDE_ID),
        birth_year=_int(row.get("birth_year", ""), "birth_year", errors, line,
                        low=MIN_BIRTH_YEAR, high=9999),
        sex=row.get("sex", "").upper(),
        federation=row.get("federation", "").upper(),
        title=row.get("title", "").upper(),
    )  # fmt: skip
    if player.sex and player.sex not in Sex.values:
        errors.append(RowError(line, "sex", f"'{player.sex}' is not M or F."))
        player.sex = ""
    if player.title and player.title not in Title.values:
        errors.append(
            RowError(line, "title", f"'{player.title}' is not a FIDE title "
                     f"({', '.join(Title.values)}).")
        )  # fmt: skip
        player.title = ""
    try:
        # Uniqueness is checked for the whole file at once, and every check constraint repeats
        # a field validator: Django checks a constraint with a query, three a row otherwise.
        player.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        errors.extend(_model_errors(exc, line, {"name": "name", **_PLAYER_FIELD_COLUMNS}))
    return player


def read_games(file: TextIO) -> list[GameEntry]:
    """Parse a games CSV into entries for ``actions.enter_games``; raise ``ImportFailed`` for
    what is not even a game (no date, a date that is not one). Everything else (players,
    results, periods, duplicates) is checked by the write path's validator."""
    rows = _rows(file, GAME_COLUMNS, {"date", "white", "black", "result"})
    errors: list[RowError] = []
    entries = []
    for line, row in rows:
        day = _date(row.get("date", ""), line, errors)
        entries.append(
            GameEntry(date=day, white=row.get("white", ""), black=row.get("black", ""),
                      result=row.get("result", ""), event=row.get("event", ""),
                      round=row.get("round", ""), rating_list=row.get("list", ""),
                      time_control=row.get("time_control", ""), source=f"line {line}")
        )  # fmt: skip
    if errors:
        raise ImportFailed(errors)
    return entries


def failure(error: ValidationError, entries: list[GameEntry]) -> ImportFailed:
    """Turn the validator's refusal of a file's games into errors by line and column."""
    if isinstance(error, GamesInvalid):
        problems = error.problems
    else:
        problems = [error.message_dict if hasattr(error, "error_dict") else {"": error.messages}]
    return ImportFailed(
        [
            RowError(int(entry.source.removeprefix("line ")), _GAME_FIELD_COLUMNS.get(name, name),
                     message)
            for entry, found in zip(entries, problems, strict=True)
            for name, messages in found.items()
            for message in messages
        ]
    )  # fmt: skip


_GAME_FIELD_COLUMNS = {NON_FIELD_ERRORS: "", "rating_list": "list"}


def _date(value: str, line: int, errors: list[RowError]) -> date | None:
    if not value:
        errors.append(RowError(line, "date", "A date is required (YYYY-MM-DD)."))
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors.append(RowError(line, "date", f"'{value}' is not a date in the form YYYY-MM-DD."))
        return None
