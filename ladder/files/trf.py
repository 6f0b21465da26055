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
from django.utils.translation import gettext, gettext_noop, ngettext

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
    "012": gettext_noop("tournament name"), "022": gettext_noop("city"),
    "032": gettext_noop("federation"), "042": gettext_noop("start date"),
    "052": gettext_noop("end date"), "062": gettext_noop("number of players"),
    "072": gettext_noop("number of rated players"), "082": gettext_noop("number of teams"),
    "092": gettext_noop("type of tournament"), "102": gettext_noop("chief arbiter"),
    "122": gettext_noop("time control"), "132": gettext_noop("dates of the rounds"),
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
    raise ValueError(gettext("'%(text)s' is not a date (write YYYY/MM/DD).") % {"text": text})


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
            nul = gettext(
                "The line holds a NUL character; this is not a text file (save it as text)."
            )
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
        problems.add(1, 0, gettext("The file has no player line (001); is it a TRF?"))
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
    return gettext(
        "The %(what)s (record %(code)s) is given twice: line %(first)s gives it already. "
        "Keep one line."
    ) % {"what": gettext(ONCE[code]), "code": code, "first": first}


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
        problems.add(
            line,
            column,
            gettext("'%(text)s' is not a %(what)s (a whole number).")
            % {"text": text, "what": gettext(what)},
        )
        return None
    return int(text)


def _entrant(line: str, number: int, problems: FileProblems, notes: list[str]) -> Entrant | None:
    if len(line) < POINTS_END:
        problems.add(
            number,
            len(line),
            gettext(
                "The player line is cut short: it ends in column %(column)s, before the points "
                "(columns 81-84)."
            )
            % {"column": len(line)},
        )
        return None
    found = len(problems)
    rank = _number(line[4:8], number, 5, gettext_noop("starting rank"), problems)
    if rank is None and len(problems) == found:
        problems.add(number, 5, gettext("The starting rank (columns 5-8) is missing."))
    entrant = Entrant(line=number, rank=rank or 0, name=" ".join(line[14:47].split()))
    if not entrant.name:
        problems.add(number, 15, gettext("The name (columns 15-47) is missing."))
    entrant.rating = _number(line[48:52], number, 49, gettext_noop("rating"), problems) or None
    try:
        entrant.fide_id = read_fide_id(line[57:68]) or None  # 0: none
    except ValidationError as error:
        problems += [FileProblem(number, 58, message) for message in error.messages]
    entrant.final_rank = _number(line[85:89], number, 86, gettext_noop("rank"), problems)
    entrant.federation = line[53:56].strip().upper()
    points = line[80:84].strip()
    try:
        entrant.points = Decimal(points) if points else None
    except InvalidOperation:
        problems.add(
            number,
            81,
            gettext("'%(points)s' is not a number of points (e.g. 4.5).") % {"points": points},
        )
    try:
        entrant.birth_year = _birth_year(line[69:79])
    except ValueError as error:
        problems.add(number, 70, gettext("The birth date %(error)s") % {"error": error})
    sex, title = line[9].strip().upper(), line[10:13].strip().upper()
    entrant.sex = SEXES.get(sex, "")
    entrant.title = TITLES.get(title, "")
    if sex and not entrant.sex:
        notes.append(
            gettext("Line %(line)s: sex '%(sex)s' is not m or w; it is ignored.")
            % {"line": number, "sex": line[9]}
        )
    if title and not entrant.title:
        notes.append(
            gettext("Line %(line)s: '%(title)s' is not a FIDE title; it is ignored.")
            % {"line": number, "title": title}
        )
    for start in range(FIRST_ROUND_COLUMN - 1, len(line), 10):
        entrant.cells.append(_cell(line, start, number, problems))
    return entrant if len(problems) == found else None


def _cell(line: str, start: int, number: int, problems: FileProblems) -> Cell:
    """Read one round's block; refuse what the format does not allow (TRF.md, TRF-2026's
    table: letter codes in either case, a blank colour as ``-``, a blank opponent as
    ``0000``)."""
    round_number = (start - FIRST_ROUND_COLUMN + 1) // 10 + 1
    block = line[start : start + 10].ljust(8)
    opponent = _number(
        block[:4], number, start + 1, gettext_noop("starting rank of an opponent"), problems
    )
    colour, code = block[5].strip().lower(), block[7].strip().upper()
    cell = Cell(round_number, opponent or None, colour if colour in "wb" else "", code, start + 1)
    if colour not in ("", "w", "b", "-"):
        said = gettext("'%(colour)s' is not a colour (w, b or -).") % {"colour": block[5]}
        problems.add(number, start + 6, _in_round(round_number, said))
    if code not in CODES:
        said = gettext(
            "'%(code)s' is not a result code (1, =, 0, +, -, W, D, L, H, F, U, Z or blank)."
        ) % {"code": block[7]}
        problems.add(number, start + 8, _in_round(round_number, said))
    elif cell.opponent is None:
        if code in NEEDS_OPPONENT:
            said = gettext(
                "'%(code)s' is the result of a game, but no opponent is given (columns "
                "%(first)s-%(last)s)."
            ) % {"code": block[7], "first": start + 1, "last": start + 4}
            problems.add(number, start + 1, _in_round(round_number, said))
    elif len(line) < start + 6:
        said = gettext("the player line is cut short after the opponent (no colour, no result).")
        problems.add(number, len(line), _in_round(round_number, said))
    elif code in ABSENCES:
        said = gettext("'%(code)s' is a bye, but an opponent (%(opponent)s) is given.") % {
            "code": code,
            "opponent": cell.opponent,
        }
        problems.add(number, start + 8, _in_round(round_number, said))
    elif not cell.colour and code not in FORFEITS and code not in SHORT:
        if code:
            said = gettext("a played game needs its colour (w or b).")
        else:
            said = gettext("a pairing without a result needs its colour (w or b).")
        problems.add(number, start + 6, _in_round(round_number, said))
    return cell


def _in_round(round_number: int, said: str) -> str:
    """A problem of one round's block: "Round 3: ..."."""
    return gettext("Round %(round)s: %(problem)s") % {"round": round_number, "problem": said}


# --- games -------------------------------------------------------------------------------------


def _games(tournament: Tournament, problems: FileProblems) -> None:
    """Pair the lines up: each game once, from the two lines that describe it."""
    by_rank: dict[int, Entrant] = {}
    for entrant in tournament.entrants:
        if entrant.rank in by_rank:
            first = by_rank[entrant.rank].line
            problems.add(
                entrant.line,
                5,
                gettext("The starting rank %(rank)s is also on line %(line)s.")
                % {"rank": entrant.rank, "line": first},
            )
        by_rank.setdefault(entrant.rank, entrant)
    if problems:
        return
    rounds = max((len(e.cells) for e in tournament.entrants), default=0)
    while rounds and all(_blank(e.cell(rounds)) for e in tournament.entrants):
        tournament.notes.append(
            gettext("Round %(round)s is empty on every line; it is ignored.") % {"round": rounds}
        )
        rounds -= 1
    tournament.rounds = rounds
    for round_number in range(1, rounds + 1):
        _round(tournament, by_rank, round_number, problems)
    colourless = sum(not p.colours_given for p in tournament.pairings)
    if colourless:
        tournament.notes.append(
            ngettext(
                "%(count)s unplayed game gives no colours; the player of the lower starting "
                "rank is recorded as White.",
                "%(count)s unplayed games give no colours; the player of the lower starting "
                "rank is recorded as White.",
                colourless,
            )
            % {"count": colourless}
        )
    pending = [p for p in tournament.pairings if p.kind == "pending"]
    for round_number in sorted({p.round for p in pending}):
        count = sum(p.round == round_number for p in pending)
        tournament.notes.append(
            _in_round(
                round_number,
                ngettext(
                    "%(count)s pairing has no result yet; not recorded.",
                    "%(count)s pairings have no result yet; not recorded.",
                    count,
                )
                % {"count": count},
            )
        )


def _blank(cell: Cell | None) -> bool:
    return cell is None or (cell.opponent is None and cell.code in ("", "Z"))


def _round(
    tournament: Tournament, by_rank: dict[int, Entrant], round_number: int, problems: FileProblems
) -> None:
    named: dict[int, Entrant] = {}  # opponent rank -> the line that names them
    for entrant in tournament.entrants:
        cell = entrant.cell(round_number) or Cell(round_number, None, "", "", 0)
        if cell.opponent is None:
            tournament.byes.append(Bye(round_number, entrant, cell.code))
            continue
        opponent = by_rank.get(cell.opponent)
        if opponent is None or opponent is entrant:
            reason = (
                gettext("a player cannot play themselves")
                if opponent
                else gettext("no player line has the starting rank %(rank)s")
                % {"rank": cell.opponent}
            )
            said = gettext("the opponent %(opponent)s does not exist (%(reason)s).") % {
                "opponent": cell.opponent,
                "reason": reason,
            }
            problems.add(entrant.line, cell.column, _in_round(round_number, said))
            continue
        if not cell.code and round_number < tournament.rounds:
            said = gettext(
                "the game against %(opponent)s has no result; only the last round may be saved "
                "before its results are in."
            ) % {"opponent": cell.opponent}
            problems.add(entrant.line, cell.column + 7, _in_round(round_number, said))
        if cell.opponent in named:
            other = named[cell.opponent]
            said = gettext("%(name)s is paired twice (also on line %(line)s).") % {
                "name": opponent.name,
                "line": other.line,
            }
            problems.add(entrant.line, cell.column, _in_round(round_number, said))
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
        told = f"'{theirs.text}'" if theirs is not None and theirs.opponent else gettext("no game")
        says = {entrant.line: f"'{mine.text}'", opponent.line: told}
        first, second = sorted(says)
        column = mine.column if second == entrant.line else theirs.column if theirs else 0
        problems.add(
            second,
            column,
            _in_round(
                round_number,
                gettext(
                    "lines %(first)s and %(second)s disagree about the game of %(white)s and "
                    "%(black)s: line %(first)s says %(first_says)s, line %(second)s says "
                    "%(second_says)s."
                )
                % {
                    "first": first,
                    "second": second,
                    "white": entrant.name,
                    "black": opponent.name,
                    "first_says": says[first],
                    "second_says": says[second],
                },
            ),
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
