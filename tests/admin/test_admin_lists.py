"""FIDE's three lists in the admin (FIDE.md 9): round entry takes a list or a time control once for
the round, the game form takes the list; a club that keeps one list sees no list selector."""

from http import HTTPStatus

import pytest
from django.test import override_settings

from ladder.records import Game, RatingList
from ratings.models import RatingChange

pytestmark = pytest.mark.django_db

ROUND_URL = "/admin/ladder/game/enter-round/"
ADD_URL = "/admin/ladder/game/add/"
ROWS = 10


def post_round(client, *, paste, save=False, **header):
    data = {
        "date": "2026-03-14",
        "event": "",
        "round": "",
        "paste": paste,
        "rows-TOTAL_FORMS": str(ROWS),
        "rows-INITIAL_FORMS": "0",
        "rows-MIN_NUM_FORMS": "0",
        "rows-MAX_NUM_FORMS": "1000",
    } | header
    data["_save" if save else "_preview"] = "1"
    return client.post(ROUND_URL, data)


def game_data(club, **changes) -> dict:
    return {
        "date": "2026-03-10",
        "white": club["Alice Brown"].pk,
        "black": club["Bob Green"].pk,
        "result": "1-0",
        "event": "",
        "round": "",
    } | changes


PASTE = "Alice Brown - Bob Green 1-0\nCarol White - Dan Black ½-½"


def test_round_entry_offers_the_list_and_the_time_control(admin_client, club):
    content = admin_client.get(ROUND_URL).content.decode()
    assert 'name="rating_list"' in content
    assert 'name="time_control"' in content
    for value in RatingList.values:
        assert f'<option value="{value}"' in content


def test_a_round_with_a_rapid_time_control_is_rated_on_the_rapid_list(
    admin_client, club, committed
):
    with committed():
        response = post_round(admin_client, paste=PASTE, save=True, time_control="15+10")
    assert response.status_code == HTTPStatus.FOUND
    games = set(Game.objects.values_list("rating_list", "time_control"))
    assert games == {(RatingList.RAPID, "15+10")}
    assert Game.objects.count() == 2
    assert set(RatingChange.objects.values_list("rating_list", flat=True)) == {RatingList.RAPID}


def test_a_round_with_the_list_selector(admin_client, club):
    response = post_round(admin_client, paste=PASTE, save=True, rating_list="blitz")
    assert response.status_code == HTTPStatus.FOUND
    assert set(Game.objects.values_list("rating_list", "time_control")) == {(RatingList.BLITZ, "")}


def test_a_round_whose_list_contradicts_its_time_control_saves_nothing(admin_client, club):
    response = post_round(
        admin_client, paste=PASTE, save=True, rating_list="standard", time_control="3+2"
    )
    assert response.status_code == HTTPStatus.OK
    content = response.content.decode()
    assert "A 3+2 game is a blitz game" in content
    assert content.count("A 3+2 game is a blitz game") == 1  # once for the round
    assert not Game.objects.exists()


def test_a_round_with_a_bad_time_control_saves_nothing(admin_client, club):
    response = post_round(admin_client, paste=PASTE, save=True, time_control="soon")
    assert response.status_code == HTTPStatus.OK
    assert "&#x27;soon&#x27; is not a time control" in response.content.decode()
    assert not Game.objects.exists()


def test_a_round_without_list_or_time_control_is_standard(admin_client, club):
    post_round(admin_client, paste=PASTE, save=True)
    assert set(Game.objects.values_list("rating_list", flat=True)) == {RatingList.STANDARD}


def test_the_game_form_takes_the_list(admin_client, club, march):
    content = admin_client.get(ADD_URL).content.decode()
    assert 'name="rating_list"' in content
    assert 'name="time_control"' in content
    response = admin_client.post(ADD_URL, game_data(club, rating_list="rapid"))
    assert response.status_code == HTTPStatus.FOUND
    assert Game.objects.get().rating_list == RatingList.RAPID


def test_the_game_form_puts_a_time_control_on_its_list(admin_client, club, march):
    admin_client.post(ADD_URL, game_data(club, time_control="3+2"))
    game = Game.objects.get()
    assert (game.rating_list, game.time_control) == (RatingList.BLITZ, "3+2")


def test_the_game_form_refuses_a_list_its_time_control_contradicts(admin_client, club, march):
    response = admin_client.post(
        ADD_URL, game_data(club, rating_list="standard", time_control="15+10")
    )
    assert response.status_code == HTTPStatus.OK
    form = response.context["adminform"].form
    assert "A 15+10 game is a rapid game" in " ".join(form.errors["rating_list"])
    assert not Game.objects.exists()


@override_settings(LADDER_LISTS=["standard"])
def test_a_club_with_one_list_sees_no_list_selector(admin_client, club, march):
    content = admin_client.get(ROUND_URL).content.decode()
    assert 'name="rating_list"' not in content
    assert 'name="time_control"' in content
    content = admin_client.get(ADD_URL).content.decode()
    assert 'name="rating_list"' not in content
    post_round(admin_client, paste=PASTE, save=True)
    assert set(Game.objects.values_list("rating_list", flat=True)) == {RatingList.STANDARD}
    response = admin_client.post(ADD_URL, game_data(club, date="2026-03-20"))
    assert response.status_code == HTTPStatus.FOUND
    assert Game.objects.count() == 3


@override_settings(LADDER_LISTS=["standard"])
def test_a_club_with_one_list_refuses_a_faster_time_control(admin_client, club, march):
    response = post_round(admin_client, paste=PASTE, save=True, time_control="15+10")
    assert response.status_code == HTTPStatus.OK
    assert "The club keeps no rapid list (it keeps: standard)." in response.content.decode()
    assert not Game.objects.exists()
