"""Client tests of the calculator: the seeds' examples, FIDE's, options and validation."""

import re
from html import unescape
from http import HTTPStatus

import pytest
from django.urls import reverse

from ratings.rules import fide

from .test_pages import row, text_of

URL = reverse("ladder:calculator")
ELO = {"own": "1500", "opponent": "1600", "method": "elo"}
# FIDE.md 8 B: Ro 1600, junior K 40, 20 games -> K 35 by the 700 rule, -24.50 -> -25.
EXAMPLE_B = """1550 1\n1720 0\n1480 1\n1670 0\n1610 0\n1905 0\n1530 1\n1575 ½\n1640 0\n1400 1
1660 ½\n1700 0\n1590 1\n1620 0\n1555 ½\n1810 0\n1500 1\n1680 0\n1610 ½\n1450 1"""


def test_calculator_opens_with_a_worked_default(client):
    response = client.get(URL)
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    # 1500 v 1600, FIDE table: D -100 -> PD .36; K 20: +12.80 / +2.80 / -7.20.
    assert "Expected score: 36% (0.36 of a point; a win scores 1, a draw counts half, ½," in text
    assert row(response, 'data-outcome="win"') == "Win your result +0.64 +12.80 +13 1513"
    assert row(response, 'data-outcome="draw"') == "Draw +0.14 +2.80 +3 1503"
    assert row(response, 'data-outcome="loss"') == "Loss -0.36 -7.20 -7 1493"


def test_classic_elo_k20_gives_the_seed_numbers(client):
    response = client.get(URL, {**ELO, "k_preset": "20"})
    assert "Expected score: 35.99%" in text_of(response)
    assert row(response, 'data-outcome="win"').endswith("+12.80 +13 1513")
    assert row(response, 'data-outcome="draw"').endswith("+2.80 +3 1503")
    assert row(response, 'data-outcome="loss"').endswith("-7.20 -7 1493")


def test_classic_elo_k32_gives_the_seed_numbers_unrounded(client):
    response = client.get(URL, {**ELO, "k_preset": "32", "result": "draw"})
    assert row(response, 'data-outcome="win"').endswith("+20.48 +20 1520")
    assert row(response, 'data-outcome="draw"') == "Draw your result +0.1401 +4.48 +4 1504"
    assert row(response, 'data-outcome="loss"').endswith("-11.52 -12 1488")


@pytest.mark.parametrize(
    ("params", "k"),
    [
        ({"k_preset": "40"}, 40),
        ({"k_preset": "10"}, 10),
        ({"k_preset": "other", "k_other": "7"}, 7),
    ],
)
def test_any_k_matches_fide_outcomes(client, params, k):
    response = client.get(URL, {"own": "1712", "opponent": "1650", "method": "fide", **params})
    expected = fide.outcomes(1712, 1650, k=k)
    for name, calc in expected.items():
        assert row(response, f'data-outcome="{name}"').endswith(
            f"{calc.change:+d} {calc.rating_after}"
        )


def test_the_400_point_rule_is_a_switch(client):
    base = {"own": "1850", "opponent": "1420", "k_preset": "20", "method": "fide"}
    capped = text_of(client.get(URL, {**base, "apply_cap": "on"}))
    assert "D = +430, used as +400 (400-point rule)" in capped
    assert "Expected score: 92%" in capped
    uncapped = text_of(client.get(URL, base))
    assert "used as" not in uncapped
    assert "Expected score: 93%" in uncapped  # |D| 430 is in the 412-432 band


def test_event_mode_rates_worked_example_b_with_the_700_rule(client):
    params = {"mode": "event", "own": "1600", "games": EXAMPLE_B, "k_preset": "40"}
    with_rule = client.get(URL, {**params, "apply_700": "on", "apply_cap": "on"})
    text = text_of(with_rule)
    assert "K 40 → 35 (700 rule: 40 × 20 games > 700)" in text
    assert "K × ΣdR = 35 × -0.70 = -24.50 → -25 , new rating 1575" in text
    without = text_of(client.get(URL, {**params, "apply_cap": "on"}))
    assert "K × ΣdR = 40 × -0.70 = -28.00 → -28 , new rating 1572" in without


def test_event_mode_sums_expected_against_actual(client):
    games = "1420 1\n2310 ½\n1790 1\n1905 0\n1880 =\n1600 w\n2000 l\n1845 draw\n1700 1"
    response = client.get(
        URL, {"mode": "event", "own": "1850", "games": games, "apply_cap": "on", "k_preset": "20"}
    )
    html = response.content.decode()
    assert re.search(r'data-testid="event-score">5.50<', html)
    assert re.search(r'data-testid="event-expected">4.78<', html)
    assert re.search(r'data-testid="event-change">\+14<', html)


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"own": "abc"}, "own", "Enter a whole number."),
        ({"own": ""}, "own", "Enter a rating."),
        ({"opponent": "4000"}, "opponent", "A rating cannot be above 3500."),
        ({"k_preset": "other"}, "k_other", "Enter a K from 1 to 100, or pick a preset."),
        ({"k_preset": "other", "k_other": "101"}, "k_other", "K must be at most 100."),
        ({"k_preset": "other", "k_other": "0"}, "k_other", "K must be at least 1."),
        ({"mode": "event", "games": ""}, "games", "Enter at least one game."),
        (
            {"mode": "event", "games": "1600 2"},
            "games",
            "Line 1: '2' is not a score; use 1, ½ or 0 (also win, draw, loss, 0.5, 1/2, =).",
        ),
        ({"mode": "event", "games": "1600 1\nabc 1"}, "games", "Line 2: 'abc' is not a rating"),
        ({"mode": "event", "games": "1600"}, "games", "Line 1: write the opponent's rating"),
        ({"mode": "event", "games": "1600 1\n²⁰ 1"}, "games", "Line 2: '²⁰' is not a rating"),
    ],
)
def test_validation_errors_sit_next_to_their_field(client, params, field, message):
    response = client.get(URL, params)
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode().replace("&#x27;", "'")
    slot = re.search(rf'<p class="error" data-errors-for="{field}"[^>]*>(.*?)</p>', html, re.S)
    assert slot, f"no error slot for {field}"
    assert message in slot.group(1)
    assert "Correct the fields marked above" in html


def test_expectation_table_compares_fide_and_elo(client):
    response = client.get(URL)
    text = text_of(response)
    assert "0–3 0.50 0.50 0.50" in text
    assert "99–106 0.64 0.36 0.64" in text
    assert "620–735 0.99 0.01 0.98" in text
    assert "over 735 1.00 0.00" in text
    assert response.content.decode().count('<tr><th scope="row">') == 51


@pytest.mark.django_db
def test_calculator_query_budget(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        client.get(URL, {"mode": "event", "own": "1600", "games": EXAMPLE_B})


def by_testid(response, name: str) -> str:
    html = response.content.decode()
    match = re.search(rf'<(\w+)[^>]*data-testid="{name}"[^>]*>(.*?)</\1>', html, re.S)
    assert match, f"no {name}"
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(2)))).strip()


def test_classic_mode_reproduces_the_elo_pages(client):
    # E = 1 / (1 + 10^((2000 - 1500) / 400)) = 0.0532 (5.32%); K 20 win: 20 x 0.9468 = +18.94.
    # The 400-point and 700 rules stay off in classic mode, even when their boxes are ticked.
    params = {"own": "1500", "opponent": "2000", "method": "elo", "k_preset": "20"}
    response = client.get(URL, {**params, "apply_cap": "on", "apply_700": "on"})
    text = text_of(response)
    assert "Expected score: 5.32%" in text
    assert row(response, 'data-outcome="win"') == "Win your result +0.9468 +18.94 +19 1519"
    assert by_testid(response, "headline") == (
        "Win: +19 (+18.94 exact) , new rating 1519 (1518.94 before rounding)"
    )
    assert by_testid(response, "opponent").startswith(
        "Your opponent (2000, same K 20): -19 (-18.94 exact), new rating 1981."
    )
    assert "E = 1 / (1 + 10 (2000 − 1500) / 400 ) = 0.0532, that is 5.32%." in text
    assert "Change = K × (score − expected) = 20 × (1 − 0.0532) = +18.94, rounded to +19." in text


def test_fide_mode_keeps_the_400_point_rule(client):
    params = {"own": "1500", "opponent": "2000", "method": "fide", "k_preset": "20"}
    response = client.get(URL, {**params, "apply_cap": "on", "apply_700": "on"})
    assert row(response, 'data-outcome="win"') == "Win your result +0.92 +18.40 +18 1518"
    assert "D = -500, used as -400 (400-point rule)" in text_of(response)
    assert by_testid(response, "opponent").startswith("Your opponent (2000, same K 20): -18 ")


def test_levels_before_and_after_are_levels_not_titles(client):
    response = client.get(URL, {"own": "2290", "opponent": "2300", "method": "elo"})
    assert by_testid(response, "levels").startswith("Level: CM level → FM level.")
    low = client.get(URL, {"own": "1500", "opponent": "1600"})
    assert by_testid(low, "levels").startswith("Level: below the CM level (2200) before and after.")


def test_expected_score_table_highlights_the_current_difference(client):
    response = client.get(URL, {"own": "1500", "opponent": "2000", "method": "elo"})
    assert row(response, 'class="current"') == "500 yours 94.7% 96%"
    other = client.get(URL, {"own": "1500", "opponent": "1623"})
    assert row(other, 'class="current"') == "123 yours 67.0% 67%"
    text = text_of(other)
    for gap, elo in (("0", "50.0%"), ("100", "64.0%"), ("200", "76.0%"), ("400", "90.9%")):
        assert re.search(rf"{gap} {elo} \d+%", text), gap


@pytest.mark.parametrize(
    ("helper", "k", "why"),
    [
        ({"rated_games": "12"}, 40, "fewer than 30 rated games (12)"),
        ({"rated_games": "80"}, 20, "80 rated games, never 2400+"),
        ({"rated_games": "80", "peak_rating": "2410"}, 10, "published 2400+ (peak 2410), for good"),
        ({"rated_games": "80", "birth_year": "2015"}, 40, "junior, born 2015, never 2300+"),
    ],
)
@pytest.mark.django_db
def test_k_helper_gives_fides_k_and_the_article(client, helper, k, why):
    response = client.get(URL, {"own": "1500", "opponent": "1600", **helper})
    assert by_testid(response, "k-advice") == str(k)
    text = text_of(response)
    assert f"K-factor for you is {k} : {why} (FIDE Rating Regulations, article 8.3.3)." in text
    link = re.search(r'<a href="\?([^"]+)">Use K', response.content.decode())
    assert link
    assert f"k_preset={k}" in unescape(link.group(1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"rated_games": "many"}, "rated_games", "Enter a whole number."),
        ({"rated_games": "-1"}, "rated_games", "Enter a whole number from 0 to 100000."),
        ({"birth_year": "1850"}, "birth_year", "Enter a whole number from 1900 to 2100."),
        ({"peak_rating": "4000"}, "peak_rating", "A rating cannot be above 3500."),
    ],
)
def test_k_helper_bad_input_is_a_field_error(client, params, field, message):
    response = client.get(URL, params)
    html = response.content.decode()
    assert re.search(rf'data-errors-for="{field}"[^>]*>{re.escape(message)}<', html)
    assert 'data-outcome="win"' in html  # the calculation still shows
    assert 'data-testid="k-advice"' not in html


def test_the_page_explains_and_answers_questions(client):
    text = text_of(client.get(URL))
    assert "Why can a draw gain points?" in text
    assert "Why does FIDE rate per period, not per game?" in text
    assert "40 for newcomers (under 30 rated games)" in text
