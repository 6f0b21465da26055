"""Nothing slips through: inputs that look like data but are wrong are refused at every door
(admin, round entry, API, each importer) with the same sentence, and nothing is written."""

from __future__ import annotations

from datetime import date
from html import unescape

import pytest

from ladder.exceptions import TrfRefused
from ladder.files import tournaments
from ladder.records import Game, Player
from tests.commands import refused_import as import_file
from tests.factories import GameFactory, PlayerFactory
from tests.tournaments.files import ROUND_ROBIN, put

pytestmark = pytest.mark.django_db

DAY = "2026-03-14"


def page(response) -> str:
    return unescape(response.content.decode())


# --- a player plays once a round -----------------------------------------------------------------


def _round_by_api(client, api, tmp_path, white, black) -> str:
    body = {"date": DAY, "white": white.pk, "black": black.pk, "result": "1-0",
            "event": "Spring Open", "round": "3"}  # fmt: skip
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    return response.json()["round"][0]


def _round_by_admin(client, api, tmp_path, white, black) -> str:
    data = {"date": DAY, "white": white.pk, "black": black.pk, "result": "1-0",
            "event": "Spring Open", "round": "3", "rating_list": ""}  # fmt: skip
    response = client.post("/admin/ladder/game/add/", data)
    assert response.status_code == 200
    return page(response)


def _round_by_round_entry(client, api, tmp_path, white, black) -> str:
    data = {"date": DAY, "event": "Spring Open", "round": "3", "time_control": "",
            "paste": f"{white.name} - {black.name} 1-0", "rows-TOTAL_FORMS": "0",
            "rows-INITIAL_FORMS": "0", "_save": "1"}  # fmt: skip
    return page(client.post("/admin/ladder/game/enter-round/", data))


def _round_by_csv(client, api, tmp_path, white, black) -> str:
    text = (
        f"date,white,black,result,event,round\n{DAY},{white.name},{black.name},1-0,Spring Open,3\n"
    )
    message = import_file(tmp_path, "import_games", text)
    assert "line 2, column 'round': " in message
    return message


@pytest.mark.parametrize(
    "door", [_round_by_api, _round_by_admin, _round_by_round_entry, _round_by_csv]
)
def test_a_second_game_in_a_recorded_round_is_refused_alike_at_every_door(
    client, boss, api, tmp_path, door
):
    anna, bert, cleo = (PlayerFactory(name=n) for n in ("Anna", "Bert", "Cleo"))
    recorded = GameFactory(date=date(2026, 3, 14), white=anna, black=bert, result="1-0",
                           event="Spring Open", round="3")  # fmt: skip
    client.force_login(boss)

    shown = door(client, api, tmp_path, cleo, anna)

    assert f"Round 3: Anna is paired twice (also in game #{recorded.pk})." in shown
    assert list(Game.objects.all()) == [recorded]


@pytest.mark.parametrize(
    ("event", "round_", "day"),
    [("Spring Open", "4", DAY), ("Summer Open", "3", DAY), ("Spring Open", "3", "2026-03-15"),
     ("Spring Open", "", DAY)],
)  # fmt: skip
def test_another_round_event_or_day_is_no_second_game(api, event, round_, day):
    anna, bert, cleo = (PlayerFactory(name=n) for n in ("Anna", "Bert", "Cleo"))
    GameFactory(date=date(2026, 3, 14), white=anna, black=bert, event="Spring Open", round="3")
    body = {"date": day, "white": cleo.pk, "black": anna.pk, "result": "1-0",
            "event": event, "round": round_}  # fmt: skip

    assert api.post("/api/v1/games/", body, format="json").status_code == 201


def _twice_by_csv(client, tmp_path) -> str:
    text = (
        "date,white,black,result,event,round\n"
        f"{DAY},Anna,Bert,1-0,Spring Open,3\n"
        f"{DAY},Cleo,Anna,1-0,Spring Open,3\n"
    )
    return import_file(tmp_path, "import_games", text)


def _twice_by_round_entry(client, tmp_path) -> str:
    data = {"date": DAY, "event": "Spring Open", "round": "3", "time_control": "",
            "paste": "Anna - Bert 1-0\nCleo - Anna 1-0", "rows-TOTAL_FORMS": "0",
            "rows-INITIAL_FORMS": "0", "_preview": "1"}  # fmt: skip
    return page(client.post("/admin/ladder/game/enter-round/", data))


def _twice_by_pgn(client, tmp_path) -> str:
    text = "".join(
        f'[Event "Spring Open"]\n[Date "2026.03.14"]\n[Round "3"]\n[White "{white}"]\n'
        f'[Black "{black}"]\n[Result "1-0"]\n\n1-0\n\n'
        for white, black in (("Anna", "Bert"), ("Cleo", "Anna"))
    )
    with pytest.raises(TrfRefused) as caught:
        tournaments.import_tournament(tournaments.read(text.encode()))
    return str(caught.value)


@pytest.mark.parametrize(
    ("door", "first"),
    [(_twice_by_csv, "at line 2"), (_twice_by_round_entry, "at pasted line 1"),
     (_twice_by_pgn, "at line 1")],
)  # fmt: skip
def test_two_games_in_one_round_of_a_batch_are_refused_alike(client, boss, tmp_path, door, first):
    for name in ("Anna", "Bert", "Cleo"):
        PlayerFactory(name=name)
    client.force_login(boss)

    assert f"Round 3: Anna is paired twice (also {first})." in door(client, tmp_path)
    assert not Game.objects.exists()


# --- a FIDE id is written in the digits 0-9 ------------------------------------------------------

FIDE_ID_MESSAGE = "'{}' is not a FIDE id: write a whole number with the digits 0-9."


def _fide_id_by_api(client, api, tmp_path, typed: str) -> str:
    response = api.post("/api/v1/players/", {"name": "Anna", "fide_id": typed}, format="json")
    assert response.status_code == 400
    return response.json()["fide_id"][0]


def _fide_id_by_admin(client, api, tmp_path, typed: str) -> str:
    response = client.post("/admin/ladder/player/add/", {"name": "Anna", "fide_id": typed})
    assert response.status_code == 200
    return page(response)


def _fide_id_by_csv(client, api, tmp_path, typed: str) -> str:
    message = import_file(tmp_path, "import_players", f"name,fide_id\nAnna,{typed}\n")
    assert "line 2, column 'fide_id': " in message
    return message


def _fide_id_by_trf(client, api, tmp_path, typed: str) -> str:
    with pytest.raises(TrfRefused) as caught:
        tournaments.read(put(ROUND_ROBIN, "001    4", 58, typed.rjust(11)).encode())
    assert str(caught.value).startswith("Line 14, column 58: ")
    return str(caught.value)


def _fide_id_by_pgn(client, api, tmp_path, typed: str) -> str:
    text = (
        f'[Event "Spring Open"]\n[Date "2026.03.14"]\n[White "Anna"]\n[Black "Bert"]\n'
        f'[WhiteFideId "{typed}"]\n[Result "1-0"]\n\n1-0\n'
    )
    with pytest.raises(TrfRefused) as caught:
        tournaments.read(text.encode())
    assert str(caught.value).startswith("Line 5: ")
    return str(caught.value)


@pytest.mark.parametrize(
    "door", [_fide_id_by_api, _fide_id_by_admin, _fide_id_by_csv, _fide_id_by_trf, _fide_id_by_pgn]
)
@pytest.mark.parametrize("typed", ["١٢٣٤٥", "１２３４５", "12x45"])  # Arabic-Indic, full-width
def test_a_fide_id_not_in_the_digits_0_to_9_is_refused_alike_at_every_door(
    client, boss, api, tmp_path, door, typed
):
    client.force_login(boss)

    assert FIDE_ID_MESSAGE.format(typed) in door(client, api, tmp_path, typed)
    assert not Player.objects.exists()
    assert not Game.objects.exists()


@pytest.mark.parametrize("typed", ["12345", " 12345 "])
def test_a_fide_id_in_ascii_digits_is_read_at_the_api(api, typed):
    response = api.post("/api/v1/players/", {"name": "Anna", "fide_id": typed}, format="json")
    assert response.status_code == 201
    assert response.json()["fide_id"] == 12345


def test_a_fide_id_filter_in_other_digits_is_a_400(api):
    PlayerFactory(name="Anna", fide_id=12345)
    response = api.get("/api/v1/players/", {"fide_id": "١٢٣٤٥"})
    assert response.status_code == 400
    assert response.json()["fide_id"] == [FIDE_ID_MESSAGE.format("١٢٣٤٥")]


def _player_by_csv(client, tmp_path, typed: str) -> str:
    text = f"date,white,black,result\n{DAY},{typed},Bert,1-0\n"
    return import_file(tmp_path, "import_games", text)


def _player_by_round_entry(client, tmp_path, typed: str) -> str:
    data = {"date": DAY, "event": "", "round": "", "time_control": "",
            "paste": f"{typed} - Bert 1-0", "rows-TOTAL_FORMS": "0",
            "rows-INITIAL_FORMS": "0", "_preview": "1"}  # fmt: skip
    return page(client.post("/admin/ladder/game/enter-round/", data))


@pytest.mark.parametrize("door", [_player_by_csv, _player_by_round_entry])
def test_a_player_typed_as_a_fide_id_in_other_digits_is_refused_alike(client, boss, tmp_path, door):
    PlayerFactory(name="Anna", fide_id=12345)
    PlayerFactory(name="Bert")
    client.force_login(boss)

    assert FIDE_ID_MESSAGE.format("١٢٣٤٥") in door(client, tmp_path, "١٢٣٤٥")
    assert not Game.objects.exists()
