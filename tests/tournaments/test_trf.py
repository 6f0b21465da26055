"""The TRF reader alone (no database): what it reads, what it tolerates, what it refuses."""

from datetime import date

import pytest

from ladder.exceptions import TrfRefused
from ladder.files import exports, trf
from ladder.files.tournament_file import decode
from tests.tournaments.files import ROUND_ROBIN, SWISS, put, replace_line


def refusal(text: str) -> list[str]:
    with pytest.raises(TrfRefused) as caught:
        trf.parse(text)
    return [str(p) for p in caught.value.problems]


def test_the_files_are_laid_out_as_the_specification_says():
    line = ROUND_ROBIN.splitlines()[10]
    assert line[:3] == "001"
    assert line[4:8] == "   1"
    assert line[9] == "m"
    assert line[10:13] == " GM"
    assert line[14:27] == "Mirzoev, Azer"
    assert line[48:52] == "2527"
    assert line[53:56] == "AZE"
    assert line[57:68] == "   13400304"
    assert line[69:79] == "1978/05/12"
    assert line[80:84] == " 2.5"
    assert line[85:89] == "   1"
    assert line[91:95] == "   4"
    assert line[96] == "w"
    assert line[98] == "1"


def test_a_round_robin():
    t = trf.parse(ROUND_ROBIN)
    assert (t.version, t.name, t.start, t.end, t.rounds) == (
        "TRF-16", "Spring Round Robin", date(2026, 3, 7), date(2026, 3, 21), 3)  # fmt: skip
    assert t.round_dates == {1: date(2026, 3, 7), 2: date(2026, 3, 14), 3: date(2026, 3, 21)}
    first = t.entrants[0]
    assert (first.rank, first.sex, first.title, first.rating, first.fide_id, first.birth_year) \
        == (1, "M", "GM", 2527, 13400304, 1978)  # fmt: skip
    assert first.display_name == "Azer Mirzoev"
    assert t.entrants[3].rating is None
    assert t.entrants[3].sex == "F"
    games = sorted((p.round, p.white.rank, p.black.rank, p.result) for p in t.pairings)
    assert games == [(1, 1, 4, "1-0"), (1, 2, 3, "1/2-1/2"), (2, 3, 1, "0-1"),
                     (2, 4, 2, "1/2-1/2"), (3, 1, 2, "1/2-1/2"), (3, 4, 3, "0-1")]  # fmt: skip
    assert all(p.kind == "rated" for p in t.pairings)


def test_a_swiss_with_every_kind_of_round():
    t = trf.parse(SWISS)
    assert t.version == "TRF-2026"
    assert t.encoded_time_control == "5400+30"
    kinds = {(p.round, p.white.rank, p.black.rank): (p.kind, p.result) for p in t.pairings}
    assert kinds == {
        (1, 1, 4): ("rated", "1-0"), (1, 2, 5): ("forfeit", "+/-"), (1, 3, 6): ("rated", "1/2-1/2"),
        (2, 1, 2): ("short", "+/-"), (2, 4, 5): ("forfeit", "0-0"),
        (3, 1, 3): ("rated", "0-1"), (3, 4, 6): ("short", ""),
        (4, 1, 5): ("rated", "1-0"), (4, 2, 3): ("pending", ""),
    }  # fmt: skip
    byes = {(b.round, b.entrant.rank): b.label for b in t.byes}
    assert byes == {(2, 3): "half-point bye", (2, 6): "full-point bye", (3, 2): "zero-point bye",
                    (3, 5): "not paired", (4, 4): "pairing-allocated bye",
                    (4, 6): "not paired"}  # fmt: skip
    assert "Round 4: 1 pairing has no result yet; not recorded." in t.notes


@pytest.mark.parametrize(
    ("written", "read"),
    [("2026/03/07", date(2026, 3, 7)), ("2026-03-07", date(2026, 3, 7)),
     ("2026.03.07", date(2026, 3, 7)), ("07/03/2026", date(2026, 3, 7)),
     ("07.03.2026", date(2026, 3, 7)), ("07. 03. 2026", date(2026, 3, 7)),
     ("26/03/07", date(2026, 3, 7))],
)  # fmt: skip
def test_date_styles_of_real_files(written, read):
    assert trf.parse(replace_line(ROUND_ROBIN, "042", f"042 {written}")).start == read


def test_year_only_birth_dates_and_lowercase_titles():
    text = put(put(ROUND_ROBIN, "001    1", 70, "1978      "), "001    1", 11, "  g")
    text = put(text, "001    2", 11, " wm")
    t = trf.parse(text)
    assert t.entrants[0].birth_year == 1978
    assert t.entrants[0].title == "GM"
    assert t.entrants[1].title == "WIM"


def test_crlf_windows_1252_and_trailing_spaces():
    text = ROUND_ROBIN.replace("Doe, Jane", "Žák, Jana").replace("\n", "   \r\n")
    decoded, note = decode(text.encode("cp1252"))
    t = trf.parse(decoded, encoding_note=note)
    assert t.entrants[3].name == "Žák, Jana"
    assert "read as Windows-1252" in t.notes[0]
    assert len(t.pairings) == 6


def test_a_trailing_empty_round_is_ignored():
    lines = [line + "  0000 -  " if line.startswith("001") else line
             for line in ROUND_ROBIN.splitlines()]  # fmt: skip
    t = trf.parse("\n".join(lines))
    assert t.rounds == 3
    assert len(t.pairings) == 6
    assert "Round 4 is empty on every line; it is ignored." in t.notes


def test_a_player_line_cut_short():
    text = replace_line(ROUND_ROBIN, "001    4", "001    4 w    Doe, Jane")
    assert refusal(text) == [
        "Line 14, column 23: The player line is cut short: it ends in column 23, before the "
        "points (columns 81-84)."
    ]


def test_a_rating_that_is_not_a_number():
    assert refusal(put(ROUND_ROBIN, "001    2", 49, "24O8")) == [
        "Line 12, column 49: '24O8' is not a rating (a whole number)."
    ]


def test_an_opponent_that_does_not_exist():
    assert (
        "Line 14, column 92: Round 1: the opponent 9 does not exist (no player line has the "
        "starting rank 9)."
    ) in refusal(put(ROUND_ROBIN, "001    4", 92, "   9"))


def test_two_lines_that_disagree_about_their_game():
    problems = refusal(put(ROUND_ROBIN, "001    4", 99, "1"))  # 1 against 1
    assert problems == [
        "Line 14, column 92: Round 1: lines 11 and 14 disagree about the game of Mirzoev, Azer "
        "and Doe, Jane: line 11 says '4 w 1', line 14 says '1 b 1'."
    ]


def test_a_player_paired_twice_in_a_round():
    # Line 14 (Doe) says she met 2 in round 1, where 2 met 3 (and 1 names Doe).
    problems = refusal(put(ROUND_ROBIN, "001    4", 92, "   2 b 0"))
    assert any("Round 1: Argandona Riveiro, Inigo is paired twice (also on line" in p
               for p in problems)  # fmt: skip


@pytest.mark.parametrize("bad", ["2026/13/45", "next week"])
def test_a_date_that_is_not_a_date(bad):
    assert refusal(replace_line(ROUND_ROBIN, "052", f"052 {bad}")) == [
        f"Line 5, column 5: '{bad}' is not a date (write YYYY/MM/DD)."
    ]


def test_a_round_date_that_is_not_a_date():
    assert refusal(put(ROUND_ROBIN, "132", 102, "26/02/30")) == [
        "Line 15, column 102: '26/02/30' is not a date (write YYYY/MM/DD)."
    ]


def test_every_problem_is_reported_at_once():
    text = put(put(ROUND_ROBIN, "001    2", 49, "abcd"), "001    3", 58, "12x4567    ")
    assert len(refusal(text)) == 2


def test_a_binary_file_is_refused():
    assert refusal("012 x\x00y\n")[0].startswith("Line 1: The line holds a NUL character")


def test_write_reads_back():
    t = trf.parse(ROUND_ROBIN)
    again = trf.parse(exports.write_trf(t))
    assert [(p.round, p.white.rank, p.black.rank, p.result) for p in again.pairings] == [
        (p.round, p.white.rank, p.black.rank, p.result) for p in t.pairings
    ]


def test_a_line_cut_short_after_an_opponent():
    text = replace_line(ROUND_ROBIN, "001    4", ROUND_ROBIN.splitlines()[13][:95])
    assert refusal(text) == [
        "Line 14, column 95: Round 1: the player line is cut short after the opponent (no "
        "colour, no result)."
    ]


def test_a_bye_with_an_opponent():
    problems = refusal(put(ROUND_ROBIN, "001    4", 99, "H"))
    assert "Line 14, column 99: Round 1: 'H' is a bye, but an opponent (1) is given." in problems


@pytest.mark.parametrize(
    ("code", "what", "first"),
    [("012", "tournament name", 1), ("042", "start date", 4), ("122", "time control", 10)],
)
def test_a_header_record_given_twice(code, what, first):
    text = ROUND_ROBIN.replace("001    1", f"{code} Something else\n001    1", 1)
    assert refusal(text) == [
        f"Line 11, column 1: The {what} (record {code}) is given twice: line {first} gives "
        "it already. Keep one line."
    ]


def test_deputy_arbiters_may_be_several():
    text = ROUND_ROBIN.replace("122", "112 Deputy, One\n112 Deputy, Two\n122", 1)
    assert trf.parse(text).name == "Spring Round Robin"
