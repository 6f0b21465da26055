"""Every public exception the ladder app defines, in one place: its modules import them from here.

Each message is a sentence a club administrator understands: every door (admin, round entry,
API, commands, importers) shows it as it is. A file's problems are ``FileProblem`` values, the
one vocabulary of every file import (CSV, TRF, PGN).

Only Django and ``ladder.records`` are imported here, so that every layer may raise these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ladder.records import ImportedFile
from ladder.records.codes import CONFLICT

# --- the problems of a file -----------------------------------------------------------------------


@dataclass(frozen=True)
class FileProblem:
    """A problem of a file at a line (1-based) and a column (named, or counted), with the reason.

    A CSV names its columns (the header's), a fixed-width file such as a TRF counts them (the
    1-based character where the field starts; 0: the whole line).
    """

    line: int
    column: str | int
    reason: str
    # The file and what is recorded disagree (a FIDE id that is another player's, a name
    # several players bear): the API answers 409 when every problem is one.
    conflict: bool = False

    def __str__(self) -> str:
        at = {"line": self.line, "column": self.column, "reason": self.reason}
        if isinstance(self.column, int):  # a counted column: "Line 12, column 49"
            if self.column:
                return gettext("Line %(line)s, column %(column)s: %(reason)s") % at
            return gettext("Line %(line)s: %(reason)s") % at
        # a CSV's column, by its header: "line 5, column 'fide_id'"
        if self.column:
            return gettext("line %(line)s, column '%(column)s': %(reason)s") % at
        return gettext("line %(line)s: %(reason)s") % at


class FileProblems(list[FileProblem]):
    """The problems found so far."""

    def add(self, line: int, column: str | int, reason: str) -> None:
        self.append(FileProblem(line, column, reason))


# --- the write path -------------------------------------------------------------------------------


class ConflictError(ValidationError):
    """A well-formed request that conflicts with what is recorded (the API answers 409)."""


def is_conflict(error: ValidationError) -> bool:
    """Whether every message of ``error`` is a conflict with what is recorded (a
    ``ConflictError``, or each message coded ``CONFLICT``), so that fixing the request's
    values cannot cure it: one wrong value among them makes it the request's fault (400)."""
    if isinstance(error, ConflictError) or (isinstance(error, GamesInvalid) and error.conflict):
        return True
    found = [item for items in getattr(error, "error_dict", {}).values() for item in items]
    found += [] if hasattr(error, "error_dict") else error.error_list
    return bool(found) and all(item.code == CONFLICT for item in found)


class PeriodClosedError(ConflictError):
    """A write into a closed period (the API answers 409 Conflict)."""


class GamesInvalid(ValidationError):
    """Some games of a batch are invalid; ``problems[i]`` maps field -> messages for game i.
    ``conflict``: every problem is a conflict with what is recorded (the API answers 409)."""

    def __init__(
        self, problems: list[dict[str, list[str]]], sources: list[str], conflict: bool = False
    ):
        self.problems = problems
        self.sources = sources
        self.conflict = conflict
        lines = [
            f"{source}: {message}"
            for source, found in zip(sources, problems, strict=True)
            for messages in found.values()
            for message in messages
        ]
        super().__init__(lines)


class FileAlreadyImported(ConflictError):
    """The very same file was imported before (by its SHA-256 fingerprint): ``earlier``."""

    def __init__(self, earlier: ImportedFile) -> None:
        self.earlier = earlier
        super().__init__(already_imported_message(earlier))


def already_imported_message(earlier: ImportedFile) -> str:
    """Say that a file was imported before, and what recording it again would do."""
    what = "players" if earlier.kind == ImportedFile.Kind.PLAYERS else "games"
    return (
        f"This file was already imported on {earlier.at:%Y-%m-%d %H:%M} UTC ({earlier.rows} "
        f"{what}); importing it again would record them twice."
    )


class EventAlreadyImported(ConflictError):
    """An event's games are in the ladder already: a file of it is not recorded twice."""


class PlayersInvalid(ValidationError):
    """Some players of a batch are invalid; ``problems[i]`` maps field -> messages for player i."""

    def __init__(self, problems: list[dict[str, list[str]]], sources: Sequence[str]):
        self.problems = problems
        self.sources = list(sources) or batch_names(len(problems))
        super().__init__(
            [
                f"{source}: {message}"
                for source, found in zip(self.sources, problems, strict=True)
                for messages in found.values()
                for message in messages
            ]
        )


def batch_names(count: int) -> list[str]:
    """Name the players of a batch a door did not name ("player 1 of this batch", ...)."""
    return [f"player {i + 1} of this batch" for i in range(count)]


class ClubInvalid(ValidationError):
    """A backup that cannot be restored; ``messages`` name every problem by where it is."""


class ReopenRefused(ValidationError):
    """A reopen beyond the correction window by someone without the permission (API: 403)."""


# --- the files ------------------------------------------------------------------------------------

MAX_REPORTED = 20


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
        Exception.__init__(self, already_imported_message(earlier))


class TrfRefused(Exception):
    """The file is refused whole; ``problems`` say where and why."""

    def __init__(self, problems: list[FileProblem], conflict: bool = False) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        # the file is in the ladder already, or disagrees with its records (API: 409)
        self.conflict = conflict
        super().__init__("\n".join(str(p) for p in self.problems))


class NotAnExport(Exception):
    """The document is not a club export this version can restore; the message says why."""
