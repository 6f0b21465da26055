"""PGN files, read from their tag pairs only, through the same import as a TRF."""

from datetime import date
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from ladder.exceptions import TrfRefused
from ladder.files import pgn, tournaments
from ladder.records import Game, Player, RatingList
from tests.factories import PlayerFactory

PGN = r"""[Event "Club Rapid"]
[Site "Riverton"]
[Date "2026.03.07"]
[Round "1"]
[White "Alpha, Anna"]
[Black "Beta, Ben"]
[Result "1-0"]
[WhiteFideId "1001"]
[WhiteElo "1850"]
[TimeControl "900+10"]

1. e4 {a [bracketed] comment
[Not "a tag"] inside a comment} e5 2. Nf3 1-0

[Event "Club Rapid"] [Date "2026.03.07"] [Round "2.1"]
[White "Beta, Ben"] [Black "Gamma, Cem \"The Wall\""] [Result "1/2-1/2"]

1. d4 d5 1/2-1/2

[Event "Club Rapid"]
[Date "2026.03.08"]
[Round "3"]
[White "Gamma, Cem \"The Wall\""]
[Black "Alpha, Anna"]
[Result "*"]

*
"""


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def write(tmp_path, text):
    path = tmp_path / "games.pgn"
    path.write_text(text, encoding="utf-8")
    return str(path)


def refusal(text):
    with pytest.raises(TrfRefused) as caught:
        pgn.parse(text)
    return [str(p) for p in caught.value.problems]


def test_the_tags_are_read_and_the_moves_skipped():
    t = pgn.parse(PGN)
    assert (t.version, t.name, t.start, t.end, t.rounds) == (
        "PGN", "Club Rapid", date(2026, 3, 7), date(2026, 3, 8), 3)  # fmt: skip
    assert [(p.round, p.white.name, p.black.name, p.kind, p.result) for p in t.pairings] == [
        (1, "Alpha, Anna", "Beta, Ben", "rated", "1-0"),
        (2, "Beta, Ben", 'Gamma, Cem "The Wall"', "rated", "1/2-1/2"),
        (3, 'Gamma, Cem "The Wall"', "Alpha, Anna", "pending", ""),
    ]
    anna = t.entrants[0]
    assert (anna.fide_id, anna.rating) == (1001, 1850)
    assert t.encoded_time_control == "900+10"


def test_a_line_that_is_not_a_tag_pair():
    assert refusal('[Event "x"]\n[White Anna]\n') == [
        'Line 2, column 1: This is not a tag pair; write [Name "value"].'
    ]


def test_missing_players_a_bad_result_and_a_bad_date():
    problems = refusal('[Event "x"]\n[Date "2026.02.30"]\n[White "A"]\n[Result "2-0"]\n\n*\n')
    assert problems == [
        "Line 1: The game has no Black player (tag Black).",
        "Line 2: '2026.02.30' is not a date (write YYYY.MM.DD).",
        "Line 4: '2-0' is not a result (1-0, 0-1, 1/2-1/2 or *).",
    ]


@pytest.mark.django_db
def test_a_player_twice_in_a_round():
    # The write path's rule (validation.check_games), with the lines of the file.
    text = PGN.replace('[Round "2.1"]', '[Round "1"]')
    plan = tournaments.read(text.encode())
    with pytest.raises(TrfRefused) as caught:
        tournaments.import_tournament(plan)
    assert [str(p) for p in caught.value.problems] == [
        "Line 15: Round 1: Ben Beta is paired twice (also at line 1)."
    ]
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_import_pgn_matches_creates_and_rates(tmp_path):
    PlayerFactory(name="Anna Alpha", fide_id=1001, rapid_entry_rating=1850)
    output = run("import_pgn", write(tmp_path, PGN))
    assert "PGN file: 'Club Rapid', 3 rounds, 2026-03-07" in output
    assert "rapid list (15+10)" in output
    assert "matched by FIDE id: Alpha, Anna -> Anna Alpha (1001)" in output
    assert 'not recorded: round 3: Gamma, Cem "The Wall" - Alpha, Anna (no result yet)' in output
    assert "Imported 2 games of 'Club Rapid' and 2 new players." in output
    assert set(Game.objects.values_list("rating_list", flat=True)) == {RatingList.RAPID}
    assert Player.objects.filter(name='Cem "The Wall" Gamma').exists()
    with pytest.raises(CommandError, match="This event was already imported on"):
        run("import_pgn", write(tmp_path, PGN))
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_several_events_need_one_name(tmp_path):
    text = PGN.replace('[Event "Club Rapid"]\n[Date "2026.03.08"]', '[Event "Other"]\n[Date '
                       '"2026.03.08"]')  # fmt: skip
    with pytest.raises(CommandError, match="holds games of several events"):
        run("import_pgn", write(tmp_path, text))
    assert "Imported 2 games of 'Both'" in run("import_pgn", write(tmp_path, text), "--event",
                                               "Both")  # fmt: skip


@pytest.mark.django_db
def test_the_admin_page_takes_a_pgn(admin_client):
    upload = SimpleUploadedFile("games.pgn", PGN.encode("utf-8"))
    response = admin_client.post("/admin/ladder/game/import-file/",
                                 {"file": upload, "_preview": "1"})  # fmt: skip
    assert "PGN file: &#x27;Club Rapid&#x27;" in response.content.decode()
