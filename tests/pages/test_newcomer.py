"""The newcomer's walk-through of issue 23, each finding at the width it was seen: real
Chromium at 390 px (a phone) and 1280 px (a laptop). Screenshots land in test-artifacts/."""

from datetime import date

import pytest
from django.contrib.auth.models import User

from ladder.records import Game, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.browser.support import ARTIFACTS
from tests.factories import PlayerFactory
from tests.pages.test_phone import assert_inside, no_page_scroll, screen, shot  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def autumn(committed):
    """Ann and Ben: September 2026 published, then revised (a result entered reversed), and
    October open: the player page's longest month name beside a revision note."""
    ann, ben = (
        PlayerFactory(name=n, entry_rating=r, entry_rated_games=50, birth_year=1980)
        for n, r in (("Ann Able", 1800), ("Ben Best", 1700))
    )
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 9, 2), white=ann, black=ben, result="1-0")]
        )
    september = RatingPeriod.objects.get(label="2026-09")
    actions.close_period(period=september)
    actions.reopen_period(period=september, reason="Round 1 was entered reversed, so fixed.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 9, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=september, user=User.objects.create_user("fixer"))
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 10, 6), white=ben, black=ann, result="1/2-1/2")]
        )
    ann.refresh_from_db()
    return {"ann": ann, "ben": ben}


def test_player_periods_keep_rating_after_in_view_and_notes_on_their_own_row(
    screen,  # noqa: F811
    live_server,
    autumn,
):
    name, width, page = screen
    page.goto(live_server.url + autumn["ann"].get_absolute_url())
    no_page_scroll(page, width)
    history = page.locator("table.history").first
    september = history.locator("tbody tr", has_text="September 2026")
    assert_inside(september.locator("td.after"), width)
    assert september.locator("td.after").inner_text() == "1787"
    header = history.locator("thead th", has_text="Rating after")
    assert_inside(header, width)
    # The revision's note is a row of its own, as wide as the table, not inside "Rating after".
    note = history.locator("tr.revisions-row [data-testid=revised]")
    assert "Round 1 was entered reversed" in note.inner_text()
    assert_inside(note, width)
    assert note.bounding_box()["width"] > september.locator("td.after").bounding_box()["width"]
    shot(page, f"newcomer-player-periods-{name}")


def test_periods_list_shows_open_or_closed_beside_each_period(
    screen,  # noqa: F811
    live_server,
    autumn,
):
    name, width, page = screen
    page.goto(live_server.url + "/periods/")
    no_page_scroll(page, width)
    for label, status in (("September 2026", "Closed"), ("October 2026", "Open")):
        row = page.locator("table.periods tbody tr", has_text=label)
        cell = row.locator("td.period-status")
        assert_inside(cell, width)
        assert cell.inner_text() == status
        assert_inside(row.locator("td.num").first, width)  # the games count too
    if width >= 1280:  # the dates on a wide screen
        assert_inside(page.locator("table.periods tbody tr td", has_text="1 Sep 2026"), width)
    shot(page, f"newcomer-periods-{name}")


def test_standings_start_on_the_first_screen(screen, live_server, autumn):  # noqa: F811
    name, width, page = screen
    page.goto(live_server.url + "/")
    no_page_scroll(page, width)
    height = page.viewport_size["height"]
    first = page.locator("table.standings tbody tr").first
    box = first.bounding_box()
    assert box["y"] + box["height"] <= height, f"the first player ends at {box}, below {height}"
    assert_inside(first.locator("td.rating"), width)
    # The search stays above the table; the inactive note follows it.
    assert page.locator("form.search").bounding_box()["y"] < box["y"]
    note = page.get_by_test_id("inactive-note")
    assert note.bounding_box()["y"] > box["y"]
    shot(page, f"newcomer-standings-{name}")


def test_calculator_switches_sit_next_to_the_result(screen, live_server):  # noqa: F811
    name, width, page = screen
    page.goto(live_server.url + "/calculator/?own=1500&opponent=2000&method=elo&k_preset=20")
    no_page_scroll(page, width)
    headline = page.get_by_test_id("headline").bounding_box()
    outcomes = page.locator("table.outcomes").bounding_box()
    for label in ("32", "Classic Elo formula"):  # a K switch and the method switch
        switch = page.get_by_label(label, exact=True).bounding_box()
        if width < 500:  # right under the result's table, within a phone's screen of it
            assert switch["y"] > outcomes["y"] + outcomes["height"]
            assert switch["y"] - (headline["y"] + headline["height"]) < 844, (label, switch)
        else:  # in the left column beside the result, just under the first fields
            assert switch["x"] + switch["width"] < headline["x"], (label, switch)
            assert switch["y"] < outcomes["y"] + outcomes["height"] + 450, (label, switch)
    # Switching still recomputes in place (the script swaps the result under the same order).
    page.get_by_label("32", exact=True).check()
    page.locator("tr[data-outcome=win] .exact").filter(has_text="+30.30").wait_for()
    switch = page.get_by_label("Classic Elo formula").bounding_box()
    if width < 500:
        assert switch["y"] > page.locator("table.outcomes").bounding_box()["y"]
    shot(page, f"newcomer-calculator-{name}")


@pytest.fixture
def mixed_month(committed):
    """Cara (rated): in September she beat Dan (rated) and drew Eve (unrated: not rated for
    her); September is published; in the open October she beats Dan again, so her live rating
    rises above every official one."""
    cara, dan = (
        PlayerFactory(name=n, entry_rating=r, entry_rated_games=50, birth_year=1980)
        for n, r in (("Cara Cole", 1900), ("Dan Dunn", 1700))
    )
    eve = PlayerFactory(name="Eve Eck", entry_rating=None, birth_year=1990)
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 9, 2), white=cara, black=dan, result="1-0"),
                GameEntry(date=date(2026, 9, 3), white=eve, black=cara, result="1/2-1/2"),
            ]
        )
    actions.close_period(period=RatingPeriod.objects.get(label="2026-09"))
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 10, 6), white=dan, black=cara, result="0-1")]
        )
    for p in (cara, dan, eve):
        p.refresh_from_db()
    return {"cara": cara, "dan": dan, "eve": eve}


def test_periods_table_and_cards_count_the_same_games(screen, live_server, mixed_month):  # noqa: F811
    name, width, page = screen
    page.goto(live_server.url + mixed_month["cara"].get_absolute_url())
    row = page.locator("table.history").first.locator("tbody tr", has_text="September 2026")
    games = row.locator("td.games")
    assert_inside(games, width)
    assert games.inner_text() == "2 (1)"  # both games, of which one rated
    card = page.locator("#period-standard-2026-09 summary")
    assert "2 games (1 rated)" in card.inner_text()
    assert page.locator("#period-standard-2026-09 table.calc tbody tr").count() == 2
    assert "(rated)" in page.locator("table.history").first.locator("thead").inner_text()
    shot(page, f"newcomer-counts-{name}")


def test_unrated_periods_show_no_expected_score(screen, live_server, mixed_month):  # noqa: F811
    name, width, page = screen
    page.goto(live_server.url + mixed_month["eve"].get_absolute_url())
    row = page.locator("table.history").first.locator("tbody tr", has_text="September 2026")
    expected = row.locator("td.expected")
    assert "0.00" not in expected.text_content()
    assert expected.text_content().strip() == "—"
    if width >= 1280:  # the column is for wide screens
        assert_inside(expected, width)
    assert "no expected score" in page.get_by_test_id("history-note").first.inner_text()
    # A rated player's period keeps its expected score.
    page.goto(live_server.url + mixed_month["cara"].get_absolute_url())
    row = page.locator("table.history").first.locator("tbody tr", has_text="September 2026")
    assert row.locator("td.expected").text_content().strip() not in {"—", "0.00"}


def test_peak_is_the_highest_official_rating(screen, live_server, mixed_month):  # noqa: F811
    name, width, page = screen
    cara = mixed_month["cara"]
    september = cara.rating_changes.get(period__label="2026-09", rating_list="standard")
    assert cara.rating > september.rating_after  # the live rating is above the official one
    page.goto(live_server.url + cara.get_absolute_url())
    peak = page.locator("table.ratings tr[data-list=standard] td.peak")
    assert peak.inner_text().split()[0] == str(september.rating_after)
    assert peak.locator(".live-peak").inner_text() == f"live {cara.peak_rating}"
    assert "Peak (official)" in page.locator("table.ratings thead").inner_text()
    shot(page, f"newcomer-peak-{name}")


@pytest.mark.parametrize("path", ["/api/v1/redoc/", "/api/v1/docs/"])
def test_api_docs_say_how_to_get_a_token_link_back_and_ask_nothing_outside(
    screen,  # noqa: F811
    live_server,
    path,
):
    name, width, page = screen
    outside, refused = [], []
    page.on(
        "request",
        lambda r: (
            None if r.url.startswith((live_server.url, "data:", "blob:")) else outside.append(r.url)
        ),
    )
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    page.on("response", lambda r: refused.append(r.url) if r.status >= 400 else None)
    page.set_default_timeout(60_000)  # Redoc reads and lays out the whole schema first
    page.goto(live_server.url + path)
    page.get_by_text("Writes need a token").first.wait_for()
    assert "manage.py issue_token" in page.locator("body").inner_text()
    back = page.get_by_role("link", name="Back to the site").first
    assert back.get_attribute("href") == "/"
    page.wait_for_load_state("networkidle")
    assert outside == []  # no fonts from Google, nothing from a CDN
    assert refused == []  # nothing refused by the Content Security Policy, no 404 (icon)
    artifact = f"newcomer-api-docs-{path.strip('/').replace('/', '-')}-{name}.png"
    page.screenshot(path=str(ARTIFACTS / artifact))  # the first screen: the page is long
