"""FIDE's three lists (FIDE.md 9) through the command-line doors: CSV imports with a list or a
time control, per-list player columns, ``rating_list --list`` and ``recompute_ratings --list``."""

import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from ladder.records import ENTRY_RATING_MESSAGE, Game, Player, RatingList
from ladder.writes import actions
from ratings.models import RatingChange, RatingRun
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def pair(db):
    """Two players rated on every list."""
    return [
        PlayerFactory(
            name=name,
            entry_rating=rating,
            rapid_entry_rating=rating - 50,
            rapid_entry_rated_games=30,
            blitz_entry_rating=rating - 100,
            blitz_entry_rated_games=30,
        )  # fmt: skip
        for name, rating in (("Anna", 1900), ("Bert", 1700))
    ]


# --- CSV games: the list and the time control ---------------------------------------------


def test_a_games_csv_without_list_columns_still_imports_on_the_standard_list(tmp_path, pair):
    run(
        "import_games",
        write(tmp_path, "g.csv", "date,white,black,result\n2026-03-02,Anna,Bert,1-0\n"),
    )
    game = Game.objects.get()
    assert (game.rating_list, game.time_control) == (RatingList.STANDARD, "")


def test_a_games_csv_with_a_list_column(tmp_path, pair):
    text = "date,white,black,result,list\n2026-03-02,Anna,Bert,1-0,rapid\n" \
        "2026-03-02,Bert,Anna,0-1,Blitz\n2026-03-03,Anna,Bert,½-½,\n"  # fmt: skip
    assert "Imported 3 games." in run("import_games", write(tmp_path, "g.csv", text))
    lists = list(Game.objects.order_by("pk").values_list("rating_list", flat=True))
    assert lists == [RatingList.RAPID, RatingList.BLITZ, RatingList.STANDARD]


def test_a_games_csv_with_a_time_control_column_puts_each_game_on_its_list(tmp_path, pair):
    text = "date,white,black,result,time_control\n2026-03-02,Anna,Bert,1-0,90+30\n" \
        "2026-03-02,Bert,Anna,0-1,15+10\n2026-03-03,Anna,Bert,1-0,3+2\n" \
        "2026-03-04,Anna,Bert,0-1,\n"  # fmt: skip
    run("import_games", write(tmp_path, "g.csv", text))
    rows = list(Game.objects.order_by("pk").values_list("rating_list", "time_control"))
    assert rows == [
        (RatingList.STANDARD, "90+30"),
        (RatingList.RAPID, "15+10"),
        (RatingList.BLITZ, "3+2"),
        (RatingList.STANDARD, ""),
    ]
    rapid = RatingChange.objects.filter(rating_list=RatingList.RAPID)
    assert set(rapid.values_list("player__name", flat=True)) == {"Anna", "Bert"}
    assert Player.objects.get(name="Bert").rapid_rating != 1650  # Bert beat Anna at rapid


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "2026-03-02,Anna,Bert,1-0,standard,15+10",
            "line 3, column 'list': A 15+10 game is a rapid game (FIDE counts 25 minutes for 60 "
            "moves): it belongs to the rapid list, not the standard list.",
        ),
        (
            "2026-03-02,Anna,Bert,1-0,,fast",
            "line 3, column 'time_control': 'fast' is not a time control",
        ),
        ("2026-03-02,Anna,Bert,1-0,bullet,", "line 3, column 'list': 'bullet' is not a list"),
        (
            "2026-03-02,Anna,Bert,1-0,,60+0",
            "line 3, column 'time_control': A 60+0 game is too fast for the standard list",
        ),
    ],
)
def test_a_bad_list_or_time_control_names_line_and_column(tmp_path, pair, row, message):
    text = f"date,white,black,result,list,time_control\n2026-03-01,Anna,Bert,1-0,,\n{row}\n"
    with pytest.raises(CommandError) as error:
        run("import_games", write(tmp_path, "g.csv", text))
    assert message in str(error.value)
    assert "Nothing was imported." in str(error.value)
    assert not Game.objects.exists()


@override_settings(LADDER_LISTS=["standard", "rapid"])
def test_a_list_the_club_does_not_keep_is_refused(tmp_path, pair):
    text = "date,white,black,result,time_control\n2026-03-02,Anna,Bert,1-0,3+2\n"
    with pytest.raises(CommandError, match=r"line 2, column 'list': The club keeps no blitz list"):
        run("import_games", write(tmp_path, "g.csv", text))
    assert not Game.objects.exists()


# --- CSV players: entry data per list -----------------------------------------------------

PLAYERS_CSV = (
    "name,rating,rated_games,peak_rating,rapid_rating,rapid_rated_games,rapid_peak_rating,"
    "blitz_rating,blitz_rated_games,blitz_peak_rating\n"
    "Anna Alpha,1850,100,1900,1800,40,1820,1750,20,\n"
    "Ben Beta,1600,12,,,,,1550,5,1560\n"
    "Cem Gamma,,0,,,,,,,\n"
)


def test_players_csv_with_per_list_columns(tmp_path):
    assert "Imported 3 players." in run("import_players", write(tmp_path, "p.csv", PLAYERS_CSV))
    anna = Player.objects.get(name="Anna Alpha")
    assert (anna.rapid_rating, anna.rapid_rated_games, anna.rapid_peak_rating) == (1800, 40, 1820)
    assert (anna.blitz_rating, anna.blitz_rated_games) == (1750, 20)
    ben = Player.objects.get(name="Ben Beta")
    assert ben.rapid_rating is None
    assert (ben.blitz_entry_rating, ben.blitz_entry_peak_rating) == (1550, 1560)
    assert Player.objects.unrated(RatingList.RAPID).count() == 2
    assert Player.objects.unrated(RatingList.BLITZ).count() == 1


@pytest.mark.parametrize(
    ("columns", "values", "message"),
    [
        ("rapid_rating", "4000", f"line 2, column 'rapid_rating': {ENTRY_RATING_MESSAGE}"),
        ("blitz_rating", "-5", f"line 2, column 'blitz_rating': {ENTRY_RATING_MESSAGE}"),
        ("rapid_rated_games", "x", "line 2, column 'rapid_rated_games'"),
        (
            "blitz_rating,blitz_peak_rating",
            "1800,1700",
            "line 2, column 'blitz_peak_rating': The peak rating cannot be lower than the entry "
            "rating.",
        ),
        (
            "rapid_rating,rapid_peak_rating",
            "1800,1700",
            "line 2, column 'rapid_peak_rating': The peak rating cannot be lower",
        ),
    ],
)
def test_per_list_player_errors_name_their_column(tmp_path, columns, values, message):
    text = f"name,rating,peak_rating,{columns}\nAnna Alpha,1900,1950,{values}\n"
    with pytest.raises(CommandError) as error:
        run("import_players", write(tmp_path, "p.csv", text))
    assert message in str(error.value)
    assert "column 'peak_rating'" not in str(error.value)
    assert not Player.objects.exists()


# --- rating_list --list ---------------------------------------------------------------------


@pytest.fixture
def three_lists(pair, committed):
    anna, bert = pair
    with committed():
        for control, result in (("90+30", "1-0"), ("15+10", "0-1"), ("3+2", "1/2-1/2")):
            actions.enter_games(
                games=[
                    actions.GameEntry(
                        date=date(2026, 3, 2),
                        white="Anna",
                        black="Bert",
                        result=result,
                        time_control=control,
                    )
                ]  # fmt: skip
            )
    return anna, bert


def test_rating_list_prints_each_list(three_lists):
    standard = {r["name"]: r for r in json.loads(run("rating_list", "--format", "json"))}
    rapid = {
        r["name"]: r for r in json.loads(run("rating_list", "--list", "rapid", "--format", "json"))
    }
    blitz = {
        r["name"]: r for r in json.loads(run("rating_list", "--list", "blitz", "--format", "json"))
    }
    assert standard["Anna"]["rating_before"] == 1900
    assert (rapid["Anna"]["rating_before"], rapid["Bert"]["rating_before"]) == (1850, 1650)
    assert (blitz["Anna"]["rating_before"], blitz["Bert"]["rating_before"]) == (1800, 1600)
    assert standard["Anna"]["change"] > 0 > rapid["Anna"]["change"]
    assert blitz["Anna"]["score"] == "0.50"
    assert [r["games"] for r in blitz.values()] == [1, 1]
    table = run("rating_list", "--list", "rapid")
    assert table.startswith("Rapid list: Rating list closing 2026-03 (2026-03-01 to 2026-03-31)")
    assert "Rating list closing 2026-03" in run("rating_list", "--list", "standard")
    header = run("rating_list", "--list", "blitz", "--format", "csv").splitlines()[0]
    assert "rating_before" in header


def test_rating_list_refuses_a_list_that_is_not_one(three_lists):
    with pytest.raises(CommandError, match="invalid choice: 'bullet'"):
        run("rating_list", "--list", "bullet")


@override_settings(LADDER_LISTS=["standard"])
def test_rating_list_refuses_a_list_the_club_does_not_keep(pair):
    GameFactory(white=pair[0], black=pair[1])
    with pytest.raises(CommandError, match=r"The club keeps no rapid list \(it keeps: standard\)"):
        run("rating_list", "--list", "rapid")
    with pytest.raises(CommandError, match="The club keeps no blitz list"):
        run("recompute_ratings", "--list", "blitz")


# --- recompute_ratings --list -----------------------------------------------------------


def standard_rows():
    return list(
        RatingChange.objects.filter(rating_list=RatingList.STANDARD)
        .order_by("pk")
        .values_list("pk", "player_id", "period_id", "rating_before", "rating_after", "games")
    )


def test_recompute_ratings_list_blitz_runs_the_blitz_list_only(three_lists, committed):
    before_runs = set(RatingRun.objects.values_list("pk", flat=True))
    standard = standard_rows()
    assert standard
    blitz_before = RatingChange.objects.filter(rating_list=RatingList.BLITZ).count()
    output = run("recompute_ratings", "--list", "blitz")
    assert "Blitz list: 2026-03 recomputed" in output
    new = RatingRun.objects.exclude(pk__in=before_runs)
    assert list(new.values_list("rating_list", flat=True)) == [RatingList.BLITZ]
    assert standard_rows() == standard
    assert RatingChange.objects.filter(rating_list=RatingList.BLITZ).count() == blitz_before
    # a blitz correction asks for a blitz run only, and leaves the standard rows alone
    game = Game.objects.get(rating_list=RatingList.BLITZ)
    seen = set(RatingRun.objects.values_list("pk", flat=True))
    with committed():
        actions.correct_game(game=game, changes={"result": "1-0"})
    new = RatingRun.objects.exclude(pk__in=seen)
    assert set(new.values_list("rating_list", flat=True)) == {RatingList.BLITZ}
    assert standard_rows() == standard
    assert Player.objects.get(name="Anna").blitz_rating > 1800


def test_recompute_ratings_without_a_list_runs_every_kept_list(three_lists):
    seen = set(RatingRun.objects.values_list("pk", flat=True))
    output = run("recompute_ratings")
    new = RatingRun.objects.exclude(pk__in=seen).order_by("pk")
    assert list(new.values_list("rating_list", flat=True)) == list(RatingList.values)
    assert "rapid: Rapid list: 2026-03 recomputed" in output


def test_recompute_ratings_dry_run_of_one_list(three_lists):
    output = run("recompute_ratings", "--list", "rapid", "--dry-run")
    assert output.startswith("rapid: ")
    assert "standard:" not in output
