"""What a tournament file holds, whatever its format: players, games, byes, and problems.

``ladder.files.trf`` (TRF-16, TRF-2026) and ``ladder.files.pgn`` (tag pairs) read files into a
``Tournament``; ``ladder.files.tournaments`` imports it and ``ladder.files.exports`` writes one.
Result
codes are the TRF's (FIDE Handbook C.04 Annex 2), the richest of the formats. Pure: no database.

What Ladder records for each code pair (``Pairing.result``; Ladder stores ``1-0 0-1 1/2-1/2`` and
the unplayed ``+/- -/+ 0-0``, never rated): played games as played; forfeits as unplayed
results; a win or loss of less than one move (``W``/``L``, not rated, FIDE.md 10.1) as the
unplayed result with the same winner, ``+/-`` or ``-/+``; a draw of less than one move
(``D``/``D``) is not recorded, since Ladder has no unplayed draw and ``0-0`` would take half a
point from each player. Byes are no games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext, gettext_noop

PLAYED = {"1": "0", "0": "1", "=": "="}  # a played game's code -> the opponent's
FORFEITS = {"+": "-", "-": "+"}
SHORT = {"W": "L", "L": "W", "D": "D"}  # games that lasted less than one move
NEEDS_OPPONENT = {*PLAYED, *SHORT}  # a result of a game: refused without an opponent
BYES = {
    "H": gettext_noop("half-point bye"),
    "F": gettext_noop("full-point bye"),
    "U": gettext_noop("pairing-allocated bye"),
    "Z": gettext_noop("zero-point bye"),
    "": gettext_noop("not paired"),
    "+": gettext_noop("forfeit win without an opponent"),
    "-": gettext_noop("forfeit loss without an opponent"),
}
ABSENCES = {"H", "F", "U", "Z"}  # byes: refused with an opponent
# What Ladder records for a pair of codes, White's first (see the module's docstring).
RESULTS = {
    ("1", "0"): "1-0", ("0", "1"): "0-1", ("=", "="): "1/2-1/2",
    ("+", "-"): "+/-", ("-", "+"): "-/+", ("-", "-"): "0-0",
    ("W", "L"): "+/-", ("L", "W"): "-/+", ("D", "D"): "",
}  # fmt: skip
CODES = {*PLAYED, *FORFEITS, *SHORT, *BYES}


@dataclass
class Cell:
    """One round of a player line: the opponent's starting rank, the colour, the result code."""

    round: int
    opponent: int | None
    colour: str  # "w", "b" or ""
    code: str  # upper case; "" when blank
    column: int  # where the block starts

    @property
    def text(self) -> str:
        return f"{self.opponent or '0000'} {self.colour or '-'} {self.code or ' '}".strip()


@dataclass
class Entrant:
    """A player line (001) of the file."""

    line: int
    rank: int
    sex: str = ""
    title: str = ""
    name: str = ""  # as in the file: "Lastname, Firstname"
    rating: int | None = None
    federation: str = ""
    fide_id: int | None = None
    birth_year: int | None = None
    points: Decimal | None = None
    final_rank: int | None = None
    cells: list[Cell] = field(default_factory=list)
    # A TRF-2026 national-rating record (NRS) of the player: the federation and its id.
    national_federation: str = ""
    national_id: str = ""

    @property
    def display_name(self) -> str:
        """The name as the club writes it: "Firstname Lastname"."""
        last, comma, first = self.name.partition(",")
        return " ".join(f"{first} {last}".split()) if comma else " ".join(self.name.split())

    def cell(self, round_number: int) -> Cell | None:
        return self.cells[round_number - 1] if round_number <= len(self.cells) else None


@dataclass
class Pairing:
    """A game the file describes, from the two lines that tell of it."""

    round: int
    white: Entrant
    black: Entrant
    white_code: str
    black_code: str
    line: int  # White's line and the round's column there
    column: int
    date: date | None = None  # the game's own date (PGN); a TRF dates its rounds
    colours_given: bool = True  # False: an unplayed game written without colours

    @property
    def kind(self) -> str:
        """``rated`` (1, =, 0), ``forfeit`` (+, -), ``short`` (W, D, L) or ``pending``."""
        if self.white_code in PLAYED:
            return "rated"
        if self.white_code in FORFEITS:
            return "forfeit"
        return "short" if self.white_code in SHORT else "pending"

    @property
    def result(self) -> str:
        """The result as the club stores it ("" for what is not recorded)."""
        return RESULTS.get((self.white_code, self.black_code), "")

    @property
    def text(self) -> str:
        return f"{self.white.name} - {self.black.name} {self.white_code}{self.black_code}"


@dataclass
class Bye:
    """A player's round without a game: a bye of some kind, or not paired."""

    round: int
    entrant: Entrant
    code: str

    @property
    def label(self) -> str:
        if self.code in BYES:
            return gettext(BYES[self.code])
        return gettext("'%(code)s' without an opponent") % {"code": self.code}


@dataclass
class Tournament:
    version: str = "TRF-16"
    name: str = ""
    city: str = ""
    federation: str = ""
    start: date | None = None
    end: date | None = None
    time_control: str = ""  # 122, free text
    encoded_time_control: str = ""  # 222 (TRF-2026), e.g. 5400+30
    arbiter: str = ""
    round_dates: dict[int, date] = field(default_factory=dict)
    entrants: list[Entrant] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rounds: int = 0
    other_events: list[tuple[str, int]] = field(default_factory=list)  # PGN: (name, line)

    def round_date(self, round_number: int, default: date | None = None) -> date | None:
        """The round's date: the 132 line's, else ``default``, else the end date (052)."""
        return self.round_dates.get(round_number) or default or self.end


def decode(data: bytes) -> tuple[str, str]:
    """Return the file's text and a note on its encoding when it is not UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), "The file is UTF-16 text."
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "The file is not UTF-8; it was read as Windows-1252."
    except UnicodeDecodeError:
        return data.decode("latin-1"), "The file is not UTF-8; it was read as Latin-1."
