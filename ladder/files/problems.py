"""Why a file is refused, and where: the one problem type of every file import (CSV, TRF, PGN).

Pure: no database. A CSV names its columns (the header's), a fixed-width file such as a TRF
counts them (the 1-based character where the field starts; 0: the whole line).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileProblem:
    """A problem of a file at a line (1-based) and a column (named, or counted), with the reason."""

    line: int
    column: str | int
    reason: str

    def __str__(self) -> str:
        if isinstance(self.column, int):  # a counted column: "Line 12, column 49"
            where = f"Line {self.line}" + (f", column {self.column}" if self.column else "")
        else:  # a CSV's column, by its header: "line 5, column 'fide_id'"
            where = f"line {self.line}" + (f", column '{self.column}'" if self.column else "")
        return f"{where}: {self.reason}"


class FileProblems(list[FileProblem]):
    """The problems found so far."""

    def add(self, line: int, column: str | int, reason: str) -> None:
        self.append(FileProblem(line, column, reason))
