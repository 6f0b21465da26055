"""Exports: an event as a TRF-16 (round trip through the import), and the CSV files."""

from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ladder.files import exports
from ladder.records import Game, Player, RatingPeriod, Tournament
from ratings.models import RatingChange, RatingRun
from tests.tournaments.files import ROUND_ROBIN, SWISS

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def import_text(tmp_path, text, name="in.trf"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return run("import_trf", str(path))


def snapshot():
    games = sorted(
        (g.date, g.white.name, g.black.name, g.result, g.round, g.event, g.rating_list)
        for g in Game.objects.with_players()
    )
    players = sorted(
        (p.name, p.fide_id, p.title, p.sex, p.federation, p.birth_year, p.entry_rating,
         p.rating, p.rated_games)
        for p in Player.objects.all()
    )  # fmt: skip
    return games, players


def empty_the_ladder():
    Game.objects.all().delete()
    Tournament.objects.all().delete()
    RatingChange.objects.all().delete()
    RatingRun.objects.all().delete()
    Player.objects.all().delete()
    RatingPeriod.objects.all().delete()


@pytest.mark.parametrize(("text", "event"), [(ROUND_ROBIN, "Spring Round Robin"),
                                            (SWISS, "Club Swiss")])  # fmt: skip
def test_export_then_import_into_an_empty_ladder_gives_the_same_games_and_ratings(
    tmp_path, text, event
):
    import_text(tmp_path, text)
    before = snapshot()
    assert before[0]
    exported = run("export_trf", "--event", event)
    empty_the_ladder()
    assert not Player.objects.exists()
    import_text(tmp_path, exported, "out.trf")
    assert snapshot() == before


def test_the_exported_file_follows_the_specification(tmp_path):
    import_text(tmp_path, ROUND_ROBIN)
    lines = run("export_trf", "--event", "Spring Round Robin").splitlines()
    assert lines[:4] == ["012 Spring Round Robin", "042 2026/03/07", "052 2026/03/21", "062 4"]
    assert "122 90+30" in lines
    dates = next(line for line in lines if line.startswith("132"))
    assert dates[91:99] == "26/03/07"
    assert dates[101:109] == "26/03/14"
    azer = next(line for line in lines if "Mirzoev, Azer" in line)
    assert azer.startswith("001    1 m GM Mirzoev, Azer")
    assert azer[48:52] == "2527"  # the rating that opened the period
    assert azer[57:68] == "   13400304"
    assert azer[80:84] == " 2.5"
    assert azer[85:89] == "   1"
    assert azer[91:99] == "   4 w 1"
    jane = next(line for line in lines if "Doe, Jane" in line)
    assert jane[48:52] == "    "  # unrated
    assert jane[85:89] == "   4"


def test_ties_share_a_rank(tmp_path):
    import_text(tmp_path, ROUND_ROBIN)
    lines = run("export_trf", "--event", "Spring Round Robin").splitlines()
    ranks = {line[14:47].strip(): line[85:89].strip() for line in lines if line[:3] == "001"}
    # The club writes "Inigo Argandona Riveiro": the last word is taken for the last name.
    assert ranks == {"Mirzoev, Azer": "1", "Riveiro, Inigo Argandona": "2",
                     "Hernandez, Elvis": "2", "Doe, Jane": "4"}  # fmt: skip


def test_an_unknown_event_is_refused():
    with pytest.raises(CommandError, match="No game has the event 'Nothing'."):
        run("export_trf", "--event", "Nothing")


def test_export_to_a_file(tmp_path):
    import_text(tmp_path, ROUND_ROBIN)
    target = tmp_path / "spring.trf"
    assert "Wrote 'Spring Round Robin'" in run("export_trf", "--event", "Spring Round Robin",
                                               "--output", str(target))  # fmt: skip
    assert target.read_text().startswith("012 Spring Round Robin\n")


def test_period_games_csv_round_trips_through_import_games(tmp_path):
    import_text(tmp_path, SWISS)
    before = snapshot()[0]
    text = exports.period_games_csv(RatingPeriod.objects.get(label="2026-03"))
    assert text.splitlines()[0] == "date,white,black,result,event,round,list,time_control"
    Game.objects.all().delete()
    Tournament.objects.all().delete()
    path = tmp_path / "games.csv"
    path.write_text(text, encoding="utf-8")
    assert "Imported 7 games." in run("import_games", str(path))
    assert snapshot()[0] == before


def test_rating_list_csv_has_the_commands_columns(tmp_path):
    import_text(tmp_path, ROUND_ROBIN)
    period = RatingPeriod.objects.get(label="2026-03")
    ours = exports.rating_list_csv(period).splitlines()
    theirs = run("rating_list", "--period", "2026-03", "--format", "csv").splitlines()
    assert ours == theirs


def test_history_csv(tmp_path):
    import_text(tmp_path, ROUND_ROBIN)
    text = exports.history_csv(Player.objects.get(fide_id=13400304))
    header, row = text.splitlines()
    assert header.startswith("period,start,end,rating_before,k,games,score")
    assert row.startswith(f"2026-03,{date(2026, 3, 1)},{date(2026, 3, 31)},2527,")
