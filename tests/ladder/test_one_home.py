"""One rule, one home: each rule below is written once, and every door that takes the input
answers the same bad value with the same sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from html import unescape
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from ladder.api.serializers import CalculatorSerializer
from ladder.records import (
    ENTRY_RATING_FLOOR,
    ENTRY_RATING_MESSAGE,
    MAX_K,
    MAX_RATING,
    MIN_K,
    Game,
    RatingList,
    RatingPeriod,
    Result,
    name_key,
    name_keys,
    parse_list,
)
from ladder.web.forms import CalculatorForm
from ladder.writes import actions
from ratings.models import Publication
from ratings.rules import calculator, engine, fide
from tests.commands import refused_import as import_file
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db


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


# --- bounds and the calculator's options --------------------------------------------------------


def _on_page(client, fields: dict) -> str:
    """The calculator page's error for ``fields`` (one game, or an event when games is given)."""
    params = {"own": "1500", "opponent": "1600", "k_preset": "20"}
    for name, value in fields.items():
        if name == "rating":
            params["own"] = str(value)
        elif name == "k":
            params.update(k_preset="other", k_other=str(value))
        elif name == "games":
            params.update(mode="event", games="\n".join(f"{o} {s}" for o, s in value))
    html = client.get(reverse("ladder:calculator"), params).content.decode()
    return unescape(html.replace("&#x27;", "'"))


def _by_api(fields: dict) -> str:
    body: dict = {"rating": 1500, "k": 20, "opponent": 1600}
    for name, value in fields.items():
        if name == "games":
            body.pop("opponent")
            value = [{"opponent": o, "score": s} for o, s in value]
        body[name] = value
    response = APIClient().post("/api/v1/calculator/", body, format="json")
    assert response.status_code == 400
    return str(response.json())


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"k": 0}, "K must be at least 1."),
        ({"k": 101}, "K must be at most 100."),
        ({"rating": 3501}, "A rating cannot be above 3500."),
        ({"rating": -1}, "A rating cannot be below 0."),
        ({"games": [(1600, "2")]}, "'2' is not a score; use 1, ½ or 0 (also win, draw, loss"),
        ({"games": [(1600, "1")] * 201}, "Enter at most 200 games."),
    ],
)
def test_the_calculator_refuses_alike_on_the_page_and_in_the_api(client, fields, message):
    assert message in _on_page(client, fields)
    assert message in _by_api(fields)


def test_an_event_of_the_most_games_is_calculated_at_both_doors(client):
    games = [(1600, "1")] * calculator.MAX_EVENT_GAMES
    assert "Enter at most" not in _on_page(client, {"games": games})
    body = {"rating": 1500, "k": 20, "games": [{"opponent": 1600, "score": "1"}] * 200}
    assert APIClient().post("/api/v1/calculator/", body, format="json").status_code == 200


def test_the_page_and_the_api_offer_the_rules_methods_and_k_presets():
    assert [value for value, _ in CalculatorForm.METHOD_CHOICES] == list(fide.METHODS)
    field = CalculatorSerializer().fields["method"]
    assert list(field.choices) == list(fide.METHODS)
    presets = [value for value, _ in CalculatorForm.K_CHOICES][:-1]
    assert presets == [str(k) for k in calculator.K_PRESETS]


@pytest.mark.parametrize("club_k", ["0", "101"])
def test_the_club_k_setting_reads_the_same_bounds(club_k):
    run = subprocess.run(
        [sys.executable, "-c", "import ladder.settings"],
        env={**os.environ, "LADDER_CLUB_K": club_k, "DJANGO_DEBUG": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0
    assert f"LADDER_CLUB_K must be a whole number from {MIN_K} to {MAX_K}" in run.stderr


@pytest.mark.parametrize("field", ["entry_rating", "rapid_entry_rating", "blitz_entry_rating"])
@pytest.mark.parametrize("value", [ENTRY_RATING_FLOOR - 1, MAX_RATING + 1])
def test_the_database_holds_the_entry_rating_to_the_validators_bounds(field, value):
    player = PlayerFactory.build(**{field: value})
    with pytest.raises(ValidationError) as error:
        player.validate_constraints()
    assert error.value.messages == [ENTRY_RATING_MESSAGE]
    with pytest.raises(IntegrityError), transaction.atomic():
        player.save()


# --- which list a request asks for --------------------------------------------------------------


def test_the_lists_are_the_rules_lists():
    assert tuple(RatingList.values) == fide.LISTS


@pytest.mark.parametrize(
    ("lists", "value", "expected"),
    [
        (["standard", "rapid", "blitz"], None, "standard"),
        (["standard", "rapid", "blitz"], "", "standard"),
        (["standard", "rapid", "blitz"], " Rapid ", "rapid"),
        (["blitz"], None, "blitz"),
        (["rapid", "blitz"], "BLITZ", "blitz"),
    ],
)
def test_a_list_is_read_one_way(settings, lists, value, expected):
    settings.LADDER_LISTS = lists
    assert parse_list(value) == expected


LIST_READS = [
    "/api/v1/rating-list/?list={value}",
    "/api/v1/players/{ivan}/history/?list={value}",
    "/api/v1/periods/{period}/?list={value}",
    "/api/v1/players/?list={value}",
    "/api/v1/players/?ordering=-rating&list={value}",
    "/api/v1/games/?list={value}",
    "/api/v1/rating-runs/?list={value}",
]


@pytest.mark.parametrize(
    ("lists", "value", "message"),
    [
        (["standard", "rapid", "blitz"], "bullet", "'bullet' is not a list; use standard, rapid "
         "or blitz."),
        (["standard"], "rapid", "The club keeps no rapid list (it keeps: standard)."),
    ],
)  # fmt: skip
def test_a_list_the_club_keeps_not_is_refused_alike_at_every_door(
    settings, api, lists, value, message
):
    settings.LADDER_LISTS = lists
    ivan, anna = PlayerFactory(), PlayerFactory()
    period = PeriodFactory()
    for path in LIST_READS:
        response = api.get(path.format(ivan=ivan.pk, period=period.pk, value=value))
        assert response.status_code == 400, path
        assert response.json() == {"list": [message]}, path
    game = {"date": str(period.start), "white": ivan.pk, "black": anna.pk, "result": "1-0",
            "rating_list": value}  # fmt: skip
    response = api.post("/api/v1/games/", game, format="json")
    assert response.json()["rating_list"] == [message]
    assert not Game.objects.exists()


# --- the name-matching key ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "listed"),
    [
        ("ivan IVANCUK", "Ivan Ivančuk"),
        ("  Ivan\t Ivančuk ", "Ivan Ivančuk"),
        ("Ivan Ivanc\u030cuk", "Ivan Ivančuk"),  # the same letter, decomposed
        ("STRASSE", "Straße"),
    ],
)
def test_a_name_has_one_key(typed, listed):
    assert name_key(typed) == name_key(listed)


def test_a_name_written_last_name_first_has_both_keys():
    assert name_keys("Ivančuk, Vasyl") == {"ivancuk, vasyl", "vasyl ivancuk"}


def _name_by_file(client, tmp_path, white: str) -> str:
    text = f"date,white,black,result\n2026-03-02,{white},Bert Black,1-0\n"
    return import_file(tmp_path, "import_games", text)


def _name_by_round_entry(client, tmp_path, white: str) -> str:
    data = {"date": "2026-03-02", "event": "", "round": "", "paste": f"{white} - Bert Black 1-0",
            "rows-TOTAL_FORMS": "0", "rows-INITIAL_FORMS": "0", "_save": "1"}  # fmt: skip
    response = client.post("/admin/ladder/game/enter-round/", data)
    return unescape(response.content.decode())


@pytest.mark.parametrize("door", [_name_by_file, _name_by_round_entry])
def test_a_misspelt_name_is_refused_alike_at_every_door(client, boss, tmp_path, door):
    PlayerFactory(name="Ivan Ivančuk")
    PlayerFactory(name="Bert Black")
    client.force_login(boss)

    shown = door(client, tmp_path, "Ivan Ivanchukk")

    assert "No player is named 'Ivan Ivanchukk'. Did you mean 'Ivan Ivančuk'?" in shown
    assert not Game.objects.exists()


def test_a_name_typed_without_its_accents_is_found(tmp_path):
    ivan = PlayerFactory(name="Ivan Ivančuk")
    PlayerFactory(name="Bert Black")
    path = tmp_path / "games.csv"
    path.write_text("date,white,black,result\n2026-03-02, ivan  IVANCUK ,Bert Black,1-0\n")

    call_command("import_games", str(path), stdout=StringIO())

    assert Game.objects.get().white == ivan


# --- was this period reopened -------------------------------------------------------------------


def _reopened(period: RatingPeriod) -> tuple[bool, bool]:
    period.refresh_from_db()
    return period.is_reopened, RatingPeriod.objects.reopened().filter(pk=period.pk).exists()


def test_a_period_is_reopened_from_its_reopen_to_its_next_close(committed):
    with committed():
        march = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31), label="2026-03")
        GameFactory(date=date(2026, 3, 5))
    assert _reopened(march) == (False, False)  # open, never closed
    with committed():
        actions.close_period(period=march)
    assert _reopened(march) == (False, False)
    with committed():
        actions.reopen_period(period=march, reason="Round 1 was entered reversed.")
    assert _reopened(march) == (True, True)
    assert march.last_reopen().reason == "Round 1 was entered reversed."
    with committed():
        game = Game.objects.get()
        actions.correct_game(game=game, changes={"result": "0-1"})
        actions.close_period(period=march)
    assert _reopened(march) == (False, False)
    revision = Publication.objects.get(period=march, rating_list="standard", revision=2)
    assert revision.reason == "Round 1 was entered reversed."
