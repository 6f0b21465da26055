"""Read FIDE Tournament Report Files (TRF-16 and TRF-2026): pure, no database.

``parse(text)`` returns a ``Tournament``: its header, one ``Entrant`` per player line (001),
the games the file describes (one ``Pairing`` from the two lines that tell of it) and what is
no game (byes, pairings without a result yet); ``tournament_file`` says what each pair of
result codes records. What real files do and is unambiguous is tolerated and noted (date
styles, year-only birth dates, lowercase titles and codes, CRLF, Windows-1252, a trailing empty
round, a forfeit written without colours: the lower starting rank is White); anything else
refuses the whole file with ``TrfRefused``, every problem naming its line, its column and the
reason (``../shared/TRF.md``).
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError

from ladder.exceptions import FileProblem, FileProblems, TrfRefused
from ladder.files.tournament_file import (
    ABSENCES,
    CODES,
    FORFEITS,
    NEEDS_OPPONENT,
    RESULTS,
    SHORT,
    Bye,
    Cell,
    Entrant,
    Pairing,
    Tournament,
)
from ladder.records import read_fide_id

# Records only TRF-2026 has (comments, scoring, encoded tournament type and time control, ...).
TRF_2026_CODES = {"###", *(f"{n:03d}" for n in range(142, 363, 10)), "299", "801", "802"}
TRF_2026_CODES |= {f"{n:03d}" for n in range(240, 331, 10)}
# Header records a file holds at most once (TRF-16): a second one would be read under the first
# value with no word, so it is refused. 112 (a deputy arbiter) is one line each and may repeat.
ONCE = {
    "012": "tournament name", "022": "city", "032": "federation", "042": "start date",
    "052": "end date", "062": "number of players", "072": "number of rated players",
    "082": "number of teams", "092": "type of tournament", "102": "chief arbiter",
    "122": "time control", "132": "dates of the rounds",
}  # fmt: skip
FIRST_ROUND_COLUMN = 92  # 1-based; a round block is 10 columns wide
POINTS_END = 84  # a player line runs at least to the end of its points

TITLES = {
    "GM": "GM", "IM": "IM", "FM": "FM", "CM": "CM", "WGM": "WGM", "WIM": "WIM", "WFM": "WFM",
    "WCM": "WCM", "G": "GM", "M": "IM", "F": "FM", "C": "CM", "WG": "WGM", "WM": "WIM",
    "WF": "WFM", "WC": "WCM",
}  # fmt: skip
SEXES = {"M": "M", "W": "F", "F": "F"}


# --- text --------------------------------------------------------------------------------------


_DATES = (
    (re.compile(r"(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})"), "ymd"),
    (re.compile(r"(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})"), "dmy"),
    (re.compile(r"(\d{2})/(\d{2})/(\d{2})"), "yy"),  # the 132 line's YY/MM/DD
)


def parse_date(text: str) -> date:
    """Read a date as pairing programs write it; raise ``ValueError`` when it is not one."""
    text = text.strip()
    for pattern, order in _DATES:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        a, b, c = (int(g) for g in match.groups())
        year, month, day = {"ymd": (a, b, c), "dmy": (c, b, a), "yy": (2000 + a, b, c)}[order]
        try:
            return date(year, month, day)
        except ValueError:
            break
    raise ValueError(f"'{text}' is not a date (write YYYY/MM/DD).")


def _birth_year(text: str) -> int | None:
    text = text.strip()
    if not text or set(text) <= set("0/.- "):
        return None
    if re.fullmatch(r"\d{4}", text):
        return int(text)
    return parse_date(text).year


# --- the file ----------------------------------------------------------------------------------


def parse(text: str, *, encoding_note: str = "") -> Tournament:
    """Read a TRF; raise ``TrfRefused`` with every problem found."""
    tournament = Tournament(notes=[encoding_note] if encoding_note else [])
    problems = FileProblems()
    codes: set[str] = set()
    first_line: dict[str, int] = {}  # a record of ONCE -> its line
    national: list[tuple[int, str, str]] = []  # TRF-2026 national-rating records
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if "\x00" in line:
            nul = "The line holds a NUL character; this is not a text file (save it as text)."
            raise TrfRefused([FileProblem(number, 0, nul)])
        if not line.strip():
            continue
        code = line[:3]
        codes.add(code)
        if code in ONCE and code in first_line:
            problems.add(number, 1, repeated_message(code, first_line[code]))
            continue
        first_line.setdefault(code, number)
        if code == "001":
            entrant = _entrant(line, number, problems, tournament.notes)
            if entrant is not None:
                tournament.entrants.append(entrant)
        elif _national_record(code, line):
            national.append((number, code, line))
        else:
            _header(tournament, code, line, number, problems)
    _national_ids(tournament, national, problems)
    if codes & TRF_2026_CODES or national:
        tournament.version = "TRF-2026"
    if not tournament.entrants and not problems:
        problems.add(1, 0, "The file has no player line (001); is it a TRF?")
    if not problems:
        _games(tournament, problems)
    if problems:
        raise TrfRefused(problems)
    return tournament


def _national_record(code: str, line: str) -> bool:
    """A TRF-2026 National Rating Support record: a federation's code (``NOR``) where the
    player line has ``001``, the player's starting rank in columns 5-8."""
    return (
        code.isalpha() and code.isupper() and code.isascii() and not code.startswith("XX")
        and line[3:4] == " " and line[4:8].strip().isdigit()
    )  # fmt: skip


def _national_ids(
    tournament: Tournament, records: list[tuple[int, str, str]], problems: FileProblems
) -> None:
    """Give each player the national id of their NRS record (columns 58-68, the number)."""
    by_rank = {entrant.rank: entrant for entrant in tournament.entrants}
    for number, code, line in records:
        rank = int(line[4:8])
        entrant = by_rank.get(rank)
        if entrant is None:
            problems.add(number, 5, f"No player line (001) has the starting rank {rank}.")
            continue
        national_id = line[57:68].strip()
        if national_id and national_id != "0":
            entrant.national_federation, entrant.national_id = code, national_id


def repeated_message(code: str, first: int) -> str:
    """Say that a header record a file holds once is there again (first on line ``first``)."""
    return (
        f"The {ONCE[code]} (record {code}) is given twice: line {first} gives it already. "
        "Keep one line."
    )


def _header(
    tournament: Tournament, code: str, line: str, number: int, problems: FileProblems
) -> None:
    value = line[4:].strip()
    if code in ("042", "052") and value:
        try:
            day = parse_date(value)
        except ValueError as error:
            problems.add(number, 5, str(error))
            return
        setattr(tournament, "start" if code == "042" else "end", day)
    elif code == "132":
        for start in range(FIRST_ROUND_COLUMN - 1, len(line), 10):
            text = line[start : start + 10].strip()
            if not text:
                continue
            try:
                tournament.round_dates[(start - FIRST_ROUND_COLUMN + 1) // 10 + 1] = parse_date(
                    text
                )
            except ValueError as error:
                problems.add(number, start + 1, str(error))
    else:
        names = {
            "012": "name",
            "022": "city",
            "032": "federation",
            "102": "arbiter",
            "122": "time_control",
            "222": "encoded_time_control",
        }
        if code in names and not getattr(tournament, names[code]):
            setattr(tournament, names[code], value)


def _number(text: str, line: int, column: int, what: str, problems: FileProblems) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()):
        problems.add(line, column, f"'{text}' is not a {what} (a whole number).")
        return None
    return int(text)


def _entrant(line: str, number: int, problems: FileProblems, notes: list[str]) -> Entrant | None:
    if len(line) < POINTS_END:
        problems.add(
            number,
            len(line),
            f"The player line is cut short: it ends in "
            f"column {len(line)}, before the points (columns 81-84).",
        )
        return None
    found = len(problems)
    rank = _number(line[4:8], number, 5, "starting rank", problems)
    if rank is None and len(problems) == found:
        problems.add(number, 5, "The starting rank (columns 5-8) is missing.")
    entrant = Entrant(line=number, rank=rank or 0, name=" ".join(line[14:47].split()))
    if not entrant.name:
        problems.add(number, 15, "The name (columns 15-47) is missing.")
    entrant.rating = _number(line[48:52], number, 49, "rating", problems) or None
    try:
        entrant.fide_id = read_fide_id(line[57:68]) or None  # 0: none
    except ValidationError as error:
        problems += [FileProblem(number, 58, message) for message in error.messages]
    entrant.final_rank = _number(line[85:89], number, 86, "rank", problems)
    entrant.federation = line[53:56].strip().upper()
    points = line[80:84].strip()
    try:
        entrant.points = Decimal(points) if points else None
    except InvalidOperation:
        problems.add(number, 81, f"'{points}' is not a number of points (e.g. 4.5).")
    try:
        entrant.birth_year = _birth_year(line[69:79])
    except ValueError as error:
        problems.add(number, 70, f"The birth date {error}")
    sex, title = line[9].strip().upper(), line[10:13].strip().upper()
    entrant.sex = SEXES.get(sex, "")
    entrant.title = TITLES.get(title, "")
    if sex and not entrant.sex:
        notes.append(f"Line {number}: sex '{line[9]}' is not m or w; it is ignored.")
    if title and not entrant.title:
        notes.append(f"Line {number}: '{title}' is not a FIDE title; it is ignored.")
    for start in range(FIRST_ROUND_COLUMN - 1, len(line), 10):
        entrant.cells.append(_cell(line, start, number, problems))
    return entrant if len(problems) == found else None


def _cell(line: str, start: int, number: int, problems: FileProblems) -> Cell:
    """Read one round's block; refuse what the format does not allow (TRF.md, TRF-2026's
    table: letter codes in either case, a blank colour as ``-``, a blank opponent as
    ``0000``)."""
    round_number = (start - FIRST_ROUND_COLUMN + 1) // 10 + 1
    block = line[start : start + 10].ljust(8)
    opponent = _number(block[:4], number, start + 1, "starting rank of an opponent", problems)
    colour, code = block[5].strip().lower(), block[7].strip().upper()
    cell = Cell(round_number, opponent or None, colour if colour in "wb" else "", code, start + 1)
    where = f"Round {round_number}: "
    if colour not in ("", "w", "b", "-"):
        problems.add(number, start + 6, f"{where}'{block[5]}' is not a colour (w, b or -).")
    if code not in CODES:
        problems.add(
            number,
            start + 8,
            f"{where}'{block[7]}' is not a result code "
            "(1, =, 0, +, -, W, D, L, H, F, U, Z or blank).",
        )
    elif cell.opponent is None:
        if code in NEEDS_OPPONENT:
            problems.add(
                number,
                start + 1,
                f"{where}'{block[7]}' is the result of a game, but no opponent is given "
                f"(columns {start + 1}-{start + 4}).",
            )
    elif len(line) < start + 6:
        problems.add(
            number,
            len(line),
            f"{where}the player line is cut short after the opponent (no colour, no result).",
        )
    elif code in ABSENCES:
        problems.add(
            number,
            start + 8,
            f"{where}'{code}' is a bye, but an opponent ({cell.opponent}) is given.",
        )
    elif not cell.colour and code not in FORFEITS and code not in SHORT:
        what = "a played game" if code else "a pairing without a result"
        problems.add(number, start + 6, f"{where}{what} needs its colour (w or b).")
    return cell


# --- games -------------------------------------------------------------------------------------


def _games(tournament: Tournament, problems: FileProblems) -> None:
    """Pair the lines up: each game once, from the two lines that describe it."""
    by_rank: dict[int, Entrant] = {}
    for entrant in tournament.entrants:
        if entrant.rank in by_rank:
            first = by_rank[entrant.rank].line
            problems.add(
                entrant.line, 5, f"The starting rank {entrant.rank} is also on line {first}."
            )
        by_rank.setdefault(entrant.rank, entrant)
    if problems:
        return
    rounds = max((len(e.cells) for e in tournament.entrants), default=0)
    while rounds and all(_blank(e.cell(rounds)) for e in tournament.entrants):
        tournament.notes.append(f"Round {rounds} is empty on every line; it is ignored.")
        rounds -= 1
    tournament.rounds = rounds
    for round_number in range(1, rounds + 1):
        _round(tournament, by_rank, round_number, problems)
    colourless = sum(not p.colours_given for p in tournament.pairings)
    if colourless:
        tournament.notes.append(
            f"{colourless} unplayed game{'s give' if colourless > 1 else ' gives'} no colours; "
            "the player of the lower starting rank is recorded as White."
        )
    pending = [p for p in tournament.pairings if p.kind == "pending"]
    for round_number in sorted({p.round for p in pending}):
        count = sum(p.round == round_number for p in pending)
        tournament.notes.append(
            f"Round {round_number}: {count} pairing"
            f"{'s have' if count > 1 else ' has'} no result yet; not "
            "recorded."
        )


def _blank(cell: Cell | None) -> bool:
    return cell is None or (cell.opponent is None and cell.code in ("", "Z"))


def _round(
    tournament: Tournament, by_rank: dict[int, Entrant], round_number: int, problems: FileProblems
) -> None:
    named: dict[int, Entrant] = {}  # opponent rank -> the line that names them
    where = f"Round {round_number}: "
    for entrant in tournament.entrants:
        cell = entrant.cell(round_number) or Cell(round_number, None, "", "", 0)
        if cell.opponent is None:
            tournament.byes.append(Bye(round_number, entrant, cell.code))
            continue
        opponent = by_rank.get(cell.opponent)
        if opponent is None or opponent is entrant:
            reason = (
                "a player cannot play themselves"
                if opponent
                else (f"no player line has the starting rank {cell.opponent}")
            )
            problems.add(
                entrant.line,
                cell.column,
                f"{where}the opponent {cell.opponent} does not exist ({reason}).",
            )
            continue
        if not cell.code and round_number < tournament.rounds:
            problems.add(
                entrant.line,
                cell.column + 7,
                f"{where}the game against {cell.opponent} has no result; only the last round "
                "may be saved before its results are in.",
            )
        if cell.opponent in named:
            other = named[cell.opponent]
            problems.add(
                entrant.line,
                cell.column,
                f"{where}{opponent.name} is paired twice (also on line {other.line}).",
            )
            continue
        named[cell.opponent] = entrant
    for rank, entrant in named.items():
        opponent = by_rank[rank]
        if opponent.rank < entrant.rank and named.get(entrant.rank) is opponent:
            continue  # told once, from the lower starting rank
        _pair(tournament, entrant, opponent, round_number, problems)


def _pair(
    tournament: Tournament,
    entrant: Entrant,
    opponent: Entrant,
    round_number: int,
    problems: FileProblems,
) -> None:
    mine = entrant.cell(round_number)
    theirs = opponent.cell(round_number)
    assert mine is not None
    agree = (
        theirs is not None
        and theirs.opponent == entrant.rank
        and (mine.colour, theirs.colour) in (("w", "b"), ("b", "w"), ("", ""))
        and _complements(mine.code, theirs.code)
    )
    if not agree:
        told = f"'{theirs.text}'" if theirs is not None and theirs.opponent else "no game"
        says = {entrant.line: f"'{mine.text}'", opponent.line: told}
        first, second = sorted(says)
        column = mine.column if second == entrant.line else theirs.column if theirs else 0
        problems.add(
            second,
            column,
            f"Round {round_number}: lines {first} and {second} disagree "
            f"about the game of {entrant.name} and {opponent.name}: line "
            f"{first} says {says[first]}, line {second} says "
            f"{says[second]}.",
        )
        return
    assert theirs is not None
    if mine.colour:
        white, black = (entrant, opponent) if mine.colour == "w" else (opponent, entrant)
    else:  # an unplayed game written without colours: the lower starting rank is White
        white, black = sorted((entrant, opponent), key=lambda e: e.rank)
    codes = (mine.code, theirs.code) if white is entrant else (theirs.code, mine.code)
    cell = mine if white is entrant else theirs
    tournament.pairings.append(
        Pairing(
            round_number,
            white,
            black,
            codes[0],
            codes[1],
            white.line,
            cell.column,
            colours_given=bool(mine.colour),
        )
    )


def _complements(mine: str, theirs: str) -> bool:
    """Tell whether two lines' codes tell of one game: 1 and 0, = and =, + and -, - and -
    (a double forfeit), W and L, D and D, or neither a result yet."""
    return (mine, theirs) in RESULTS or mine == theirs == ""
