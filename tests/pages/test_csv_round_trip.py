"""The web CSV downloads (issue 23's walk-through): formula cells neutralised by the one
function the command uses, and games.csv imported back through the CSV import as the README
promises: the same games."""

import csv
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command

from ladder.files.cells import neutralise
from ladder.records import Game, Result
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://evil.example")'


@pytest.fixture
def month(committed):
    """March 2026: a player found by FIDE id, one by name, a formula-looking name and event,
    every kind of result, an event with rounds, a rapid game with a time control."""
    ann = PlayerFactory(name="Ann Able", fide_id=4100001, entry_rating=1900)
    ben = PlayerFactory(name="Ben Best", fide_id=None, entry_rating=1700)
    odd = PlayerFactory(name=FORMULA, fide_id=None, entry_rating=1600)
    rows = [
        (2, ann, ben, Result.WHITE_WIN, "Club championship", "1", "standard", ""),
        (3, odd, ann, Result.DRAW, "Club championship", "2", "standard", ""),
        (9, ben, odd, Result.WHITE_FORFEIT_WIN, "-Blitz night", "2", "standard", ""),
        (16, ann, odd, Result.BLACK_WIN, "", "", "rapid", "15+10"),
        (23, odd, ben, Result.DOUBLE_FORFEIT, "@Open", "3", "standard", ""),
    ]
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 3, d), white=w, black=b, result=r, event=e, round=n,
                          rating_list=li, time_control=tc)
                for d, w, b, r, e, n, li, tc in rows
            ]
        )  # fmt: skip
    return {"ann": ann, "ben": ben, "odd": odd}


def kept(games) -> list[tuple]:
    return sorted(
        (g.date, g.white_id, g.black_id, g.result, g.event, g.round, g.rating_list,
         g.time_control)
        for g in games
    )  # fmt: skip


def test_games_csv_imports_back_as_the_same_games(client, month, committed, tmp_path):
    before = kept(Game.objects.all())
    body = client.get("/periods/2026-03/games.csv").content.decode()
    cells = [cell for row in csv.reader(StringIO(body)) for cell in row]
    assert "'" + FORMULA in cells  # neutralised on the way out
    assert "'-Blitz night" in cells
    with committed():
        actions.delete_games(games=Game.objects.all())
    assert Game.objects.count() == 0
    path = tmp_path / "games.csv"
    path.write_text(body, encoding="utf-8")
    with committed():
        call_command("import_games", str(path), stdout=StringIO())
    assert kept(Game.objects.all()) == before


def test_the_web_list_neutralises_as_the_command_does(client, month):
    web = list(csv.reader(StringIO(client.get("/periods/2026-03/list.csv").content.decode())))
    out = StringIO()
    call_command("rating_list", "--period", "2026-03", "--format", "csv", stdout=out)
    command = list(csv.reader(StringIO(out.getvalue())))
    assert web == command
    names = [row[web[0].index("name")] for row in web[1:]]
    assert neutralise(FORMULA) == "'" + FORMULA
    assert "'" + FORMULA in names
    assert FORMULA not in names
