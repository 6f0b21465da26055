"""Games: list with filters, record, correct, delete; closed periods answer 409."""

from http import HTTPStatus

import pytest

from ladder.records import Game, RatingPeriod

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/games/"


def ids(response) -> list[int]:
    return [row["id"] for row in response.json()["results"]]


def test_list_newest_first_with_players_and_period(anon, club):
    response = anon.get(GAMES)

    assert response.status_code == HTTPStatus.OK
    assert ids(response) == [club.april.pk, club.draw.pk, club.win.pk]
    first = response.json()["results"][0]
    assert first["white"] == {
        "id": club.anna.pk,
        "name": "Anna Alekhina",
        "fide_id": 4100001,
        "title": "",
        "rating": club.anna.rating,
    }
    assert first["period"]["label"] == "2026-04"
    assert first["date"] == "2026-04-05"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("period_label=2026-03", ["draw", "win"]),
        ("player={cleo}", ["draw"]),
        ("white={anna}", ["april", "win"]),
        ("black={boris}", ["april", "win"]),
        ("event=cup", ["win"]),
        ("date_from=2026-03-11&date_to=2026-04-30", ["april", "draw"]),
        ("result=1/2-1/2", ["draw"]),
        ("ordering=date", ["win", "draw", "april"]),
    ],
)
def test_filters(anon, club, query, expected):
    query = query.format(cleo=club.cleo.pk, anna=club.anna.pk, boris=club.boris.pk)

    response = anon.get(f"{GAMES}?{query}")

    assert ids(response) == [getattr(club, name).pk for name in expected]


def test_filter_by_period_id(anon, club):
    response = anon.get(f"{GAMES}?period={club.april_period.pk}")

    assert ids(response) == [club.april.pk]


def test_bad_filter_is_400_with_the_field(anon, club):
    response = anon.get(f"{GAMES}?date_from=yesterday&player=x")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert set(response.json()) == {"date_from", "player"}


def test_detail_and_404(anon, club):
    assert anon.get(f"{GAMES}{club.win.pk}/").json()["result"] == "1-0"
    response = anon.get(f"{GAMES}999999/")
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response.json() == {"detail": "No Game matches the given query."}


def test_record_a_game_recomputes(editor, club, committed):
    with committed():
        response = editor.post(
            GAMES,
            {"date": "2026-04-20", "white": club.cleo.pk, "black": club.anna.pk, "result": "0-1"},
            format="json",
        )

    assert response.status_code == HTTPStatus.CREATED
    body = response.json()
    assert body["period"]["label"] == "2026-04"
    assert body["black"]["id"] == club.anna.pk
    game = Game.objects.get(pk=body["id"])
    assert game.event == ""
    assert club.cleo.rating_changes.filter(period=game.period).exists()


def test_record_a_game_creates_the_months_period(editor, club, committed):
    with committed():
        response = editor.post(
            GAMES,
            {"date": "2026-06-02", "white": club.anna.pk, "black": club.boris.pk, "result": "1-0"},
            format="json",
        )

    assert response.status_code == HTTPStatus.CREATED
    assert RatingPeriod.objects.filter(label="2026-06").exists()


@pytest.mark.parametrize(
    ("payload", "errors"),
    [
        (
            {"date": "2026-04-20", "white": "{anna}", "black": "{anna}", "result": "1-0"},
            {"black": ["A player cannot play themselves."]},
        ),
        (
            {"date": "2026-04-20", "white": "{anna}", "black": 999999, "result": "1-0"},
            {"black": ['Invalid pk "999999" - object does not exist.']},
        ),
        (
            {"date": "2026-04-20", "white": "{anna}", "black": "{boris}", "result": "2-0"},
            {"result": ["'2-0' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0."]},
        ),
        (
            {"date": "1492-10-12", "white": "{anna}", "black": "{boris}", "result": "1-0"},
            {"date": ["A game must be dated between 1900-01-01 and 2999-12-31."]},
        ),
        ({}, {f: ["This field is required."] for f in ("date", "white", "black", "result")}),
    ],
)
def test_record_a_bad_game_is_400_with_field_errors(editor, club, payload, errors):
    names = {"{anna}": club.anna.pk, "{boris}": club.boris.pk}
    payload = {key: names.get(value, value) for key, value in payload.items()}

    response = editor.post(GAMES, payload, format="json")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == errors
    assert Game.objects.count() == 3


def test_correct_a_game(editor, club, committed):
    with committed():
        response = editor.patch(f"{GAMES}{club.april.pk}/", {"result": "1-0"}, format="json")

    assert response.status_code == HTTPStatus.OK
    assert response.json()["result"] == "1-0"
    club.anna.refresh_from_db()
    assert club.anna.rating_changes.get(period=club.april_period).change > 0


def test_put_a_game(editor, club, committed):
    payload = {
        "date": "2026-04-06",
        "white": club.boris.pk,
        "black": club.anna.pk,
        "result": "0-1",
        "event": "Spring Open",
        "round": "2",
    }
    with committed():
        response = editor.put(f"{GAMES}{club.april.pk}/", payload, format="json")

    assert response.status_code == HTTPStatus.OK
    assert response.json()["round"] == "2"
    assert response.json()["white"]["id"] == club.boris.pk


def test_delete_a_game(editor, club, committed):
    with committed():
        response = editor.delete(f"{GAMES}{club.april.pk}/")

    assert response.status_code == HTTPStatus.NO_CONTENT
    assert not Game.objects.filter(pk=club.april.pk).exists()
    assert not club.anna.rating_changes.filter(period=club.april_period).exists()


CLOSED = (
    "The period 2026-03 is closed; its games are frozen. Reopen it first (admin action "
    "'Reopen', or: manage.py reopen_period 2026-03 --reason '...')."
)


def test_record_into_a_closed_period_is_409(editor, closed_march):
    club = closed_march
    response = editor.post(
        GAMES,
        {"date": "2026-03-20", "white": club.anna.pk, "black": club.boris.pk, "result": "1-0"},
        format="json",
    )

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {"date": [CLOSED]}


def test_correct_a_game_of_a_closed_period_is_409(editor, closed_march):
    response = editor.patch(f"{GAMES}{closed_march.win.pk}/", {"result": "0-1"}, format="json")

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {"date": [CLOSED]}
    assert Game.objects.get(pk=closed_march.win.pk).result == "1-0"


def test_move_a_game_into_a_closed_period_is_409(editor, closed_march):
    response = editor.patch(
        f"{GAMES}{closed_march.april.pk}/", {"date": "2026-03-30"}, format="json"
    )

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {"date": [CLOSED]}


def test_delete_a_game_of_a_closed_period_is_409(editor, closed_march):
    response = editor.delete(f"{GAMES}{closed_march.win.pk}/")

    assert response.status_code == HTTPStatus.CONFLICT
    assert Game.objects.filter(pk=closed_march.win.pk).exists()
