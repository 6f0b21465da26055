"""Players: list, detail, history, create and update."""

from http import HTTPStatus

import pytest

from ladder.records import Player

pytestmark = pytest.mark.django_db

PLAYERS = "/api/v1/players/"


def test_list_is_paginated_and_carries_the_current_state(anon, club):
    response = anon.get(PLAYERS)

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["count"] == 3
    assert {"next", "previous", "results"} <= body.keys()
    anna = next(row for row in body["results"] if row["id"] == club.anna.pk)
    assert anna["rating"] == club.anna.rating
    assert anna["k"] == {"value": 20, "reason": "52 rated games, never 2400+"}
    assert anna["level"] == ""
    assert anna["inactive"] is False


def test_detail_has_k_level_inactive_and_iso_dates(anon, club):
    response = anon.get(f"{PLAYERS}{club.anna.pk}/")

    body = response.json()
    assert response.status_code == HTTPStatus.OK
    assert body["name"] == "Anna Alekhina"
    assert body["rated_games"] == 52
    assert body["last_rated_on"] == "2026-04-05"
    assert body["created"].endswith("Z")


def test_unrated_player_has_no_k(anon, club):
    body = anon.get(f"{PLAYERS}{club.cleo.pk}/").json()

    assert body["rating"] is None
    assert body["k"] is None


def test_level_is_the_title_else_the_rating_level(anon, db):
    titled = Player.objects.create(name="Titled", title="IM", entry_rating=2350)
    strong = Player.objects.create(name="Strong", entry_rating=2420)

    assert anon.get(f"{PLAYERS}{titled.pk}/").json()["level"] == "IM"
    assert anon.get(f"{PLAYERS}{strong.pk}/").json()["level"] == "IM level"


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("search=boris", ["Boris Botvin"]),
        ("search=4100001", ["Anna Alekhina"]),
        # Characters that str.isdigit() accepts but int() does not, and a number beyond bigint.
        ("search=%C2%B2", []),
        ("search=%D9%A1", []),
        ("search=99999999999999999999999", []),
        ("rated=false", ["Cleo Carls"]),
        ("rated=true&ordering=-rating", ["Anna Alekhina", "Boris Botvin"]),
        ("rated=true&ordering=rating", ["Boris Botvin", "Anna Alekhina"]),
        ("fide_id=4100002", ["Boris Botvin"]),
        ("rating_min=1900", ["Anna Alekhina"]),
    ],
)
def test_filters_and_ordering(anon, club, query, names):
    body = anon.get(f"{PLAYERS}?{query}").json()

    assert [row["name"] for row in body["results"]] == names


def test_history_explains_every_game(anon, club):
    response = anon.get(f"{PLAYERS}{club.anna.pk}/history/")

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["count"] == 2
    april, march = body["results"]  # newest first
    assert april["period"]["label"] == "2026-04"
    assert march["period"]["label"] == "2026-03"
    assert march["rating_before"] == 2000
    assert march["k"] == 20
    assert march["change"] == 5
    assert march["rating_after"] == 2005
    (line,) = march["lines"]
    assert line["opponent"]["name"] == "Boris Botvin"
    assert line["colour"] == "white"
    assert line["opponent_rating"] == 1800
    assert line["difference_used"] == 200
    assert line["expected"] == "0.76"
    assert line["score"] == "1.00"
    assert line["delta"] == "0.24"
    assert line["rated"] is True


def test_history_of_unknown_player_is_404(anon, db):
    response = anon.get(f"{PLAYERS}999999/history/")

    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response.json() == {"detail": "No Player matches the given query."}


def test_create_player(editor, db, committed):
    with committed():
        response = editor.post(
            PLAYERS,
            {"name": "Dora Dvoretsky", "birth_year": 2011, "entry_rating": 1650},
            format="json",
        )

    assert response.status_code == HTTPStatus.CREATED
    body = response.json()
    assert body["rating"] == 1650
    assert body["k"]["value"] == 40
    assert Player.objects.get(pk=body["id"]).name == "Dora Dvoretsky"


def test_create_player_runs_the_model_checks(editor, db):
    response = editor.post(
        PLAYERS, {"name": "X", "entry_rating": 1800, "entry_peak_rating": 1700}, format="json"
    )

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "entry_peak_rating": ["The peak rating cannot be lower than the entry rating."]
    }


def test_entry_rated_games_are_bounded(editor, club):
    response = editor.patch(
        f"{PLAYERS}{club.boris.pk}/", {"entry_rated_games": 2**63 - 1}, format="json"
    )

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "entry_rated_games": ["Ensure this value is less than or equal to 100000."]
    }


def test_create_player_refuses_a_taken_fide_id(editor, club):
    response = editor.post(PLAYERS, {"name": "Copy", "fide_id": 4100001}, format="json")

    assert response.status_code == HTTPStatus.CONFLICT  # another player holds it
    assert "fide_id" in response.json()


def test_update_entry_rating_recomputes(editor, club, committed):
    with committed():
        response = editor.patch(f"{PLAYERS}{club.boris.pk}/", {"entry_rating": 1900}, format="json")

    assert response.status_code == HTTPStatus.OK
    club.anna.refresh_from_db()
    # Against 1900 instead of 1800, Anna's March win is worth less (D 100: PD 0.64, +7).
    history = club.anna.rating_changes.order_by("period__start").first()
    assert history.change == 7


def test_put_replaces_the_data(editor, club, committed):
    with committed():
        response = editor.put(
            f"{PLAYERS}{club.cleo.pk}/", {"name": "Cleo Carlsen", "birth_year": 2012}, format="json"
        )

    assert response.status_code == HTTPStatus.OK
    assert response.json()["name"] == "Cleo Carlsen"


def test_derived_fields_are_read_only(editor, club, committed):
    with committed():
        response = editor.patch(f"{PLAYERS}{club.cleo.pk}/", {"rating": 2800}, format="json")

    assert response.status_code == HTTPStatus.OK
    assert response.json()["rating"] is None


def test_players_cannot_be_deleted_through_the_api(superuser, club):
    response = superuser.delete(f"{PLAYERS}{club.cleo.pk}/")

    assert response.status_code == HTTPStatus.METHOD_NOT_ALLOWED
