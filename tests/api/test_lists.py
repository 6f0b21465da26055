"""FIDE's three lists through the API (FIDE.md 9): games on a list, players' ratings keyed by
list, ``?list=`` on every read, and the v1 fields that keep meaning the standard list."""

from datetime import date
from http import HTTPStatus
from types import SimpleNamespace

import pytest
from django.test import override_settings

from ladder.records import Game, Player
from ratings.models import RatingRun
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/games/"
PLAYERS = "/api/v1/players/"
LIST = "/api/v1/rating-list/"
LIST_KEYS = {
    "rating", "rated_games", "peak_rating", "last_rated_on", "last_change", "k", "inactive",
    "entry_rating", "entry_rated_games", "entry_peak_rating",
    "official_rating", "official_list", "provisional",
}  # fmt: skip


@pytest.fixture
def lists(db, committed) -> SimpleNamespace:
    """Two players rated on every list (different ratings on each), a standard game and a rapid
    game in March 2026."""
    with committed():
        ivan = PlayerFactory(
            name="Ivan Ivanchuk",
            entry_rating=2000,
            rapid_entry_rating=1700,
            rapid_entry_rated_games=40,
            blitz_entry_rating=1500,
            blitz_entry_rated_games=40,
        )
        judit = PlayerFactory(
            name="Judit Polgar",
            entry_rating=1800,
            rapid_entry_rating=2100,
            rapid_entry_rated_games=40,
            blitz_entry_rating=1600,
            blitz_entry_rated_games=40,
        )
        standard = GameFactory(
            white=ivan, black=judit, result="1-0", date=date(2026, 3, 5), time_control="90+30"
        )
        rapid = GameFactory(
            white=judit,
            black=ivan,
            result="1-0",
            date=date(2026, 3, 6),
            rating_list="rapid",
            time_control="15+10",
        )
    ivan.refresh_from_db()
    judit.refresh_from_db()
    return SimpleNamespace(
        ivan=ivan, judit=judit, standard=standard, rapid=rapid, march=standard.period
    )


def post_game(client, players: SimpleNamespace, **fields):
    body = {
        "date": "2026-03-20",
        "white": players.ivan.pk,
        "black": players.judit.pk,
        "result": "1/2-1/2",
        **fields,
    }
    return client.post(GAMES, body, format="json")


# --- games ----------------------------------------------------------------------------------


def test_a_15_10_game_goes_on_the_rapid_list(editor, lists, committed):
    with committed():
        response = post_game(editor, lists, time_control="15+10")

    assert response.status_code == HTTPStatus.CREATED, response.json()
    body = response.json()
    assert (body["rating_list"], body["time_control"]) == ("rapid", "15+10")
    game = Game.objects.get(pk=body["id"])
    assert game.rating_list == "rapid"
    ivan = Player.objects.get(pk=lists.ivan.pk)
    assert ivan.rapid_rated_games == lists.ivan.rapid_rated_games + 1
    assert ivan.rated_games == lists.ivan.rated_games  # the standard list did not move


def test_a_game_sent_with_its_list(editor, lists, committed):
    with committed():
        response = post_game(editor, lists, rating_list="blitz")

    assert response.status_code == HTTPStatus.CREATED, response.json()
    assert response.json()["rating_list"] == "blitz"
    assert response.json()["time_control"] == ""


def test_no_list_and_no_time_control_is_the_default_list(editor, lists, committed):
    with committed():
        response = post_game(editor, lists, rating_list="")

    assert response.status_code == HTTPStatus.CREATED, response.json()
    assert response.json()["rating_list"] == "standard"


def test_a_rapid_time_control_sent_as_standard_is_refused(editor, lists):
    response = post_game(editor, lists, time_control="15+10", rating_list="standard")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "rapid" in response.json()["rating_list"][0]


def test_a_standard_game_too_fast_for_its_players_is_refused(editor, db):
    players = SimpleNamespace(
        ivan=PlayerFactory(entry_rating=1900), judit=PlayerFactory(entry_rating=1900)
    )

    response = post_game(editor, players, time_control="60+0")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "too fast" in response.json()["time_control"][0]


@pytest.mark.parametrize("value", ["bullet", 3, None])
def test_a_list_that_does_not_exist_is_refused(editor, lists, value):
    response = post_game(editor, lists, rating_list=value)

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json()["rating_list"]


def test_a_bad_time_control_is_refused(editor, lists):
    response = post_game(editor, lists, time_control="fast")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json()["time_control"]


@override_settings(LADDER_LISTS=["standard"])
def test_a_list_the_club_does_not_keep_is_refused(editor, lists):
    response = post_game(editor, lists, rating_list="rapid")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "keeps no rapid list" in response.json()["rating_list"][0]


def test_a_new_time_control_moves_the_game_to_its_list(editor, lists, committed):
    with committed():
        response = editor.patch(
            f"{GAMES}{lists.standard.pk}/", {"time_control": "3+2"}, format="json"
        )

    assert response.status_code == HTTPStatus.OK, response.json()
    assert (response.json()["rating_list"], response.json()["time_control"]) == ("blitz", "3+2")


def test_games_filter_by_list(anon, lists):
    rows = anon.get(f"{GAMES}?list=rapid").json()["results"]

    assert [row["id"] for row in rows] == [lists.rapid.pk]
    assert rows[0]["rating_list"] == "rapid"
    assert anon.get(f"{GAMES}?list=bullet").status_code == HTTPStatus.BAD_REQUEST


# --- players ----------------------------------------------------------------------------------


def test_ratings_are_keyed_by_list_and_v1_fields_stay_standard(anon, lists):
    body = anon.get(f"{PLAYERS}{lists.judit.pk}/").json()

    assert set(body["ratings"]) == {"standard", "rapid", "blitz"}
    for state in body["ratings"].values():
        assert set(state) == LIST_KEYS
    standard, rapid = body["ratings"]["standard"], body["ratings"]["rapid"]
    for name in ("rating", "rated_games", "peak_rating", "last_rated_on", "last_change", "k"):
        assert standard[name] == body[name]
    for name in (
        "entry_rating",
        "entry_rated_games",
        "entry_peak_rating",
        "inactive",
        "official_rating",
        "official_list",
        "provisional",
    ):
        assert standard[name] == body[name]
    judit = Player.objects.get(pk=lists.judit.pk)
    assert body["rating"] == judit.rating
    assert rapid["rating"] == judit.rapid_rating != judit.rating
    assert rapid["rated_games"] == 41
    assert rapid["entry_rating"] == body["rapid_entry_rating"] == 2100
    assert rapid["k"]["value"] in (10, 20, 40)
    assert body["ratings"]["blitz"]["rating"] == 1600  # no blitz game: the entry rating


@override_settings(LADDER_LISTS=["standard"])
def test_a_club_with_one_list_shows_one_key(anon, lists):
    body = anon.get(f"{PLAYERS}{lists.judit.pk}/").json()

    assert list(body["ratings"]) == ["standard"]


def test_rapid_and_blitz_entry_data_are_writable(editor, lists, committed):
    with committed():
        response = editor.patch(
            f"{PLAYERS}{lists.ivan.pk}/",
            {"blitz_entry_rating": 1550, "blitz_entry_peak_rating": 1650},
            format="json",
        )

    assert response.status_code == HTTPStatus.OK, response.json()
    assert response.json()["blitz_entry_rating"] == 1550
    body = editor.get(f"{PLAYERS}{lists.ivan.pk}/").json()  # the run has committed since
    assert body["ratings"]["blitz"]["rating"] == 1550
    assert body["ratings"]["blitz"]["peak_rating"] == 1650
    assert body["entry_rating"] == 2000  # the standard list is untouched


def test_each_lists_peak_is_checked(editor, lists):
    response = editor.patch(
        f"{PLAYERS}{lists.ivan.pk}/", {"rapid_entry_peak_rating": 1600}, format="json"
    )

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "rapid_entry_peak_rating" in response.json()


def test_players_ordering_and_range_follow_the_list(anon, lists, committed):
    with committed():
        PlayerFactory(name="Only Standard", entry_rating=1900)

    def names(query: str) -> list[str]:
        return [row["name"] for row in anon.get(f"{PLAYERS}?{query}").json()["results"]]

    assert names("ordering=-rating&rated=true") == [
        "Ivan Ivanchuk",
        "Only Standard",
        "Judit Polgar",
    ]
    assert names("list=standard&ordering=-rating&rated=true") == names(
        "ordering=-rating&rated=true"
    )
    assert names("list=rapid&ordering=-rating&rated=true") == ["Judit Polgar", "Ivan Ivanchuk"]
    assert names("list=rapid&rated=false") == ["Only Standard"]
    assert names("list=rapid&rating_min=2000") == ["Judit Polgar"]
    assert names("list=blitz&rating_max=1550") == ["Ivan Ivanchuk"]
    assert names("rating_min=1900") == ["Ivan Ivanchuk", "Only Standard"]


def test_players_bad_list_is_400(anon, lists):
    response = anon.get(f"{PLAYERS}?list=bullet")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "list" in response.json()


# --- per-list reads ---------------------------------------------------------------------------


def test_rating_list_per_list(anon, lists):
    standard = anon.get(LIST).json()
    rapid = anon.get(f"{LIST}?list=rapid&period={lists.march.pk}").json()

    assert standard["rating_list"] == "standard"
    assert [row["name"] for row in standard["results"]] == ["Ivan Ivanchuk", "Judit Polgar"]
    assert rapid["rating_list"] == "rapid"
    assert [row["name"] for row in rapid["results"]] == ["Judit Polgar", "Ivan Ivanchuk"]
    judit = Player.objects.get(pk=lists.judit.pk)
    assert rapid["results"][0]["rating"] == judit.rapid_rating


def test_history_per_list(anon, lists):
    url = f"{PLAYERS}{lists.ivan.pk}/history/"

    standard = anon.get(url).json()["results"]
    blitz = anon.get(f"{url}?list=blitz").json()["results"]
    rapid = anon.get(f"{url}?list=rapid").json()["results"]

    assert blitz == []
    assert [line["game"] for line in standard[0]["lines"]] == [lists.standard.pk]
    assert [line["game"] for line in rapid[0]["lines"]] == [lists.rapid.pk]
    assert rapid[0]["rating_before"] == 1700


def test_period_report_per_list(anon, lists):
    url = f"/api/v1/periods/{lists.march.pk}/"

    standard = anon.get(url).json()
    rapid = anon.get(f"{url}?list=rapid").json()

    assert standard["rating_list"] == "standard"
    assert rapid["rating_list"] == "rapid"
    assert [row["player"]["name"] for row in rapid["report"]] == ["Judit Polgar", "Ivan Ivanchuk"]
    assert rapid["report"][0]["rating_before"] == 2100
    assert standard["report"][0]["rating_before"] == 2000


@pytest.mark.parametrize(
    "path",
    ["/api/v1/rating-list/", "/api/v1/players/{ivan}/history/", "/api/v1/periods/{march}/"],
)
def test_a_bad_list_is_400_with_a_field_message(anon, lists, path):
    response = anon.get(path.format(ivan=lists.ivan.pk, march=lists.march.pk) + "?list=bullet")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json()["list"]


@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/players/", "/api/v1/rating-runs/"])
@pytest.mark.parametrize("value", ["%", "%s", "100%(x)s"])
def test_a_list_filter_naming_a_percent_sign_is_400_with_the_value(anon, lists, path, value):
    """A filter's message names the value asked; a "%" in it is no format (Schemathesis sent
    ``?list=%25`` and had a 500)."""
    response = anon.get(path, {"list": value})

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json()["list"] == [f"'{value}' is not a list; use standard, rapid or blitz."]


def test_rating_runs_show_and_filter_their_list(anon, lists):
    rows = anon.get("/api/v1/rating-runs/?list=rapid").json()["results"]

    assert rows
    assert {row["rating_list"] for row in rows} == {"rapid"}
    assert RatingRun.objects.filter(rating_list="standard").exists()
    assert anon.get("/api/v1/rating-runs/?list=bullet").status_code == HTTPStatus.BAD_REQUEST


# --- schema -----------------------------------------------------------------------------------


def test_schema_documents_the_lists(anon):
    body = anon.get("/api/v1/schema/?format=json").json()
    paths, components = body["paths"], body["components"]["schemas"]

    def parameters(path: str, method: str = "get") -> dict:
        return {p["name"]: p for p in paths[path][method].get("parameters", [])}

    for path in (
        "/api/v1/rating-list/",
        "/api/v1/players/{id}/history/",
        "/api/v1/periods/{id}/",
        "/api/v1/players/",
        "/api/v1/games/",
        "/api/v1/rating-runs/",
    ):
        found = parameters(path)["list"]["schema"]
        assert set(found["enum"]) == {"standard", "rapid", "blitz"}, path
    assert {"ratings", "rapid_entry_rating", "blitz_entry_peak_rating"} <= set(
        components["Player"]["properties"]
    )
    for game in ("GameRequest", "GameRead"):  # what a client writes, what it reads back
        assert {"rating_list", "time_control"} <= set(components[game]["properties"]), game
    assert "rating_list" in components["RatingRun"]["properties"]
