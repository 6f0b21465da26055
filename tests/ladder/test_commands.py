"""Management commands, through call_command, with their error messages."""

import csv
import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Count
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.records import ENTRY_RATING_MESSAGE, LIST_FIELDS, Game, Player, RatingList, RatingPeriod
from ladder.writes.actions import close_period
from ratings.models import Publication, RatingChange, RatingRun
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

PLAYERS_CSV = """name,fide_id,birth_year,sex,federation,title,rating,rated_games,peak_rating
Anna Alpha,1001,1990,F,ENG,,1850,100,1900
Ben Beta,1002,2012,M,GER,,1600,12,
Cem Gamma,,1985,M,,,,0,
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_import_players_then_games_then_the_list(tmp_path):
    assert "Imported 3 players." in run("import_players", write(tmp_path, "p.csv", PLAYERS_CSV))
    anna = Player.objects.get(fide_id=1001)
    assert (anna.rating, anna.rated_games, anna.peak_rating) == (1850, 100, 1900)
    games = "date,white,black,result,event,round\n2026-03-02,1001,Ben Beta,½-½,Open,1\n" \
        "2026-03-09,Ben Beta,Cem Gamma,1-0,Open,2\n2026-03-16,1001,1002,+/-,Open,3\n"  # fmt: skip
    output = run("import_games", write(tmp_path, "g.csv", games))
    assert "Imported 3 games." in output
    assert "2026-03 recomputed" in output
    rows = json.loads(run("rating_list", "--format", "json"))
    by_name = {row["name"]: row for row in rows}
    # 1850 v 1600: D 250 -> PD .81; a draw gives -0.31 x 20 = -6.2 -> -6
    assert by_name["Anna Alpha"]["rating"] == 1844
    assert by_name["Anna Alpha"]["change_exact"] == "-6.20"
    assert by_name["Anna Alpha"]["expected"] == "0.81"
    assert by_name["Ben Beta"]["k"] == 40
    assert by_name["Cem Gamma"]["rating"] is None
    assert by_name["Cem Gamma"]["status"] == "unrated"
    assert set(rows[0]) >= {"name", "fide_id", "rating_before", "rating", "change", "k",
                            "games", "total_games", "status", "score", "expected",
                            "change_exact"}  # fmt: skip
    csv_out = run("rating_list", "--period", "2026-03", "--format", "csv")
    assert csv_out.splitlines()[0].startswith("id,name,fide_id,rating_before,rating")
    table = run("rating_list")
    assert "Rating list closing 2026-03" in table
    assert "Anna Alpha" in table


def test_a_csv_with_one_bad_row_imports_nothing(tmp_path):
    bad = PLAYERS_CSV + "Dee Delta,1001,2999,X,,ZZ,4000,,\n"
    with pytest.raises(CommandError) as error:
        run("import_players", write(tmp_path, "p.csv", bad))
    message = str(error.value)
    assert "Nothing was imported." in message
    assert "line 5, column 'fide_id': FIDE id 1001 is also on line 2." in message
    assert f"line 5, column 'rating': {ENTRY_RATING_MESSAGE}" in message
    assert "line 5, column 'sex': 'X' is not M or F." in message
    assert "line 5, column 'title': 'ZZ' is not a FIDE title" in message
    assert "line 5, column 'birth_year'" in message
    assert not Player.objects.exists()


def test_an_existing_fide_id_is_refused(tmp_path):
    PlayerFactory(fide_id=1002)
    with pytest.raises(CommandError, match="line 3, column 'fide_id': A player with FIDE id 1002"):
        run("import_players", write(tmp_path, "p.csv", PLAYERS_CSV))
    assert Player.objects.count() == 1


def test_a_missing_required_column_is_named(tmp_path):
    with pytest.raises(CommandError, match="column 'name': This required column is missing"):
        run("import_players", write(tmp_path, "p.csv", "fide_id\n1\n"))


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("2026-03-02,Anna,Anna,1-0", "line 3, column 'black': A player cannot play themselves."),
        ("2026-03-02,Zed,Anna,1-0", "column 'white': No player is named 'Zed'."),
        ("2026-03-02,Anna,Twin,1-0", "column 'black': Several players are named 'Twin'"),
        ("2026-03-02,Anna,Bert,2-0", "column 'result': '2-0' is not a result"),
        ("2026-02-30,Anna,Bert,1-0", "column 'date': '2026-02-30' is not a date"),
        (",Anna,Bert,1-0", "column 'date': A date is required"),
        ("2026-01-05,Anna,Bert,1-0", "column 'date': The period 2026-01 is closed"),
    ],
)
def test_bad_game_rows_import_nothing(tmp_path, row, message):
    anna, bert = PlayerFactory(name="Anna"), PlayerFactory(name="Bert")
    PlayerFactory(name="Twin")
    PlayerFactory(name="Twin")
    old = GameFactory(date=date(2026, 1, 3), white=anna, black=bert)
    close_period(period=old.period)
    text = f"date,white,black,result\n2026-03-01,Anna,Bert,1-0\n{row}\n"
    with pytest.raises(CommandError) as error:
        run("import_games", write(tmp_path, "g.csv", text))
    assert message in str(error.value)
    assert Game.objects.count() == 1
    assert RatingPeriod.objects.count() == 1


def test_a_nul_character_is_refused_before_the_database_sees_it(tmp_path):
    PlayerFactory(name="Anna")
    PlayerFactory(name="Bert")
    with pytest.raises(CommandError, match="line 2, column 'name': Contains a NUL character"):
        run("import_players", write(tmp_path, "p.csv", "name,rating\nNul\x00Man,1500\n"))
    text = "date,white,black,result,event\n2026-03-01,Anna,Bert,1-0,Club\x00Cup\n"
    with pytest.raises(CommandError, match="line 2, column 'event': Contains a NUL character"):
        run("import_games", write(tmp_path, "g.csv", text))
    assert Player.objects.count() == 2
    assert not Game.objects.exists()


def test_unreadable_files_fail_cleanly(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run("import_games", str(tmp_path / "missing.csv"))
    path = tmp_path / "latin1.csv"
    path.write_bytes("name\nJos\xe9\n".encode("latin-1"))
    with pytest.raises(CommandError, match="is not UTF-8"):
        run("import_players", str(path))


def test_close_reopen_and_recompute_commands(committed):
    with committed():
        GameFactory(date=date(2026, 1, 5))
        GameFactory(date=date(2026, 2, 5))
    with pytest.raises(CommandError, match="close 2026-01 first"):
        run("close_period", "2026-02")
    assert "Closed 2026-01." in run("close_period", "2026-01")
    with pytest.raises(CommandError, match="No rating period is labelled '2025-12'"):
        run("close_period", "2025-12")
    with pytest.raises(CommandError, match="Give a reason"):
        run("reopen_period", "2026-01", "--reason", " ")
    assert "Reopened 2026-01." in run("reopen_period", "2026-01", "--reason", "typo in round 2")
    RatingChange.objects.all().delete()
    assert "would change" in run("recompute_ratings", "--dry-run")
    assert not RatingChange.objects.exists()
    assert "2026-01 to 2026-02 recomputed" in run("recompute_ratings", "--from", "2026-01")
    assert RatingChange.objects.count() == 4


def test_rating_list_without_periods_says_so():
    with pytest.raises(CommandError, match="There are no rating periods yet"):
        run("rating_list")


def test_seed_demo_builds_six_months_all_closed_but_the_last():
    output = run("seed_demo")
    assert "user 'admin', password 'admin'" in output
    assert 35 <= Player.objects.count() <= 45
    periods = list(RatingPeriod.objects.order_by("start"))
    assert len(periods) == 6
    assert [p.is_closed for p in periods] == [True] * 5 + [False]
    assert Player.objects.filter(rating__gte=2650).exists()
    assert Player.objects.filter(peak_rating__gte=2400).count() >= 3
    assert RatingChange.objects.filter(status="first_rating").exists()
    assert "already has players" in run("seed_demo", "--if-empty")


def list_state():
    changes = RatingChange.objects.order_by("rating_list", "period__start", "player_id")
    fields = [f.name for f in RatingChange._meta.fields if f.name not in ("id", "run", "created")]
    players = Player.objects.order_by("pk")
    derived = [name for fields_ in LIST_FIELDS.values() for name in fields_.derived]
    return list(changes.values_list(*fields)), list(players.values_list("pk", *derived))


def test_seed_demo_keeps_three_lists_equal_to_a_full_recompute():
    output = run("seed_demo")
    assert "Rapid list: " in output
    assert "Blitz list: " in output
    by_list = dict(Game.objects.values("rating_list").annotate(n=Count("id")).values_list(
        "rating_list", "n"))  # fmt: skip
    assert set(by_list) == set(RatingList.values)
    assert all(count >= 100 for count in by_list.values())
    assert set(Game.objects.filter(rating_list="rapid").values_list("time_control", flat=True)) \
        == {"15+10"}  # fmt: skip
    assert set(Game.objects.filter(rating_list="blitz").values_list("time_control", flat=True)) \
        == {"3+2"}  # fmt: skip
    for rating_list in RatingList.values:
        # most players are rated on each list; a few newcomers are not (yet)
        assert Player.objects.rated(rating_list).count() >= 30
        assert Player.objects.unrated(rating_list).count() >= 2
        changes = RatingChange.objects.filter(rating_list=rating_list)
        assert changes.filter(status="first_rating").exists()
        assert changes.values("period").distinct().count() == 6
    # a rated standard player who has no rapid rating yet
    assert Player.objects.filter(rating__isnull=False, rapid_entry_rating__isnull=True).exists()
    seeded = list_state()
    run("recompute_ratings")
    assert list_state() == seeded


BACKGROUND = {
    "LADDER_RECOMPUTE": "background",
    "TASKS": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
}


@pytest.mark.parametrize("settings_", [{}, BACKGROUND], ids=["immediate", "background"])
def test_seed_demo_rates_and_publishes_in_either_mode_and_dates_no_game_after_today(
    settings_, monkeypatch
):
    today = date(2026, 12, 2)  # early in the month: most of its club nights are still to come
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: today)
    with override_settings(**settings_):
        output = run("seed_demo")
    assert "Demo club loaded. " in output
    assert "Rapid list: " in output
    assert "Blitz list: " in output
    periods = list(RatingPeriod.objects.order_by("start"))
    assert [p.label for p in periods] == ["2026-07", "2026-08", "2026-09", "2026-10", "2026-11",
                                          "2026-12"]  # fmt: skip
    assert [p.is_closed for p in periods] == [True] * 5 + [False]
    assert Publication.objects.filter(revision=1).count() == 5 * 3
    assert not RatingRun.objects.exclude(status="done").exists()
    assert Game.objects.filter(period=periods[-1]).exists()
    assert not Game.objects.filter(date__gt=today).exists()
    assert RatingChange.objects.filter(period=periods[-1]).exists()  # the open month is rated
    # Every player and game came through the actions: each has its first version.
    assert Player.history.filter(history_type="+").count() == Player.objects.count()  # type: ignore[attr-defined]
    assert Game.history.filter(history_type="+").count() == Game.objects.count()  # type: ignore[attr-defined]


def test_a_game_outside_1900_to_2999_is_refused(tmp_path):
    PlayerFactory(name="Anna")
    PlayerFactory(name="Bert")
    text = "date,white,black,result\n0001-03-01,Anna,Bert,1-0\n"
    with pytest.raises(CommandError, match="line 2, column 'date': A game must be dated between"):
        run("import_games", write(tmp_path, "g.csv", text))


def test_rating_list_csv_neutralises_formulas_and_keeps_numbers():
    evil = PlayerFactory(name="=cmd|' /C calc'!A0", fide_id=9001)
    GameFactory(date=date(2026, 3, 5), white=evil, black=PlayerFactory(name="@SUM(A1)"))
    PlayerFactory(name="-2+3")
    out = run("rating_list", "--format", "csv")
    assert "'=cmd|' /C calc'!A0" in out
    assert "'@SUM(A1)" in out
    assert "'-2+3" in out
    row = next(row for row in csv.DictReader(StringIO(out)) if row["fide_id"] == "9001")
    assert (row["rating_before"], row["fide_id"]) == ("1800", "9001")  # numbers stay numbers


@pytest.mark.parametrize("rows", [10, 300])
def test_a_players_file_is_validated_in_a_constant_number_of_queries(tmp_path, rows):
    text = "name,fide_id,rating\n" + "".join(f"P{i},{5000 + i},1800\n" for i in range(rows))
    with CaptureQueriesContext(connection) as captured:
        run("import_players", write(tmp_path, "p.csv", text))
    reads = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith("SELECT") and "nextval" not in q["sql"]  # ids for COPY: a write
    ]
    assert len(reads) <= 3  # the fingerprint, the FIDE ids taken, and nothing per row
    assert Player.objects.count() == rows
