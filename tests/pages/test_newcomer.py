"""The newcomer's walk-through of issue 23, each finding at the width it was seen: real
Chromium at 390 px (a phone) and 1280 px (a laptop). Screenshots land in test-artifacts/."""

from datetime import date

import pytest
from django.contrib.auth.models import User

from ladder.records import Game, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
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
