"""FIDE's list files read as FIDE publishes them: the combined TXT (with and without FOA), a
per-list TXT, the XML, zipped or not; a title overflowing its column; bad lines by line and
column."""

import io
import zipfile
from datetime import date
from pathlib import Path

import pytest

from ladder.exceptions import ImportFailed
from ladder.files import fide_list

FILES = Path(__file__).parent / "fide_lists"
HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  "
    "WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)


def read(name: str, data: bytes | None = None, rating_list: str = "") -> tuple:
    raw = data if data is not None else (FILES / name).read_bytes()
    with fide_list.open_list(io.BytesIO(raw), name, rating_list) as listed:
        rows = [dict(zip(listed.columns, row.split("\t"), strict=True)) for row in listed.rows]
    return listed, rows


def line(fide_id="1503014", name="Carlsen, Magnus", other="", foa="", rating="2833"):
    return (
        f"{fide_id:<15}{name:<61}{'NOR':<4}{'M':<4}{'GM':<5}{'':<5}{other:<15}{foa:<4}"
        f"{rating:<6}{'0':<4}{'10':<3}{'2823':<6}{'12':<4}{'10':<3}{'2886':<6}{'0':<4}{'10':<3}"
        f"{'1990':<6}{'':<4}"
    )


def test_combined_list_with_foa():
    listed, rows = read("players_list_foa.txt")
    assert listed.shape == "combined"
    assert listed.lists == ("standard", "rapid", "blitz")
    carlsen = rows[0]
    assert carlsen["fide_id"] == "1503014"
    assert carlsen["name"] == "Carlsen, Magnus"
    assert (carlsen["federation"], carlsen["sex"], carlsen["title"]) == ("NOR", "M", "GM")
    assert (carlsen["standard_rating"], carlsen["standard_games"], carlsen["standard_k"]) == (
        "2833", "0", "10"
    )  # fmt: skip
    assert (carlsen["rapid_rating"], carlsen["rapid_games"]) == ("2823", "12")
    assert carlsen["birth_year"] == "1990"
    assert rows[1]["flag"] == "w"
    assert rows[1]["women_title"] == "WFM"


def test_a_title_longer_than_its_column_pushes_the_rest_of_its_line():
    _, rows = read("players_list_foa.txt")
    berg = next(r for r in rows if r["fide_id"] == "1520000")
    assert berg["other_titles"] == "SI,FI,LSI,SLI,NA"
    assert berg["foa_title"] == "AFM"
    assert (berg["rapid_rating"], berg["rapid_games"], berg["rapid_k"]) == ("1700", "4", "20")
    assert berg["birth_year"] == "1975"
    assert berg["flag"] == "i"


def test_an_older_list_without_foa_and_with_an_overflowing_title():
    listed, rows = read("players_list_legacy.txt")
    assert "foa_title" in listed.columns  # blank: the column is not in the file
    berg = next(r for r in rows if r["fide_id"] == "1520000")
    assert berg["other_titles"] == "SI,FI,LSI,SLI,NA"
    assert berg["foa_title"] == ""
    assert (berg["standard_rating"], berg["rapid_rating"]) == ("0", "1700")
    assert rows[0]["standard_rating"] == "2833"
    assert rows[0]["blitz_rating"] == "2886"


def test_a_per_list_file_names_its_month_and_its_list():
    listed, rows = read("standard_rating_list.txt")
    assert listed.shape == "per-list"
    assert listed.lists == ("standard",)
    assert listed.month == date(2026, 10, 1)  # the header's OCT26
    assert "rapid_rating" not in listed.columns
    assert rows[0]["standard_rating"] == "2833"
    assert rows[0]["standard_k"] == "10"
    berg = next(r for r in rows if r["fide_id"] == "1520000")
    assert berg["standard_rating"] == "0"  # blank: unrated, FIDE's 0


def test_a_per_list_file_whose_name_says_no_list_needs_one():
    data = (FILES / "standard_rating_list.txt").read_bytes()
    with pytest.raises(ImportFailed, match="which list"):
        read("list.txt", data)
    listed, rows = read("list.txt", data, rating_list="rapid")
    assert listed.lists == ("rapid",)
    assert rows[0]["rapid_rating"] == "2833"


def test_the_xml_zipped():
    listed, rows = read("players_list_xml.zip")
    assert listed.shape == "xml"
    assert len(rows) == 6
    assert rows[0]["name"] == "Carlsen, Magnus"
    assert rows[0]["blitz_rating"] == "2886"
    assert rows[3]["other_titles"] == "SI,FI,LSI,SLI,NA"
    assert rows[5]["birth_year"] == "0"


def test_a_zipped_txt_reads_as_the_txt():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("players_list_foa.txt", (FILES / "players_list_foa.txt").read_bytes())
    _, zipped = read("players_list.zip", buffer.getvalue())
    assert zipped == read("players_list_foa.txt")[1]


def test_bad_lines_are_named_by_line_and_column():
    text = "\r\n".join([HEADER, line(), line(fide_id="12x4"), line(rating="28a3")]) + "\r\n"
    with pytest.raises(ImportFailed) as refused:
        read("players_list_foa.txt", text.encode())
    messages = [str(p) for p in refused.value.errors]
    assert messages[0].startswith("Line 3, column 1: '12x4' is not a fide id")
    assert messages[1].startswith("Line 4, column 114: '28a3' is not a standard rating")


def test_a_bad_xml_player_is_named_by_its_line_and_element():
    text = "<playerslist>\n<player><fideid>1</fideid><name>A, B</name>\n<rating>x</rating>"
    text += "</player>\n</playerslist>\n"
    with pytest.raises(ImportFailed) as refused:
        read("players_list_xml.xml", text.encode())
    (problem,) = refused.value.errors
    assert (problem.line, problem.column) == (3, "<rating>")
    broken = "<playerslist>\n<player><fideid>1</fideid>\n</playerslist>\n"
    with pytest.raises(ImportFailed, match="Line 3.*The XML is broken"):
        read("players_list_xml.xml", broken.encode())


def test_a_file_that_is_no_list_is_refused():
    with pytest.raises(ImportFailed, match="not a FIDE rating list"):
        read("players.csv", b"name,fide_id\nA,1\n")


def test_windows_1252_names_are_read():
    text = HEADER + "\r\n" + line(name="Núñez, José") + "\r\n"
    _, rows = read("players_list_foa.txt", text.encode("cp1252"))
    assert rows[0]["name"] == "Núñez, José"


def test_a_month_given_is_checked():
    with pytest.raises(ValueError, match="not a month"):
        fide_list.month_of("2026-13")
    assert fide_list.month_of("2026-3") == date(2026, 3, 1)
