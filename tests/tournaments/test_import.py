"""Importing a TRF through the write path: matching, preview, refusals, the duplicate rule."""

from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.files import tournaments, trf
from ladder.files.tournaments import prepare
from ladder.records import ENTRY_RATING_MESSAGE, Game, Player, RatingList, RatingPeriod, Tournament
from ladder.writes import actions
from ratings.models import RatingChange
from tests.factories import PlayerFactory
from tests.tournaments.files import ROUND_ROBIN, SWISS, put, replace_line

pytestmark = pytest.mark.django_db


def write(tmp_path, text, name="event.trf", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return str(path)


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def refused(*args):
    with pytest.raises(CommandError) as caught:
        run(*args)
    return str(caught.value)


def games():
    return sorted(
        (g.date, g.white.name, g.black.name, g.result, g.round, g.event, g.rating_list)
        for g in Game.objects.with_players()
    )


def test_a_round_robin_into_an_empty_ladder(tmp_path):
    output = run("import_trf", write(tmp_path, ROUND_ROBIN))
    assert "TRF-16 file: 'Spring Round Robin', 3 rounds, 2026-03-07 to 2026-03-21" in output
    assert "Players: 0 matched, 4 new." in output
    assert "Imported 6 games of 'Spring Round Robin' and 4 new players." in output
    assert "2026-03 recomputed" in output
    azer = Player.objects.get(fide_id=13400304)
    assert (azer.name, azer.title, azer.sex, azer.federation, azer.birth_year) == (
        "Azer Mirzoev", "GM", "M", "AZE", 1978)  # fmt: skip
    assert azer.entry_rating == 2527
    jane = Player.objects.get(name="Jane Doe")
    assert jane.entry_rating is None
    assert jane.fide_id is None
    assert jane.sex == "F"
    assert games()[0] == (date(2026, 3, 7), "Azer Mirzoev", "Jane Doe", "1-0", "1",
                          "Spring Round Robin", RatingList.STANDARD)  # fmt: skip
    assert RatingChange.objects.filter(player=azer).exists()


def test_a_swiss_matches_players_records_forfeits_and_reports_the_rest(tmp_path):
    anna = PlayerFactory(name="Anna Alpha", fide_id=1001)
    cem = PlayerFactory(name="Cem Gamma")  # no FIDE id in the file: matched by name
    output = run("import_trf", write(tmp_path, SWISS))
    assert "TRF-2026 file: 'Club Swiss', 4 rounds" in output
    assert "standard list (90+30)" in output
    assert "matched by FIDE id: Alpha, Anna -> Anna Alpha (1001)" in output
    assert "matched by name: Gamma, Cem -> Cem Gamma" in output
    assert "Players: 2 matched, 4 new." in output
    assert (
        "Games: 4 rated, 2 forfeits, 1 game of less than one move (recorded, unrated)."
    ) in output
    for text in ("round 3: Delta, Dora - New, Nora (a draw of less than one move)",
                 "round 4: Beta, Ben - Gamma, Cem (no result yet)",
                 "round 2: Gamma, Cem, half-point bye", "round 2: New, Nora, full-point bye",
                 "round 3: Beta, Ben, zero-point bye",
                 "round 4: Delta, Dora, pairing-allocated bye"):  # fmt: skip
        assert f"not recorded: {text}" in output
    assert "Imported 7 games" in output
    results = {(g.round, g.white.name, g.black.name): g.result for g in Game.objects.all()}
    assert results == {
        ("1", "Anna Alpha", "Dora Delta"): "1-0", ("1", "Ben Beta", "Emil Epsilon"): "+/-",
        ("1", "Cem Gamma", "Nora New"): "1/2-1/2", ("2", "Dora Delta", "Emil Epsilon"): "0-0",
        ("2", "Anna Alpha", "Ben Beta"): "+/-",  # W against L: less than one move, unrated
        ("3", "Anna Alpha", "Cem Gamma"): "0-1", ("4", "Anna Alpha", "Emil Epsilon"): "1-0",
    }  # fmt: skip
    assert Player.objects.count() == 6
    assert {anna, cem} <= set(Player.objects.all())
    assert Player.objects.get(name="Nora New").rating is None  # unrated: no first rating yet


def test_the_list_follows_the_time_control_or_the_option(tmp_path):
    text = replace_line(SWISS, "222", "222 600+5")  # 10+5: rapid
    run("import_trf", write(tmp_path, text))
    assert set(Game.objects.values_list("rating_list", flat=True)) == {RatingList.RAPID}
    assert Player.objects.get(fide_id=1001).rapid_entry_rating == 1850


def test_dates_from_132_else_the_option_else_the_end_date(tmp_path):
    text = "\n".join(line for line in ROUND_ROBIN.splitlines() if not line.startswith("132"))
    run("import_trf", write(tmp_path, text), "--date", "2026-03-15", "--event", "Cup")
    assert {g.date for g in Game.objects.all()} == {date(2026, 3, 15)}
    assert {g.event for g in Game.objects.all()} == {"Cup"}


def test_the_end_date_when_nothing_else(tmp_path):
    text = "\n".join(line for line in ROUND_ROBIN.splitlines() if not line.startswith("132"))
    run("import_trf", write(tmp_path, text))
    assert {g.date for g in Game.objects.all()} == {date(2026, 3, 21)}


def test_the_same_event_twice_is_refused(tmp_path):
    path = write(tmp_path, ROUND_ROBIN)
    run("import_trf", path)
    before = games()
    message = refused("import_trf", path)
    assert "Nothing was imported." in message
    assert "This event was already imported on " in message
    assert "'Spring Round Robin' has games from 2026-03-07 to 2026-03-21" in message
    assert games() == before
    assert Player.objects.count() == 4


def test_a_dry_run_writes_nothing(tmp_path):
    output = run("import_trf", write(tmp_path, ROUND_ROBIN), "--dry-run")
    assert "Dry run: 6 games checked; nothing was written." in output
    assert not Game.objects.exists()
    assert not Player.objects.exists()
    assert not RatingPeriod.objects.exists()


def test_conflicts_are_refused_with_the_line(tmp_path):
    PlayerFactory(name="Someone Else", fide_id=13400304)
    PlayerFactory(name="Elvis Hernandez", fide_id=None)
    PlayerFactory(name="Hernandez, Elvis", fide_id=None)
    message = refused("import_trf", write(tmp_path, ROUND_ROBIN))
    assert ("Line 11, column 58: The FIDE id 13400304 is 'Someone Else' in the ladder, but the "
            "file names 'Mirzoev, Azer'.") in message  # fmt: skip
    assert ("Line 13, column 15: 2 players of the ladder are named 'Elvis Hernandez'; give the "
            "right one the FIDE id 6400353 in the ladder first.") in message  # fmt: skip
    assert Player.objects.count() == 3
    assert not Game.objects.exists()


def test_two_players_with_the_name(tmp_path):
    PlayerFactory(name="Jane Doe")
    PlayerFactory(name="Doe, Jane")
    message = refused("import_trf", write(tmp_path, ROUND_ROBIN))
    assert ("Line 14, column 15: 2 players of the ladder are named 'Jane Doe'; add the FIDE id "
            "to the file.") in message  # fmt: skip


def test_a_file_error_is_refused_with_line_and_column(tmp_path):
    message = refused("import_trf", write(tmp_path, put(ROUND_ROBIN, "001    2", 49, "24O8")))
    assert message == (
        "Nothing was imported.\nLine 12, column 49: '24O8' is not a rating (a whole number)."
    )
    assert not Player.objects.exists()


def test_a_new_players_bad_entry_data_is_refused_by_the_write_path_at_its_line(tmp_path):
    text = write(tmp_path, put(ROUND_ROBIN, "001    2", 49, "1000"))
    for options in (["--dry-run"], []):
        message = refused("import_trf", text, *options)
        assert message == f"Nothing was imported.\nLine 12, column 49: {ENTRY_RATING_MESSAGE}"
    assert not Player.objects.exists()
    assert not Game.objects.exists()


def test_a_closed_period_is_refused_by_the_write_path(tmp_path):
    period = RatingPeriod.objects.create(label="2026-03", start=date(2026, 3, 1),
                                         end=date(2026, 3, 31))  # fmt: skip
    actions.close_period(period=period)
    message = refused("import_trf", write(tmp_path, ROUND_ROBIN))
    assert "Line 11, column 92: Round 1: The period 2026-03 is closed" in message
    assert not Player.objects.exists()
    assert not Game.objects.exists()


def test_a_windows_1252_file(tmp_path):
    text = ROUND_ROBIN.replace("Doe, Jane", "Žák, Jana").replace("\n", "\r\n")
    output = run("import_trf", write(tmp_path, text, encoding="cp1252"))
    assert "Note: The file is not UTF-8; it was read as Windows-1252." in output
    assert Player.objects.filter(name="Jana Žák").exists()


def test_an_unreadable_file_and_a_bad_date_option(tmp_path):
    assert "Cannot read" in refused("import_trf", str(tmp_path / "missing.trf"))
    message = refused("import_trf", write(tmp_path, ROUND_ROBIN), "--date", "15/03/2026")
    assert message == "--date: '15/03/2026' is not a date in the form YYYY-MM-DD."


def _queries(text):
    plan = prepare(trf.parse(text))
    with CaptureQueriesContext(connection) as queries:
        tournaments.import_tournament(plan)
    return len(queries)


def test_a_constant_number_of_queries_whatever_the_size():
    small = _queries(ROUND_ROBIN)
    Game.objects.all().delete()
    Tournament.objects.all().delete()
    Player.objects.all().delete()
    RatingPeriod.objects.all().delete()
    large = _queries(SWISS)  # more players, more games, more rounds
    assert large <= small + 8  # the lock of each round's day (PostgreSQL), not each line


def test_the_query_budget_of_an_import(django_assert_max_num_queries):
    plan = prepare(trf.parse(SWISS))
    # Players, periods, duplicates, games already recorded in the same rounds (a player plays
    # once a round), the tournament (looked up, recorded, its first history version), the
    # writes in bulk, the rating request, the new players' look-alikes, and against a merge
    # racing it the merges' lock (PostgreSQL) and the merge marks read again: not one per line.
    with django_assert_max_num_queries(37):
        tournaments.import_tournament(plan)
    assert Game.objects.count() == 7


@pytest.mark.parametrize(
    ("line", "control", "rating_list"),
    [("122 90 min + 30 sec", "90+30", RatingList.STANDARD),
     ("122 15'+10\"", "15+10", RatingList.RAPID),
     ("122 3 min", "3+0", RatingList.BLITZ),
     ("222 40/6000+30:900+30", "115+30", RatingList.STANDARD)],
)  # fmt: skip
def test_the_time_control_of_the_file(line, control, rating_list):
    text = ROUND_ROBIN.replace("122 90 min + 30 sec", line)
    plan = prepare(trf.parse(text))
    assert (plan.time_control, plan.rating_list) == (control, rating_list)
