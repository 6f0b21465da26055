"""``GET /api/v1/players/{id}/head-to-head/{other}/``: every game between two players."""

from datetime import date
from http import HTTPStatus

import pytest

from ladder.records import Result
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def path(first, second) -> str:
    return f"/api/v1/players/{first.pk}/head-to-head/{second.pk}/"


def test_every_game_explained_from_both_sides(anon, club):
    body = anon.get(path(club.anna, club.boris)).json()
    assert (body["player"]["name"], body["opponent"]["name"]) == ("Anna Alekhina", "Boris Botvin")
    assert body["totals"] == {
        "games": 2, "played": 2, "wins": 1, "draws": 0, "losses": 1, "score": "1.00",
        "opponent_score": "1.00",
    }  # fmt: skip
    (standard,) = body["lists"]
    assert standard["list"] == "standard"
    # ΣPD 0.76 + 0.77 and Σ K × dR 20 × (+0.24 − 0.77) for Anna; the mirror for Boris.
    assert {k: standard["totals"][k] for k in ("expected", "opponent_expected")} == {
        "expected": "1.53", "opponent_expected": "0.47"
    }  # fmt: skip
    assert (standard["totals"]["effect"], standard["totals"]["opponent_effect"]) == (
        "-10.60", "10.60"
    )  # fmt: skip
    march, april = standard["games"]
    assert {k: march[k] for k in ("game", "date", "period", "event", "round", "result")} == {
        "game": club.win.pk, "date": "2026-03-10", "period": "2026-03", "event": "Club Cup",
        "round": "", "result": "1-0",
    }  # fmt: skip
    assert (march["white"], march["black"]) == (club.anna.pk, club.boris.pk)
    assert march["player"] == {
        "colour": "white", "score": "1.00", "rating_used": 2000, "opponent_rating": 1800,
        "rated": True, "note": "rated", "difference": 200, "difference_used": 200,
        "expected": "0.76", "delta": "0.24", "k": 20, "effect": "4.80",
    }  # fmt: skip
    assert (march["opponent"]["expected"], march["opponent"]["effect"]) == ("0.24", "-4.80")
    # April counts from the list that opened it: 2005 against 1795.
    assert (april["player"]["rating_used"], april["player"]["opponent_rating"]) == (2005, 1795)
    assert (april["player"]["colour"], april["player"]["score"]) == ("white", "0.00")
    assert (april["player"]["effect"], april["opponent"]["effect"]) == ("-15.40", "15.40")


def test_the_other_way_round(anon, club):
    body = anon.get(path(club.boris, club.anna)).json()
    assert body["player"]["id"] == club.boris.pk
    assert body["lists"][0]["totals"]["effect"] == "10.60"
    assert body["lists"][0]["games"][0]["player"]["effect"] == "-4.80"


def test_a_game_not_rated_for_a_side_has_no_expected_score_or_effect(anon, club):
    body = anon.get(path(club.boris, club.cleo)).json()
    (game,) = body["lists"][0]["games"]
    assert game["player"]["note"] == "opponent unrated: not rated for you"
    assert (game["player"]["expected"], game["player"]["effect"]) == (None, None)
    assert game["opponent"]["note"] == "counts toward a first rating"
    assert (game["opponent"]["rating_used"], game["opponent"]["k"]) == (None, None)
    totals = body["lists"][0]["totals"]
    assert (totals["score"], totals["expected"], totals["effect"]) == ("0.50", None, None)


def test_each_list_apart_and_unplayed_games_listed_not_scored(anon, club, committed):
    with committed():
        GameFactory(white=club.anna, black=club.boris, result=Result.WHITE_WIN,
                    date=date(2026, 4, 8), rating_list="blitz")  # fmt: skip
        GameFactory(white=club.boris, black=club.anna, result=Result.WHITE_FORFEIT_WIN,
                    date=date(2026, 4, 9))  # fmt: skip
    body = anon.get(path(club.anna, club.boris)).json()
    assert [record["list"] for record in body["lists"]] == ["standard", "blitz"]
    standard, blitz = body["lists"]
    assert (standard["totals"]["games"], standard["totals"]["played"]) == (3, 2)
    assert standard["games"][-1]["player"]["note"] == "unplayed: not rated"
    assert standard["games"][-1]["player"]["score"] is None
    # Both unrated on the blitz list but rated on the standard list, so rated on the blitz list
    # with their standard ratings (R&B 7.2.1): Anna, with April's standard list's rating and
    # no blitz game (K 40), wins: 40 x (1 - PD .77) = +9.20.
    assert (blitz["totals"]["wins"], blitz["games"][0]["player"]["effect"]) == (1, "9.20")
    assert body["totals"] == {
        "games": 4, "played": 3, "wins": 2, "draws": 0, "losses": 1, "score": "2.00",
        "opponent_score": "1.00",
    }  # fmt: skip


def test_players_who_never_met(anon, club):
    body = anon.get(path(club.anna, club.cleo)).json()
    assert body["lists"] == []
    assert body["totals"]["games"] == 0
    assert body["totals"]["score"] == "0.00"


def test_the_same_player_twice_or_an_unknown_one_is_a_404(anon, club):
    response = anon.get(path(club.anna, club.anna))
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response.json() == {
        "detail": "A player has no head-to-head with themselves: give another player's id."
    }
    assert anon.get(f"/api/v1/players/{club.anna.pk}/head-to-head/999999/").status_code == 404
    assert anon.get(f"/api/v1/players/999999/head-to-head/{club.anna.pk}/").status_code == 404


@pytest.mark.parametrize("games", [3, 60])
def test_a_constant_number_of_queries(anon, club, committed, django_assert_max_num_queries, games):
    with committed():
        others = PlayerFactory.create_batch(3)
        for n in range(games):
            white, black = (club.anna, club.boris) if n % 2 else (club.boris, club.anna)
            GameFactory(white=white, black=black, result=Result.DRAW,
                        date=date(2026, 5 + n % 3, 1 + n % 28), round=str(n))  # fmt: skip
            GameFactory(white=club.anna, black=others[n % 3], date=date(2026, 5, 2), round=str(n))
    # The two players, the games, the two players' rows of those periods.
    with django_assert_max_num_queries(4):
        response = anon.get(path(club.anna, club.boris))
    assert response.status_code == HTTPStatus.OK
    assert response.json()["totals"]["games"] == games + 2


def test_the_schema_documents_it(anon):
    schema = anon.get("/api/v1/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/players/{id}/head-to-head/{other}/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"id", "other"}
    assert set(operation["responses"]) == {"200", "301", "404"}  # 301: a merged player's id
