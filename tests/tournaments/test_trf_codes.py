"""Every round block the TRF format allows, and what Ladder records for it (TRF.md, TRF26).

A round block is an opponent (a starting rank, ``0000`` or blank), a colour (``w``, ``b``,
``-`` or blank, in either case) and a result code (``1 = 0 + - W D L H F U Z`` or blank, letters
in either case). Each test file below has two players who play a rated game in round 1; round 2
holds the block under test on Alpha's line (rank 1) and, when it names Beta, Beta's answer.
"""

from __future__ import annotations

import itertools

import pytest

from ladder.exceptions import TrfRefused
from ladder.files import tournaments, trf
from ladder.files.tournament_file import BYES
from ladder.records import Game

ROUND_2 = 102  # the column where round 2's block starts (opponent 102-105, colour 107, result 109)
OPPONENTS = {"Beta": "   2", "0000": "0000", "blank": "    "}
COLOURS = ("w", "b", "W", "B", "-", " ")
CODES = ("1", "=", "0", "+", "-", "W", "D", "L", "w", "d", "l",
         "H", "F", "U", "Z", "h", "f", "u", "z", " ")  # fmt: skip
ANSWER_CODE = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D"}
ANSWER_COLOUR = {"w": "b", "b": "w", "-": "-", " ": " "}
NOT_RECORDED = "not recorded"

# What Ladder records when Alpha (rank 1, line 4) names Beta (rank 2, line 5) in round 2 and
# Beta's line answers it (1 against 0, = against =, + against -, W against L, D against D).
AS_WHITE = {"1": "1-0", "=": "1/2-1/2", "0": "0-1", "+": "+/-", "-": "-/+",
            "W": "+/-", "L": "-/+", "D": NOT_RECORDED}  # fmt: skip
AS_BLACK = {"1": "0-1", "=": "1/2-1/2", "0": "1-0", "+": "-/+", "-": "+/-",
            "W": "-/+", "L": "+/-", "D": NOT_RECORDED}  # fmt: skip
# Without colours (only for games not rated) the lower starting rank, Alpha, is White.
NO_COLOUR = {"+": "+/-", "-": "-/+", "W": "+/-", "L": "-/+", "D": NOT_RECORDED}


def block(opponent: str, colour: str, code: str) -> str:
    return f"{opponent} {colour} {code}  "


def player(rank: int, name: str, rounds: list[str]) -> str:
    return f"001 {rank:>4} m    {name:<33} 1800 ENG {1000 + rank:>11} {'':10}  1.0 {rank:>4}  " + (
        "".join(rounds)
    )


def trf_file(alpha: str, beta: str) -> str:
    """A two-round file: round 1 Alpha (White) - Beta 1-0, round 2 the blocks given."""
    return "\n".join([
        "012 Codes Open",
        "042 2026/03/07",
        "052 2026/03/14",
        player(1, "Alpha, Anna", [block("   2", "w", "1"), alpha]),
        player(2, "Beta, Ben", [block("   1", "b", "0"), beta]),
        "132" + " " * 88 + "26/03/07  26/03/14",
    ])  # fmt: skip


def answer(opponent: str, colour: str, code: str) -> str:
    """Beta's block for Alpha's: the agreeing one when Alpha names Beta, else a bye."""
    if opponent != OPPONENTS["Beta"]:
        return block("0000", "-", "H")
    upper = code.upper()
    mirror = ANSWER_CODE.get(upper, upper)
    return block("   1", ANSWER_COLOUR.get(colour.lower(), colour), mirror.lower()
                 if code.islower() else mirror)  # fmt: skip


def expected(opponent: str, colour: str, code: str) -> tuple[str, str]:
    """Return ("result", what) or ("bye", label), or ("refused", the problem on Alpha's line)."""
    upper, colour = code.strip().upper(), colour.strip().lower()
    where = "Line 4, column {}: Round 2: "
    if opponent != "Beta":
        if upper in ("1", "=", "0", "W", "D", "L"):
            message = (
                f"'{code}' is the result of a game, but no opponent is given (columns 102-105)."
            )
            return "refused", where.format(ROUND_2) + message
        return "bye", BYES[upper]
    if upper in ("H", "F", "U", "Z"):
        return "refused", where.format(
            ROUND_2 + 7
        ) + f"'{upper}' is a bye, but an opponent (2) is given."
    if colour in ("w", "b"):
        if not upper:
            return "pending", NOT_RECORDED
        return "result", (AS_WHITE if colour == "w" else AS_BLACK)[upper]
    if upper in NO_COLOUR:
        return "result", NO_COLOUR[upper]
    if not upper and colour == "":  # "   2" and nothing after it: the line ends there
        return "refused", where.format(ROUND_2 + 3) + (
            "the player line is cut short after the opponent (no colour, no result)."
        )
    what = "a played game" if upper else "a pairing without a result"
    return "refused", where.format(ROUND_2 + 5) + f"{what} needs its colour (w or b)."


COMBINATIONS = list(itertools.product(OPPONENTS, COLOURS, CODES))


def outcome(text: str) -> tuple[str, str]:
    """Read the file and say what it gives for round 2 (or the first problem on line 4)."""
    try:
        t = trf.parse(text)
    except TrfRefused as refused:
        mine = [str(p) for p in refused.problems if p.line == 4]
        return "refused", mine[0] if mine else str(refused.problems[0])
    (pairing, *more) = [p for p in t.pairings if p.round == 2] or [None]
    assert not more
    if pairing is None:
        (bye,) = [b for b in t.byes if b.round == 2 and b.entrant.rank == 1]
        return "bye", bye.label
    if pairing.kind == "pending":
        return "pending", NOT_RECORDED
    return "result", pairing.result or NOT_RECORDED


def test_every_combination_is_in_the_table():
    assert len(COMBINATIONS) == 3 * 6 * 20
    kinds = {expected(*combination)[0] for combination in COMBINATIONS}
    assert kinds == {"result", "bye", "refused", "pending"}


@pytest.mark.parametrize(("opponent", "colour", "code"), COMBINATIONS)
def test_what_each_block_gives(opponent, colour, code):
    text = trf_file(
        block(OPPONENTS[opponent], colour, code), answer(OPPONENTS[opponent], colour, code)
    )
    assert outcome(text) == expected(opponent, colour, code)


RECORDED = [c for c in COMBINATIONS if expected(*c)[0] == "result"]


@pytest.mark.django_db
@pytest.mark.parametrize(("opponent", "colour", "code"), RECORDED)
def test_what_the_import_records(opponent, colour, code):
    text = trf_file(
        block(OPPONENTS[opponent], colour, code), answer(OPPONENTS[opponent], colour, code)
    )
    plan = tournaments.import_tournament(tournaments.read(text.encode()))
    games = {(g.round, g.white.name, g.black.name, g.result) for g in Game.objects.with_players()}
    result = expected(opponent, colour, code)[1]
    # White is the colour column's, and Alpha (the lower starting rank) when it is not given.
    alpha_white = colour.lower() != "b"
    in_file = ("Alpha, Anna", "Beta, Ben") if alpha_white else ("Beta, Ben", "Alpha, Anna")
    in_ladder = ("Anna Alpha", "Ben Beta") if alpha_white else ("Ben Beta", "Anna Alpha")
    second = {("2", *in_ladder, result)}
    if result == NOT_RECORDED:
        second = set()
        assert f"round 2: {' - '.join(in_file)} (a draw of less than one move)" in (
            plan.not_recorded()
        )
    assert games == {("1", "Anna Alpha", "Ben Beta", "1-0"), *second}


# --- the two lines of a pair ----------------------------------------------------------------

PAIRED = ("1", "=", "0", "+", "-", "W", "D", "L", " ")
AGREE = {("1", "0"), ("0", "1"), ("=", "="), ("+", "-"), ("-", "+"), ("-", "-"),
         ("W", "L"), ("L", "W"), ("D", "D"), (" ", " ")}  # fmt: skip


@pytest.mark.parametrize(("mine", "theirs"), list(itertools.product(PAIRED, PAIRED)))
def test_the_two_lines_must_agree_on_the_result(mine, theirs):
    text = trf_file(block("   2", "w", mine), block("   1", "b", theirs))
    if (mine, theirs) in AGREE:
        trf.parse(text)
        return
    with pytest.raises(TrfRefused) as refused:
        trf.parse(text)
    assert [str(p) for p in refused.value.problems] == [
        "Line 5, column 102: Round 2: lines 4 and 5 disagree about the game of Alpha, Anna and "
        f"Beta, Ben: line 4 says '{f'2 w {mine}'.strip()}', line 5 says "
        f"'{f'1 b {theirs}'.strip()}'."
    ]


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [(("w", "+"), ("w", "-")), (("b", "+"), ("b", "-")), (("w", "+"), ("-", "-")),
     (("-", "W"), ("b", "L")), ((" ", "+"), ("w", "-"))],
)  # fmt: skip
def test_the_two_lines_must_agree_on_the_colours(mine, theirs):
    text = trf_file(block("   2", *mine), block("   1", *theirs))
    with pytest.raises(TrfRefused) as refused:
        trf.parse(text)
    (problem,) = refused.value.problems
    assert (problem.line, problem.column) == (5, ROUND_2)
    assert "Round 2: lines 4 and 5 disagree about the game of Alpha, Anna and Beta, Ben" in str(
        problem
    )


def test_a_pairing_without_a_result_before_the_last_round_is_refused():
    text = (
        trf_file(block("   2", "b", "1"), block("   1", "w", "0"))
        .replace("   2 w 1  ", "   2 w    ")
        .replace("   1 b 0  ", "   1 b    ")
    )
    with pytest.raises(TrfRefused) as refused:
        trf.parse(text)
    assert [str(p) for p in refused.value.problems] == [
        f"Line {line}, column 99: Round 1: the game against {other} has no result; only the "
        "last round may be saved before its results are in."
        for line, other in ((4, 2), (5, 1))
    ]


def test_a_forfeit_written_without_colours_is_noted():
    t = trf.parse(trf_file(block("   2", " ", "-"), block("   1", " ", "+")))
    assert "1 unplayed game gives no colours; the player of the lower starting rank is recorded " \
        "as White." in t.notes  # fmt: skip
    (pairing,) = [p for p in t.pairings if p.round == 2]
    assert (pairing.white.rank, pairing.result, pairing.colours_given) == (1, "-/+", False)


@pytest.mark.parametrize(("colour", "code", "column", "message"), [
    ("x", "1", 107, "'x' is not a colour (w, b or -)."),
    ("w", "X", 109, "'X' is not a result code (1, =, 0, +, -, W, D, L, H, F, U, Z or blank)."),
    ("w", "½", 109, "'½' is not a result code (1, =, 0, +, -, W, D, L, H, F, U, Z or blank)."),
])  # fmt: skip
def test_what_is_no_colour_or_no_result_code(colour, code, column, message):
    with pytest.raises(TrfRefused) as refused:
        trf.parse(trf_file(block("   2", colour, code), block("   1", "b", "0")))
    assert f"Line 4, column {column}: Round 2: {message}" in [
        str(p) for p in refused.value.problems
    ]
