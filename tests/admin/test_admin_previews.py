"""The admin's previews: the game form's Preview button, and the delete confirmations, say
what the change would do to the ratings and save nothing."""

from __future__ import annotations

import html
from datetime import date
from http import HTTPStatus

import pytest

from ladder.records import Game, Player
from ratings.models import RatingRun
from tests.factories import GameFactory
from tests.previews import reopened_october

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(committed, client):
    club = reopened_october(committed)
    client.force_login(club["user"])
    return club


def form_data(game: Game, **changes) -> dict:
    data = {
        "date": game.date.isoformat(), "white": game.white_id, "black": game.black_id,
        "result": game.result, "event": game.event, "round": game.round,
        "time_control": game.time_control,
    }  # fmt: skip
    return {**data, **changes}


def text(response) -> str:
    return html.unescape(response.content.decode())


def ratings() -> dict[str, int | None]:
    return dict(Player.objects.values_list("name", "rating"))


def test_the_change_form_offers_preview_beside_save(client, club):
    response = client.get(f"/admin/ladder/game/{club['game'].pk}/change/")
    assert 'name="_preview"' in response.content.decode()


def test_preview_shows_old_and_new_ratings_and_saves_nothing(client, club):
    game, before, runs = club["game"], ratings(), RatingRun.objects.count()
    url = f"/admin/ladder/game/{game.pk}/change/"
    response = client.post(url, form_data(game, result="0-1", _preview="Preview"))

    assert response.status_code == HTTPStatus.OK  # the form again, not a redirect
    page = text(response)
    assert f"Correcting game #{game.pk} would recompute 2026-10 to 2026-11: 2 players' " in page
    assert "1807 → 1787" in page  # Ann after October, hand-checked
    assert "+7 → -13" in page
    assert 'value="0-1" selected' in page  # the form as posted, ready to save
    assert Game.objects.get(pk=game.pk).result == "1-0"
    assert ratings() == before
    assert RatingRun.objects.count() == runs


def test_preview_then_save_gives_what_the_preview_said(client, club, committed):
    game, before = club["game"], ratings()
    url = f"/admin/ladder/game/{game.pk}/change/"
    page = text(client.post(url, form_data(game, result="0-1", _preview="Preview")))
    with committed():
        client.post(url, form_data(game, result="0-1", _save="Save"))
    after = ratings()
    for name in ("Ann", "Ben"):
        assert f"<tr><td>{name}</td><td>{before[name]}</td><td>{after[name]}</td></tr>" in page


def test_a_preview_with_bad_input_shows_the_forms_errors(client, club):
    game = club["game"]
    url = f"/admin/ladder/game/{game.pk}/change/"
    page = text(client.post(url, form_data(game, black=game.white_id, _preview="Preview")))
    assert "A player cannot play themselves." in page
    assert 'id="rating-preview"' not in page


def test_a_preview_of_a_new_game(client, club):
    data = form_data(club["game"], date="2026-10-20", result="0-1", _preview="Preview")
    page = text(client.post("/admin/ladder/game/add/", data))
    assert "Entering 1 game would recompute 2026-10 to 2026-11" in page
    assert Game.objects.count() == 3


def test_the_delete_confirmation_says_what_the_deletion_would_do(client, club):
    game = club["game"]
    page = text(client.get(f"/admin/ladder/game/{game.pk}/delete/"))
    assert f"Deleting game #{game.pk} would recompute 2026-10 to 2026-11" in page
    assert "Are you sure" in page
    assert Game.objects.filter(pk=game.pk).exists()


def test_the_bulk_delete_confirmation_says_what_the_deletion_would_do(client, club):
    ids = list(Game.objects.filter(period=club["october"]).values_list("pk", flat=True))
    data = {"action": "delete_selected", "_selected_action": ids}
    page = text(client.post("/admin/ladder/game/", data))
    assert "Deleting 2 games would recompute 2026-10 to 2026-11" in page
    assert "Are you sure" in page
    assert Game.objects.count() == 3


def test_the_preview_costs_the_same_queries_whatever_the_number_of_games(
    client, club, committed, django_assert_max_num_queries
):
    game = club["game"]
    url = f"/admin/ladder/game/{game.pk}/change/"
    # 122 on SQLite: the preview also follows the standard change to the lists it seeds
    # (R&B 7.2.1), two queries more.
    with django_assert_max_num_queries(125) as few:
        client.post(url, form_data(game, result="0-1", _preview="Preview"))
    with committed():
        GameFactory.create_batch(30, date=date(2026, 10, 12), white=club["cy"], black=club["ben"])
    with django_assert_max_num_queries(len(few)):
        client.post(url, form_data(game, result="0-1", _preview="Preview"))


ROUND_URL = "/admin/ladder/game/enter-round/"


def round_data(day: str, paste: str, button: str) -> dict:
    return {
        "date": day, "event": "", "round": "3", "paste": paste, "time_control": "",
        "rows-TOTAL_FORMS": "1", "rows-INITIAL_FORMS": "0", "rows-MIN_NUM_FORMS": "0",
        "rows-MAX_NUM_FORMS": "1000", button: "1",
    }  # fmt: skip


def test_round_entry_into_a_reopened_period_previews_the_ratings(client, club, committed):
    before, counts = ratings(), Game.objects.count()
    page = text(client.post(ROUND_URL, round_data("2026-10-20", "Cy - Ann 1-0", "_preview")))

    assert "Entering 1 game would recompute 2026-10 to 2026-11" in page
    assert 'id="save-round"' in page  # the preview step comes before the saving
    assert Game.objects.count() == counts
    with committed():
        client.post(ROUND_URL, round_data("2026-10-20", "Cy - Ann 1-0", "_save"))
    after = ratings()
    for name in ("Ann", "Cy"):
        assert f"<tr><td>{name}</td><td>{before[name]}</td><td>{after[name]}</td></tr>" in page


def test_round_entry_into_an_ordinary_open_period_only_checks_the_lines(client, club):
    page = text(client.post(ROUND_URL, round_data("2026-12-02", "Cy - Ann 1-0", "_preview")))
    assert 'id="save-round"' in page
    assert 'id="rating-preview"' not in page


def test_round_entry_preview_with_a_bad_line_shows_the_line_problem(client, club):
    page = text(client.post(ROUND_URL, round_data("2026-10-20", "Cy - Cy 1-0", "_preview")))
    assert "A player cannot play themselves." in page
    assert 'id="rating-preview"' not in page


def test_the_delete_confirmation_costs_the_same_queries_whatever_the_number_of_games(
    client, club, committed, django_assert_max_num_queries
):
    url = f"/admin/ladder/game/{club['game'].pk}/delete/"
    # 122 on SQLite: the preview also follows the standard change to the lists it seeds
    # (R&B 7.2.1), two queries more.
    with django_assert_max_num_queries(125) as few:
        client.get(url)
    with committed():
        GameFactory.create_batch(30, date=date(2026, 10, 12), white=club["cy"], black=club["ben"])
    with django_assert_max_num_queries(len(few)):
        client.get(url)
