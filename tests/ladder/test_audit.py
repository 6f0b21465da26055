"""Audit complete: every player and game has a first history version ("+", created), by the
acting user where one is known, whatever door created it, so "what changed" always shows."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from ladder.files import backup as club_io
from ladder.files import csv_import
from ladder.records import Game, Player, RatingPeriod, Tournament
from ladder.writes import actions
from ratings.models import RatingChange
from tests.factories import PlayerFactory
from tests.tournaments.files import ROUND_ROBIN

pytestmark = pytest.mark.django_db

PLAYERS_CSV = "name,fide_id,rating\nAnna Alpha,3001,1850\nBen Beta,3002,1600\nCem Gamma,,\n"
GAMES_CSV = "date,white,black,result\n2026-03-02,1001,1002,1-0\n2026-03-09,1002,1001,1/2-1/2\n"
OTHER_LISTS = {"rapid_entry_rated_games": 0, "blitz_entry_rated_games": 0}

# A door takes the acting superuser and a scratch folder, creates records as a user of that
# door would, and returns the user the history should name (None: no one, e.g. a command).
Door = Callable[[User, Path], User | None]


def admin(boss: User) -> Client:
    client = Client()
    client.force_login(boss)
    return client


def api(boss: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(boss)
    return client


def admin_player_form(boss, tmp_path):
    data = {"name": "Fresh Face", "entry_rated_games": 0, **OTHER_LISTS}
    for key in ("TOTAL", "INITIAL", "MIN_NUM", "MAX_NUM"):
        data[f"rating_changes-{key}_FORMS"] = "0"
    assert admin(boss).post("/admin/ladder/player/add/", data).status_code == 302
    return boss


def admin_game_form(boss, tmp_path):
    alice, bob = Player.objects.order_by("fide_id")
    data = {"date": "2026-03-10", "white": alice.pk, "black": bob.pk, "result": "1-0",
            "event": "", "round": ""}  # fmt: skip
    assert admin(boss).post("/admin/ladder/game/add/", data).status_code == 302
    return boss


def admin_round_entry(boss, tmp_path):
    data = {"date": "2026-03-14", "event": "Club", "round": "1", "_save": "1",
            "paste": "1001 - 1002 1-0",  # a player plays once a round
            "rows-TOTAL_FORMS": "0", "rows-INITIAL_FORMS": "0", "rows-MIN_NUM_FORMS": "0",
            "rows-MAX_NUM_FORMS": "1000"}  # fmt: skip
    assert admin(boss).post("/admin/ladder/game/enter-round/", data).status_code == 302
    return boss


def admin_tournament_file(boss, tmp_path):
    upload = SimpleUploadedFile("event.trf", ROUND_ROBIN.encode(), content_type="text/plain")
    response = admin(boss).post("/admin/ladder/game/import-file/", {"file": upload, "_import": "1"})
    assert response.status_code == 302
    return boss


def api_player(boss, tmp_path):
    response = api(boss).post("/api/v1/players/", {"name": "Api Player"}, format="json")
    assert response.status_code == 201, response.json()
    return boss


def api_game(boss, tmp_path):
    alice, bob = Player.objects.order_by("fide_id")
    data = {"date": "2026-03-10", "white": alice.pk, "black": bob.pk, "result": "0-1"}
    assert api(boss).post("/api/v1/games/", data, format="json").status_code == 201
    return boss


def api_tournament_file(boss, tmp_path):
    upload = SimpleUploadedFile("event.trf", ROUND_ROBIN.encode(), content_type="text/plain")
    response = api(boss).post("/api/v1/tournaments/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    return boss


def command(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text(text, encoding="utf-8")
    call_command(name, str(path), stdout=StringIO())


def csv_players_command(boss, tmp_path):
    command("import_players", PLAYERS_CSV, tmp_path)
    return None


def csv_players_by_a_user(boss, tmp_path):
    csv_import.import_players(StringIO(PLAYERS_CSV), user=boss)
    return boss


def csv_games_command(boss, tmp_path):
    command("import_games", GAMES_CSV, tmp_path)
    return None


def trf_command(boss, tmp_path):
    command("import_trf", ROUND_ROBIN, tmp_path)
    return None


def club_restore(boss, tmp_path):
    actions.enter_games(games=club_io_games())
    document = json.loads(json.dumps(club_io.export_club(), default=str))
    document["users"] = []  # the acting user exists already
    # A backup of another database: its players' ids are not these (a restore keeps them).
    for player in document["players"]:
        player["id"] += 1000
    for game in document["games"]:
        game.update(id=game["id"] + 1000, white=game["white"] + 1000, black=game["black"] + 1000)
    for model in (Game, Tournament, RatingChange, RatingPeriod, Player):
        model.objects.all().delete()
    actions.restore_club(plan=club_io.read_club(document), user=boss)
    return boss


def club_io_games():
    alice, bob = Player.objects.order_by("fide_id")
    return [actions.GameEntry(date=date(2026, 3, day), white=alice, black=bob, result="1-0")
            for day in (3, 4)]  # fmt: skip


def seed_demo(boss, tmp_path):
    Player.objects.all().delete()
    call_command("seed_demo", stdout=StringIO())
    return None


DOORS: dict[str, tuple[Door, set[str]]] = {
    "admin player form": (admin_player_form, {"players"}),
    "admin game form": (admin_game_form, {"games"}),
    "admin round entry": (admin_round_entry, {"games"}),
    "admin tournament file": (admin_tournament_file, {"players", "games"}),
    "API player": (api_player, {"players"}),
    "API game": (api_game, {"games"}),
    "API tournament file": (api_tournament_file, {"players", "games"}),
    "CSV players (command)": (csv_players_command, {"players"}),
    "CSV players (by a user)": (csv_players_by_a_user, {"players"}),
    "CSV games (command)": (csv_games_command, {"games"}),
    "TRF file (command)": (trf_command, {"players", "games"}),
    "club restore": (club_restore, {"players", "games"}),
    "seed_demo": (seed_demo, {"players", "games"}),
}


@pytest.mark.parametrize("door", DOORS)
def test_every_created_record_has_one_first_version_by_the_acting_user(door, tmp_path):
    boss = User.objects.create_superuser("boss", "boss@example.org", "pw")
    PlayerFactory(name="Alice Brown", fide_id=1001, entry_rating=1900)
    PlayerFactory(name="Bob Green", fide_id=1002, entry_rating=1800)
    before = {Player: set(Player.objects.values_list("pk", flat=True)), Game: set()}
    create, kinds = DOORS[door]

    acting = create(boss, tmp_path)

    expected_user = acting.pk if acting is not None else None
    for model, kind in ((Player, "players"), (Game, "games")):
        created = set(model.objects.exclude(pk__in=before[model]).values_list("pk", flat=True))
        assert bool(created) == (kind in kinds), f"{door} creates {kind}"
        versions = model.history.filter(id__in=created).values_list(  # type: ignore[attr-defined]
            "id", "history_type", "history_user_id"
        )
        assert sorted(versions) == sorted((pk, "+", expected_user) for pk in created)


def test_a_first_version_holds_the_record_as_stored(tmp_path):
    csv_import.import_players(StringIO(PLAYERS_CSV), user=None)
    version = Player.history.get(fide_id=3001)  # type: ignore[attr-defined]
    stored = Player.objects.get(fide_id=3001)
    assert (version.id, version.name, version.entry_rating, version.created) == (
        stored.pk, "Anna Alpha", 1850, stored.created
    )  # fmt: skip
    assert version.history_change_reason == "Imported from a CSV file"
    assert version.history_date >= stored.created


def test_importing_players_writes_their_history_in_one_query_whatever_the_file_size():
    def queries(rows: int, first: int) -> list[str]:
        text = "name,fide_id,rating\n" + "".join(f"P{i},{first + i},1800\n" for i in range(rows))
        with CaptureQueriesContext(connection) as captured:
            csv_import.import_players(StringIO(text))
        # The players' own insert is batched by the database's limits (SQLite: 999 values).
        return [q["sql"] for q in captured.captured_queries
                if not q["sql"].startswith('INSERT INTO "ladder_player"')]  # fmt: skip

    small, large = queries(10, 5000), queries(300, 6000)
    assert len(small) == len(large)
    assert len([sql for sql in large if "historicalplayer" in sql]) == 1
    assert Player.history.filter(history_type="+").count() == 310  # type: ignore[attr-defined]


def test_record_first_versions_gives_the_older_bulk_records_theirs_and_only_once():
    players = Player.objects.bulk_create(
        [Player(name="Old Import"), Player(name="Old Seed", entry_rating=1700)]
    )  # as an older Ladder wrote them: no version at all
    corrected = PlayerFactory(name="Has History")
    Game.objects.bulk_create(
        [Game(date=date(2026, 3, 2), white=players[0], black=players[1], result="1-0",
              period=RatingPeriod.objects.for_date(date(2026, 3, 2)))]
    )  # fmt: skip
    out = StringIO()
    call_command("record_first_versions", stdout=out)
    assert "Recorded a first version of 2 players and 1 games." in out.getvalue()
    for player in players:
        version = player.history.get()
        stored = Player.objects.get(pk=player.pk)
        assert (version.history_type, version.history_date, version.name) == (
            "+", stored.created, stored.name
        )  # fmt: skip
    assert corrected.history.count() == 1
    assert Game.history.get().history_type == "+"  # type: ignore[attr-defined]
    again = StringIO()
    call_command("record_first_versions", stdout=again)
    assert "Recorded a first version of 0 players and 0 games." in again.getvalue()
