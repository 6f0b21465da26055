"""The rating calculator: one game's outcomes or a whole event."""

from http import HTTPStatus

import pytest

pytestmark = pytest.mark.django_db

CALCULATOR = "/api/v1/calculator/"


def test_one_game_gives_win_draw_and_loss(anon):
    response = anon.post(CALCULATOR, {"rating": 1800, "k": 20, "opponent": 2000}, format="json")

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["method"] == "fide"
    win, draw, loss = (body["outcomes"][name] for name in ("win", "draw", "loss"))
    assert win["lines"][0]["expected"] == "0.24"
    assert (win["change"], draw["change"], loss["change"]) == (15, 5, -5)
    assert loss["rating_after"] == 1795


def test_the_400_rule_can_be_switched_off(anon):
    capped = {"rating": 2000, "k": 20, "opponent": 1400}
    body = anon.post(CALCULATOR, capped, format="json").json()
    uncapped = anon.post(CALCULATOR, {**capped, "apply_cap": False}, format="json").json()

    assert body["outcomes"]["win"]["lines"][0]["difference_used"] == 400
    assert uncapped["outcomes"]["win"]["lines"][0]["difference_used"] == 600


def test_event_with_and_without_the_700_rule(anon):
    games = [{"opponent": 1800, "score": "1"}] * 20
    event = {"rating": 1800, "k": 40, "games": games}

    capped = anon.post(CALCULATOR, event, format="json").json()["event"]
    uncapped = anon.post(CALCULATOR, {**event, "apply_700": False}, format="json").json()["event"]

    assert (capped["k"], capped["k_applied"]) == (40, 35)
    assert capped["score"] == "20.00"
    assert capped["expected"] == "10.00"
    assert capped["change"] == 350
    assert (uncapped["k_applied"], uncapped["change"]) == (40, 400)


def test_classic_elo(anon):
    body = anon.post(
        CALCULATOR,
        {"rating": 1800, "k": 20, "method": "elo", "games": [{"opponent": 2000, "score": "0.5"}]},
        format="json",
    ).json()

    assert body["method"] == "elo"
    assert body["event"]["expected"] == "0.2403"


@pytest.mark.parametrize(
    ("payload", "errors"),
    [
        (
            {"rating": 1800, "k": 20},
            {
                "non_field_errors": [
                    "Give either one opponent's rating or a list of games, not both."
                ]
            },
        ),
        (
            {
                "rating": 1800,
                "k": 20,
                "opponent": 1700,
                "games": [{"opponent": 1700, "score": "1"}],
            },
            {
                "non_field_errors": [
                    "Give either one opponent's rating or a list of games, not both."
                ]
            },
        ),
        ({"rating": 1800, "k": 20, "games": []}, {"games": ["Enter at least one game."]}),
        (
            {"rating": 9000, "k": 0, "opponent": 1700},
            {
                "rating": ["A rating cannot be above 3500."],
                "k": ["K must be at least 1."],
            },
        ),
        (
            {"rating": 1800, "k": 20, "games": [{"opponent": 1700, "score": "2"}]},
            {
                "games": {
                    "0": {
                        "score": [
                            "'2' is not a score; use 1, ½ or 0 (also win, draw, loss, 0.5, 1/2, =)."
                        ]
                    }
                }
            },
        ),
    ],
)
def test_bad_input_is_400(anon, payload, errors):
    response = anon.post(CALCULATOR, payload, format="json")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == errors


@pytest.mark.parametrize(
    ("word", "units"),
    [("½", "0.50"), ("draw", "0.50"), ("1/2", "0.50"), ("Win", "1.00"), ("loss", "0.00")],
)
def test_scores_take_the_words_the_page_takes(anon, word, units):
    body = anon.post(
        CALCULATOR,
        {"rating": 1800, "k": 20, "games": [{"opponent": 1800, "score": word}]},
        format="json",
    ).json()

    assert body["event"]["score"] == units


def test_classic_elo_applies_no_rules_by_default(anon):
    # 1500 v 2000, K 20: E = 1 / (1 + 10^(500/400)) = 0.0532; win 20 x 0.9468 = +18.94 -> +19.
    one = {"rating": 1500, "k": 20, "opponent": 2000, "method": "elo"}
    body = anon.post(CALCULATOR, one, format="json").json()
    win = body["outcomes"]["win"]
    assert win["lines"][0]["difference_used"] == -500
    assert win["lines"][0]["expected"] == "0.0532"
    assert (win["change_exact"], win["change"], win["rating_after"]) == ("18.9360", 19, 1519)
    their = body["opponent_outcomes"]["win"]  # the opponent's side of your win
    assert (their["change_exact"], their["change"]) == ("-18.9360", -19)
    assert their["rating_after"] == 1981
    capped = anon.post(CALCULATOR, {**one, "apply_cap": True}, format="json").json()
    assert capped["outcomes"]["win"]["change"] == 18  # 9.09% expected -> 20 x 0.9091 = 18.18

    event = {
        "rating": 1800,
        "k": 40,
        "method": "elo",
        "games": [{"opponent": 1800, "score": "1"}] * 20,
    }
    assert anon.post(CALCULATOR, event, format="json").json()["event"]["k_applied"] == 40


def test_fide_keeps_its_rules_and_the_sides_differ(anon):
    body = anon.post(CALCULATOR, {"rating": 1500, "k": 20, "opponent": 2000}, format="json").json()
    assert body["outcomes"]["win"]["lines"][0]["expected"] == "0.08"
    assert body["outcomes"]["win"]["change"] == 18  # 20 x 0.92 = 18.40
    assert body["opponent_outcomes"]["win"]["change"] == -18  # 2000 v 1500: capped at 400 too
