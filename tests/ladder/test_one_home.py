"""One rule, one home: each rule below is written once, and every door that takes the input
answers the same bad value with the same sentence."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.records import Game, Result
from ratings.rules import engine
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss():
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.fixture
def api(boss):
    client = APIClient()
    client.force_authenticate(boss)
    return client


def import_file(tmp_path, command: str, text: str) -> str:
    path = tmp_path / "file.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command(command, str(path), stdout=StringIO())
    return str(error.value)


# --- result codes: the rules' constants --------------------------------------------------------


def test_the_stored_results_are_the_rules_codes():
    assert tuple(Result.values) == engine.RESULTS
    assert set(engine.WHITE_SCORE) <= set(Result.values)


RESULT_MESSAGE = "'2-0' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0."


def _result_by_api(api, tmp_path, white, black) -> str:
    body = {"date": "2026-03-02", "white": white.pk, "black": black.pk, "result": "2-0"}
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    return response.json()["result"][0]


def _result_by_file(api, tmp_path, white, black) -> str:
    text = f"date,white,black,result\n2026-03-02,{white.name},{black.name},2-0\n"
    return import_file(tmp_path, "import_games", text)


@pytest.mark.parametrize("door", [_result_by_api, _result_by_file])
def test_a_bad_result_is_refused_alike_at_every_door(api, tmp_path, door):
    white, black = PlayerFactory(name="Anna"), PlayerFactory(name="Bert")

    assert RESULT_MESSAGE in door(api, tmp_path, white, black)
    assert not Game.objects.exists()
