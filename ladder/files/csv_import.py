"""CSV import of players and games (DESIGN Contracts): whole file or nothing.

Every row is validated before anything is written; the first problems are reported with the
line, the column and the reason, and the database is left as it was.
"""

from __future__ import annotations

from datetime import date
from typing import Any, TextIO

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from ladder.exceptions import (
    AlreadyImported,
    FileAlreadyImported,
    FileProblem,
    GamesInvalid,
    ImportFailed,
    PlayersInvalid,
)
from ladder.files import games_screen
from ladder.files.csv_rows import (
    GAME_COLUMNS,
    GAME_FIELD_COLUMNS,
    TOURNAMENT_COLUMNS,
    date_problem,
    fingerprinted,
    parse_date,
    rows,
    table,
)
from ladder.records import (
    LIST_FIELDS,
    Game,
    ImportedFile,
    Player,
    RatingList,
    Sex,
    Title,
    read_fide_id,
)
from ladder.writes import actions, validation
from ladder.writes.validation import GameEntry, TournamentSpec

__all__ = [
    "GAME_COLUMNS",
    "PLAYER_COLUMNS",
    "import_games",
    "import_players",
    "read_games",
    "read_players",
]

# Entry data per list: ``rating`` (standard, as it always was), ``rapid_rating``, ...
_LIST_PREFIXES = {RatingList.STANDARD: "", RatingList.RAPID: "rapid_", RatingList.BLITZ: "blitz_"}
PLAYER_COLUMNS = (
    "name", "fide_id", "birth_year", "sex", "federation", "title", "national_federation",
    "national_id",
    *(f"{prefix}{column}" for prefix in _LIST_PREFIXES.values()
      for column in ("rating", "rated_games", "peak_rating")),
)  # fmt: skip


def _int(value: str, column: str, errors: list, line: int) -> int | None:
    """The whole number a cell holds (None: blank); its bounds are the model's, checked by
    the write path's validator."""
    if value == "":
        return None
    try:
        return int(value)
    except ValueError:
        errors.append(FileProblem(line, column, f"'{value}' is not a whole number."))
        return None


def _fide_id(value: str, errors: list, line: int) -> int | None:
    """The FIDE id a cell holds (None: blank), read as every door reads one."""
    try:
        return read_fide_id(value)
    except ValidationError as error:
        errors += [FileProblem(line, "fide_id", message) for message in error.messages]
        return None


_PLAYER_FIELD_COLUMNS = {
    field: f"{prefix}{column}"
    for rating_list, prefix in _LIST_PREFIXES.items()
    for field, column in zip(
        LIST_FIELDS[rating_list].entry, ("rating", "rated_games", "peak_rating"), strict=True
    )
}


def import_players(file: TextIO, *, user: Any = None) -> list[Player]:
    """Import players from a CSV file, whole or not at all, through ``actions.import_players``;
    return those added (with their ids). Raise ``ImportFailed`` naming every bad row (the same
    file twice: ``AlreadyImported``)."""
    file, digest = fingerprinted(file, ImportedFile.Kind.PLAYERS)
    players, lines, errors = read_players(file)
    sources = [f"line {line}" for line in lines]
    if errors:  # refused already: say what the write path would say of the rows too
        found = validation.check_players(players, sources=sources)
        raise ImportFailed(_sorted(errors + _player_problems(found, lines)))
    try:
        return actions.import_players(players=players, digest=digest, user=user, sources=sources)
    except PlayersInvalid as error:
        raise ImportFailed(_sorted(_player_problems(error.problems, lines))) from error
    except FileAlreadyImported as error:
        raise AlreadyImported(error.earlier) from error


def read_players(file: TextIO) -> tuple[list[Player], list[int], list[FileProblem]]:
    """Parse a players CSV into unsaved players, each one's line, and what is not even a
    value of its column (a number that is none, a sex or title that is none). Everything else
    (the model's bounds, FIDE ids twice or taken) is the write path's validator's."""
    errors: list[FileProblem] = []
    players: list[Player] = []
    lines: list[int] = []
    for line, row in rows(file, PLAYER_COLUMNS, {"name"}):
        players.append(_player_from_row(row, line, errors))
        lines.append(line)
    return players, lines, errors


def _player_problems(found: list[dict[str, list[str]]], lines: list[int]) -> list[FileProblem]:
    columns = {"name": "name", NON_FIELD_ERRORS: "", **_PLAYER_FIELD_COLUMNS}
    return [
        FileProblem(line, columns.get(name, name), message)
        for line, problems in zip(lines, found, strict=True)
        for name, messages in problems.items()
        for message in messages
    ]


def _sorted(errors: list[FileProblem]) -> list[FileProblem]:
    return sorted(errors, key=lambda e: e.line)


def _player_from_row(row: dict, line: int, errors: list[FileProblem]) -> Player:
    entry: dict[str, int | None] = {}
    for field, column in _PLAYER_FIELD_COLUMNS.items():
        value = _int(row.get(column, ""), column, errors, line)
        entry[field] = (value or 0) if column.endswith("rated_games") else value
    player = Player(**entry,
        name=row.get("name", ""),
        fide_id=_fide_id(row.get("fide_id", ""), errors, line),
        birth_year=_int(row.get("birth_year", ""), "birth_year", errors, line),
        sex=row.get("sex", "").upper(),
        federation=row.get("federation", "").upper(),
        title=row.get("title", "").upper(),
        national_federation=row.get("national_federation", "").strip().upper(),
        national_id=row.get("national_id", "").strip(),
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
    return player


def import_games(file: TextIO, *, user: Any = None) -> list[Game]:
    """Import games from a CSV file, whole or not at all, through ``actions.import_games``.
    Raise ``ImportFailed`` naming every bad row (the same file twice: ``AlreadyImported``)."""
    file, digest = fingerprinted(file, ImportedFile.Kind.GAMES)
    games_screen.screen_games(file)  # a bad file is refused before a game is built
    entries = read_games(file)
    try:
        return actions.import_games(games=entries, digest=digest, user=user)
    except FileAlreadyImported as error:
        raise AlreadyImported(error.earlier) from error
    except ValidationError as error:
        raise failure(error, entries) from error


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

    def day_of(written: str, column: str, line: int) -> date | None:
        if written not in days:
            days[written] = parse_date(written)
        if days[written] is None:
            errors.append(FileProblem(line, column, date_problem(written)))
        return days[written]

    specs: dict[tuple[str, ...], TournamentSpec] = {}

    def tournament(values: list[str], line: int) -> TournamentSpec | None:
        texts = tuple(text(values, name).strip() for name in TOURNAMENT_COLUMNS)
        if not any(texts):
            return None
        if texts not in specs:
            name, start, end, rated_in = texts
            missing = [c for c, v in zip(TOURNAMENT_COLUMNS[:3], texts, strict=False) if not v]
            for column in missing:
                what = "tournament's name" if column == "tournament" else f"tournament's {column}"
                errors.append(FileProblem(line, column, f"The {what} is missing."))
            first, last = (day_of(start, "start", line) if start else None,
                           day_of(end, "end", line) if end else None)  # fmt: skip
            if missing or first is None or last is None:
                return None
            specs[texts] = TournamentSpec(name, first, last, rated_in)
        return specs[texts]

    for line, values in rows:
        day = day_of(text(values, "date"), "date", line)
        entries.append(
            GameEntry(date=day, white=text(values, "white"), black=text(values, "black"),
                      result=text(values, "result"), event=text(values, "event"),
                      round=text(values, "round"), rating_list=text(values, "list"),
                      time_control=text(values, "time_control"), source=f"line {line}",
                      tournament=tournament(values, line))
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
