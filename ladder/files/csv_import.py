"""CSV import of players and games (DESIGN Contracts): whole file or nothing.

Every row is validated before anything is written; the first problems are reported with the
line, the column and the reason, and the database is left as it was.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any, TextIO

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ladder.files.problems import FileProblem
from ladder.records import (
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
from ladder.writes.validation import GameEntry, GamesInvalid

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
_IN_LIST_LIMIT = 500
_DERIVED = [field.name for field in Player._meta.fields if not field.editable]


class ImportFailed(Exception):
    """The file was not imported; ``errors`` say where and why."""

    def __init__(self, errors: list[FileProblem]):
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


def remember(digest: str, *, kind: str, rows: int, user: Any) -> None:
    """Record an imported file in the import's transaction; a concurrent import of the same
    file loses here (the unique fingerprint) and rolls back whole."""
    user = user if user is not None and user.is_authenticated else None
    try:
        with transaction.atomic():
            ImportedFile.objects.create(kind=kind, sha256=digest, rows=rows, user=user)
    except IntegrityError as error:
        raise AlreadyImported(ImportedFile.objects.get(kind=kind, sha256=digest)) from error


def _rows(
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
        raise ImportFailed([FileProblem(1, "", "The file is empty; a header row is required.")])
    missing = sorted(required - set(header))
    unknown = sorted(set(header) - set(columns))
    twice = sorted({c for c in header if header.count(c) > 1})
    problems = [FileProblem(1, c, "This required column is missing.") for c in missing]
    problems += [
        FileProblem(1, c, f"Unknown column; expected some of: {', '.join(columns)}.")
        for c in unknown
    ]
    problems += [FileProblem(1, c, "This column appears twice; keep one.") for c in twice]
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
            if "\x00" in "".join(values):
                # Databases cannot store a NUL; one usually means a binary file or UTF-16 text.
                problems += [
                    FileProblem(line, column, "Contains a NUL character; save the file as UTF-8 "
                             "text.")
                    for column, value in zip(header, values, strict=True)
                    if "\x00" in value
                ]  # fmt: skip
            yield line, values
    except csv.Error as error:
        problems.append(_csv_error(reader, error))
    if problems:
        raise ImportFailed(problems)


def _too_many(found: int, expected: int) -> str:
    return (
        f"This row has {found} fields but the header has {expected}: a text holding a comma "
        'must be in double quotes ("Smith, John").'
    )


def _csv_error(reader: Any, error: csv.Error) -> FileProblem:
    if "field larger than field limit" in str(error):
        limit = csv.field_size_limit() // 1024
        return FileProblem(
            reader.line_num,
            "",
            f"A field is longer than {limit} KB: a double quote is probably left open.",
        )
    return FileProblem(reader.line_num, "", f"This is not valid CSV ({error}).")


def _int(value: str, column: str, errors: list, line: int, *, low: int, high: int) -> int | None:
    if value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        errors.append(FileProblem(line, column, f"'{value}' is not a whole number."))
        return None
    if not low <= number <= high:
        errors.append(FileProblem(line, column, f"{number} is outside {low} to {high}."))
        return None
    return number


def _model_errors(exc: ValidationError, line: int, columns: dict[str, str]) -> list[FileProblem]:
    if not hasattr(exc, "error_dict"):
        return [FileProblem(line, "", " ".join(exc.messages))]
    return [
        FileProblem(line, columns.get(field, field if field != "__all__" else ""), message)
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


def import_players(file: TextIO) -> list[Player]:
    """Import players from CSV; return those created (with their ids). Raise ``ImportFailed``."""
    rows = _rows(file, PLAYER_COLUMNS, {"name"})
    errors: list[FileProblem] = []
    players: list[Player] = []
    seen_ids: dict[int, int] = {}
    for line, row in rows:
        found = len(errors)
        player = _player_from_row(row, line, errors)
        if player.fide_id is not None:
            if player.fide_id in seen_ids:
                errors.append(
                    FileProblem(line, "fide_id", f"FIDE id {player.fide_id} is also on line "
                             f"{seen_ids[player.fide_id]}.")
                )  # fmt: skip
            seen_ids.setdefault(player.fide_id, line)
        if len(errors) == found:
            players.append(player)
    stored = Player.objects.exclude(fide_id=None)
    if len(seen_ids) <= _IN_LIST_LIMIT:  # else read them all: SQLite limits a statement's values
        stored = stored.filter(fide_id__in=list(seen_ids))
    taken = {i for i in stored.values_list("fide_id", flat=True) if i in seen_ids}
    errors += [
        FileProblem(seen_ids[i], "fide_id", f"A player with FIDE id {i} already exists.")
        for i in sorted(taken)
    ]
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line))
    with transaction.atomic():
        for player in players:
            player.start_from_entry()
        if connection.vendor == "postgresql":
            _copy(players)
        else:
            Player.objects.bulk_create(players, batch_size=2000)
    return players


def _copy(players: list[Player]) -> None:
    """Write validated players with PostgreSQL's COPY: bulk_create prepares every value of
    every row through its field (37 columns: 17 s for 100,000 players, COPY well under 1).
    Their ids are taken from the table's sequence first, in one query, as bulk_create would
    return them: their history versions are written next (``audit``)."""
    fields = list(Player._meta.concrete_fields)
    now = timezone.now()
    columns = ", ".join(connection.ops.quote_name(str(field.column)) for field in fields)
    statement = f"COPY {Player._meta.db_table} ({columns}) FROM STDIN"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [Player._meta.db_table, Player._meta.pk.column, len(players)],
        )
        for player, (pk,) in zip(players, cursor.fetchall(), strict=True):
            player.pk = pk
    with connection.cursor() as cursor, cursor.copy(statement) as copy:
        for player in players:
            player.created = player.updated = now
            copy.write_row([getattr(player, field.attname) for field in fields])


def _player_from_row(row: dict, line: int, errors: list[FileProblem]) -> Player:
    entry: dict[str, int | None] = {}
    for field, column in _PLAYER_FIELD_COLUMNS.items():
        games = column.endswith("rated_games")
        if games:
            value = _int(row.get(column, ""), column, errors, line, low=0,
                         high=MAX_ENTRY_RATED_GAMES)  # fmt: skip
        else:  # the model's bounds and sentence, as at every door
            value = _int(row.get(column, ""), column, errors, line, low=-_SMALLINT, high=_SMALLINT)
            if value is not None and not ENTRY_RATING_FLOOR <= value <= MAX_RATING:
                errors.append(FileProblem(line, column, ENTRY_RATING_MESSAGE))
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
        errors.append(FileProblem(line, "sex", f"'{player.sex}' is not M or F."))
        player.sex = ""
    if player.title and player.title not in Title.values:
        errors.append(
            FileProblem(line, "title", f"'{player.title}' is not a FIDE title "
                     f"({', '.join(Title.values)}).")
        )  # fmt: skip
        player.title = ""
    if _plainly_valid(player):
        return player
    try:
        # Uniqueness is checked for the whole file at once, and every check constraint repeats
        # a field validator: Django checks a constraint with a query, three a row otherwise.
        # The derived fields are not the file's.
        player.full_clean(exclude=_DERIVED, validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        errors.extend(_model_errors(exc, line, {"name": "name", **_PLAYER_FIELD_COLUMNS}))
    return player


# What full_clean checks of an imported player (the file's fields), and the one field whose
# every value differs (the FIDE id: checked, not remembered).
_CLEANED = [f for f in Player._meta.fields if f.editable and not f.primary_key]
_NAME = Player._meta.get_field("name")
_UNIQUE = {"fide_id"}


def _plainly_valid(player: Player) -> bool:
    """Say whether ``full_clean`` (as ``_player_from_row`` calls it) would pass the player,
    in a few dictionary reads: each field's values repeat (ratings, years, federations), so
    each distinct value is cleaned once; a name of printable characters within the length
    passes the name's validators. False sends the row to full_clean for its messages."""
    for model_field in _CLEANED:
        value = getattr(player, model_field.attname)
        if model_field.blank and value in model_field.empty_values:
            continue
        if model_field is _NAME:
            if not (0 < len(value) <= (_NAME.max_length or 0) and value.isprintable()):
                return False
        elif model_field.name in _UNIQUE:
            if not _cleans(model_field, value):
                return False
        elif not _cleans_cached(model_field.attname, value):
            return False
    try:
        player.clean()
    except ValidationError:
        return False
    return True


def _cleans(model_field: Any, value: Any) -> bool:
    try:
        model_field.clean(value, None)
    except ValidationError:
        return False
    return True


@functools.lru_cache(maxsize=8192)
def _cleans_cached(attname: str, value: Any) -> bool:
    return _cleans(Player._meta.get_field(attname), value)


def read_games(file: TextIO) -> list[GameEntry]:
    """Parse a games CSV into entries for ``actions.enter_games``; raise ``ImportFailed`` for
    what is not even a game (no date, a date that is not one). Everything else (players,
    results, periods, duplicates) is checked by the write path's validator."""
    header, rows = table(file, GAME_COLUMNS, {"date", "white", "black", "result"})
    at = {name: header.index(name) if name in header else None for name in GAME_COLUMNS}
    errors: list[FileProblem] = []
    entries = []
    # A big file repeats its players, results, events and dates: keep one copy of each.
    seen: dict[str, str] = {}
    days: dict[str, date | None] = {}

    def text(values: list[str], name: str) -> str:
        index = at[name]
        return "" if index is None else seen.setdefault(values[index], values[index])

    for line, values in rows:
        written = text(values, "date")
        if written not in days:
            days[written] = parse_date(written)
        day = days[written]
        if day is None:
            errors.append(FileProblem(line, "date", date_problem(written)))
        entries.append(
            GameEntry(date=day, white=text(values, "white"), black=text(values, "black"),
                      result=text(values, "result"), event=text(values, "event"),
                      round=text(values, "round"), rating_list=text(values, "list"),
                      time_control=text(values, "time_control"), source=f"line {line}")
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
            FileProblem(int(entry.source.removeprefix("line ")),
                        GAME_FIELD_COLUMNS.get(name, name), message)
            for entry, found in zip(entries, problems, strict=True)
            for name, messages in found.items()
            for message in messages
        ]
    )  # fmt: skip


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
