"""Real tournament files of each era, imported through the ordinary import (``tournaments.read``
then ``tournaments.import_tournament``, the path every door takes).

The files in ``eras/`` are kept byte for byte (``.gitattributes``: no line-end conversion):
- ``swiss_manager_trf16.trf``: TRF-16 as Swiss-Manager writes it (2019): UTF-8, CRLF, the 122
  time control in periods, 132 round dates, ``XXR``/``XXC`` extensions, a forfeit with colours,
  half-point, zero-point and pairing-allocated byes;
- ``older_program_2010.trf``: before 2016, as older programs wrote it: no 132 record (every
  round on the end date), ``YY/MM/DD`` dates, Latin-1, CRLF, one-letter titles, year-only
  birth dates, a forfeit written without colours, a forfeit win without an opponent (the old
  way to write the pairing-allocated bye), a game of less than one move;
- ``trf2026.trf``: TRF-2026 with its new records (``###`` comments, 142-222, 240, 260, 299, a
  national rating record), lowercase codes, an unplayed game without colours, and a last round
  saved before its results (paired, not played).
"""

from datetime import date
from pathlib import Path

import pytest

from ladder.files import tournaments
from ladder.records import Game, Player, RatingList

pytestmark = pytest.mark.django_db

ERAS = Path(__file__).parent / "eras"


def import_era(name):
    data = (ERAS / name).read_bytes()
    return tournaments.import_tournament(tournaments.read(data))


def games():
    return {
        (g.date, g.round, g.white.name, g.black.name, g.result) for g in Game.objects.with_players()
    }


def test_the_files_are_as_their_era_wrote_them():
    swiss_manager = (ERAS / "swiss_manager_trf16.trf").read_bytes()
    older = (ERAS / "older_program_2010.trf").read_bytes()
    trf2026 = (ERAS / "trf2026.trf").read_bytes()
    assert swiss_manager.count(b"\r\n") == swiss_manager.count(b"\n") > 20
    assert older.count(b"\r\n") == older.count(b"\n")
    assert b"\n132 " in swiss_manager
    assert b"\n132 " not in older
    assert "Müller".encode("latin-1") in older
    with pytest.raises(UnicodeDecodeError):
        older.decode("utf-8")
    assert b"\r" not in trf2026
    assert trf2026.startswith(b"### ")


def test_a_trf16_file_as_swiss_manager_writes_it():
    plan = import_era("swiss_manager_trf16.trf")
    assert (plan.tournament.version, plan.event, plan.time_control, plan.rating_list) == (
        "TRF-16", "Riverton Open 2019", "120+30", RatingList.STANDARD)  # fmt: skip
    assert len(plan.games) == 15
    assert (date(2019, 8, 11), "4", "Eva Novak", "Tobias Schulz", "+/-") in games()
    assert (date(2019, 8, 10), "1", "Piotr Kowalski", "Eva Novak", "1-0") in games()
    assert {g.date for g in Game.objects.all()} == {
        date(2019, 8, 10), date(2019, 8, 11), date(2019, 8, 12)}  # fmt: skip
    assert Player.objects.get(name="Karin Lindqvist").title == "WGM"
    assert Player.objects.get(name="Alan Brown").entry_rating is None
    assert "round 4: Brown, Alan, pairing-allocated bye" in plan.not_recorded()
    assert "round 1: Brown, Alan, half-point bye" in plan.not_recorded()


def test_an_older_file_latin_1_crlf_no_round_dates():
    plan = import_era("older_program_2010.trf")
    assert plan.tournament.notes[0] == "The file is not UTF-8; it was read as Windows-1252."
    assert (plan.tournament.start, plan.tournament.end) == (date(2010, 3, 6), date(2010, 3, 7))
    assert games() == {
        (date(2010, 3, 7), "1", "Jürgen Müller", "François Dupré", "1-0"),
        (date(2010, 3, 7), "1", "José Núñez", "Åse Sørensen", "1/2-1/2"),
        (date(2010, 3, 7), "2", "Åse Sørensen", "Jürgen Müller", "0-1"),
        # Written "5   +" and "4   -": no colours, so the lower starting rank is White.
        (date(2010, 3, 7), "2", "François Dupré", "Séamus Ó Súilleabháin", "+/-"),
        (date(2010, 3, 7), "3", "Jürgen Müller", "José Núñez", "1/2-1/2"),
        # L against W: less than one move, recorded unplayed with the same winner.
        (date(2010, 3, 7), "3", "Séamus Ó Súilleabháin", "Åse Sørensen", "-/+"),
        (date(2010, 3, 7), "4", "Séamus Ó Súilleabháin", "Jürgen Müller", "0-1"),
        (date(2010, 3, 7), "4", "José Núñez", "François Dupré", "1-0"),
    }
    muller = Player.objects.get(name="Jürgen Müller")
    assert (muller.title, muller.birth_year, muller.fide_id) == ("GM", 1971, 4600001)
    assert Player.objects.get(name="Åse Sørensen").title == "WFM"
    assert Player.objects.get(name="François Dupré").fide_id is None
    assert "round 1: Ó Súilleabháin, Séamus, forfeit win without an opponent" in (
        plan.not_recorded()
    )
    assert (
        "1 unplayed game gives no colours; the player of the lower starting rank is recorded "
        "as White."
    ) in plan.tournament.notes


def test_a_trf2026_file_with_its_new_records():
    plan = import_era("trf2026.trf")
    assert (plan.tournament.version, plan.time_control, plan.rating_list) == (
        "TRF-2026", "90+30", RatingList.STANDARD)  # fmt: skip
    assert games() == {
        (date(2025, 10, 25), "1", "Giulia Rossi", "Omar Khan", "1-0"),
        (date(2025, 10, 25), "1", "Beth Jones", "Ivan Petrov", "0-1"),
        (date(2025, 10, 25), "1", "Adam Smith", "Dai Evans", "1/2-1/2"),
        (date(2025, 10, 26), "2", "Ivan Petrov", "Giulia Rossi", "1/2-1/2"),
        (date(2025, 10, 26), "2", "Beth Jones", "Dai Evans", "+/-"),  # no colours: rank 5 White
        (date(2025, 11, 1), "3", "Giulia Rossi", "Adam Smith", "1-0"),
        (date(2025, 11, 1), "3", "Ivan Petrov", "Dai Evans", "1-0"),
        (date(2025, 11, 1), "3", "Beth Jones", "Omar Khan", "+/-"),  # w against l
    }
    assert plan.not_recorded() == [
        "round 2: Khan, Omar - Smith, Adam (a draw of less than one move)",
        "round 4: Smith, Adam - Petrov, Ivan (no result yet)",
        "round 4: Khan, Omar - Evans, Dai (no result yet)",
        "round 4: Rossi, Giulia, half-point bye",
        "round 4: Jones, Beth, full-point bye",
    ]
    assert "Round 4: 2 pairings have no result yet; not recorded." in plan.tournament.notes
    # The national rating record (ENG) is not a player line: six players, Adam Smith's FIDE
    # rating and id from his 001 line.
    assert Player.objects.count() == 6
    smith = Player.objects.get(name="Adam Smith")
    assert (smith.fide_id, smith.entry_rating) == (401234, 1720)
