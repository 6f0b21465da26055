"""Real-browser tests: Chromium opens the ladder, follows a player, sees the chart drawn and
uses the calculator with JavaScript on. One screenshot of each page lands in test-artifacts/."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def local_only(page, live_server):  # noqa: F811
    """Record every request the page makes that does not go to the live server."""
    outside = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith(live_server.url) else outside.append(request.url)
        ),
    )
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return outside, errors


def test_ladder_to_player_with_chart(page, live_server, screenshot, example_a, local_only):  # noqa: F811
    outside, errors = local_only
    page.goto(live_server.url + "/")
    page.get_by_role("heading", name="Standings").wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
    screenshot("standings")
    page.get_by_label("Show inactive players").check()  # applies at once with JavaScript on
    page.wait_for_url(re.compile(r"inactive=1"))
    assert page.get_by_label("Show inactive players").is_checked()

    page.get_by_role("table").get_by_role("link", name="Ada Example").click()
    page.get_by_role("heading", name="Ada Example").wait_for()
    chart = page.locator("svg[data-chart=rating]")
    box = chart.bounding_box()
    assert box["width"] > 300
    assert box["height"] > 100
    line = page.locator("svg[data-chart=rating] polyline.line")
    assert line.bounding_box()["width"] > 10  # drawn, not an empty element
    assert page.locator("svg[data-chart=rating] circle").count() == 2
    assert "+14.40 → +14" in page.locator("details.card").first.inner_text()

    page.get_by_label("Opponent's rating").fill("1850")
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("cell", name="+24.40").wait_for()
    screenshot("player")

    page.get_by_role("link", name="March 2026").first.click()
    page.get_by_role("heading", name="March 2026", exact=True).wait_for()
    screenshot("period")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Periods").click()
    page.get_by_role("heading", name="Rating periods").wait_for()
    screenshot("periods")
    assert outside == []
    assert errors == []


def test_calculator_updates_as_you_type(page, live_server, screenshot, local_only):  # noqa: F811
    outside, errors = local_only
    page.goto(live_server.url + "/calculator/")
    win = page.locator('tr[data-outcome="win"]')
    assert win.locator(".change").inner_text() == "+13"

    page.get_by_label("Classic Elo formula").check()
    page.get_by_label("32", exact=True).check()
    # expect() waits without evaluating strings (the Content Security Policy forbids eval).
    expect(page.locator("tr[data-outcome=win] .exact")).to_have_text("+20.48")
    assert page.locator('tr[data-outcome="draw"] .exact').inner_text() == "+4.48"
    assert page.locator('tr[data-outcome="loss"] .exact').inner_text() == "-11.52"
    assert "k_preset=32" in page.url  # the address follows, so the result can be shared

    # The server stays the reference: the swapped block equals the page the server renders.
    page.get_by_label("Your rating").fill("1712")
    expect(page.locator("tr[data-outcome=win] .after")).not_to_have_text("1520")
    expect(page.locator("#calculator")).to_have_attribute("data-state", "ready")
    query = page.url.split("?", 1)[1]
    served = Client().get("/calculator/?" + query).content.decode()
    for name in ("win", "draw", "loss"):
        cells = page.locator(f'tr[data-outcome="{name}"] td').all_inner_texts()
        row = re.search(rf'data-outcome="{name}">(.*?)</tr>', served, re.S).group(1)
        assert [
            re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ] == cells

    # Errors appear next to their field while typing, and go away when fixed.
    page.get_by_label("Other K").fill("101")
    error = page.locator('[data-errors-for="k_other"]')
    error.filter(has_text="K must be at most 100.").wait_for()
    assert page.get_by_label("Other", exact=True).is_checked()
    page.get_by_label("Other K").fill("25")
    expect(page.locator("[data-errors-for=k_other]")).to_have_text("")

    # Event mode: the single-game fields hide, and one change is computed for all games.
    page.get_by_label("Several games (an event)").check()
    assert not page.get_by_label("Opponent's rating").is_visible()
    page.get_by_label("Games", exact=True).fill("1420 1\n2310 ½\n1790 1")
    page.get_by_label("20", exact=True).check()
    page.get_by_label("FIDE table (8.1.2)").check()
    page.locator("[data-testid=event-change]").wait_for()
    expect(page.locator("[data-testid=event-score]")).to_have_text("2.50")
    screenshot("calculator")
    assert outside == []
    assert errors == []


def test_keyboard_skip_link_and_phone_layout(browser, live_server, example_a):  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        phone.goto(live_server.url + "/")
        phone.keyboard.press("Tab")
        focused = phone.evaluate("document.activeElement.textContent.trim()")
        assert focused == "Skip to content"
        assert phone.locator(".skip-link").bounding_box()["x"] >= 0  # visible when focused
        phone.keyboard.press("Enter")
        assert phone.evaluate("document.activeElement.id") == "content"
        # Nothing overflows the phone's width except inside scrollable table boxes.
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        phone.screenshot(path=str(_artifact("standings-phone")), full_page=True)
        phone.goto(live_server.url + example_a.get_absolute_url())
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=str(_artifact("player-phone")), full_page=True)
        phone.goto(live_server.url + "/calculator/")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=str(_artifact("calculator-phone")), full_page=True)
        response = phone.goto(live_server.url + "/players/999999/")
        assert response.status == 404
        phone.get_by_role("heading", name="Page not found").wait_for()
        phone.screenshot(path=str(_artifact("not-found-phone")), full_page=True)
    finally:
        context.close()


def _artifact(name: str):
    from tests.browser.support import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / f"{name}.png"


def test_calculator_works_without_javascript(browser, live_server):  # noqa: F811
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()  # noqa: F811
    try:
        page.goto(live_server.url + "/calculator/")
        page.get_by_label("Classic Elo formula").check()
        page.get_by_label("32", exact=True).check()
        page.get_by_role("button", name="Calculate").click()
        page.wait_for_url("**/calculator/?*")
        assert page.locator('tr[data-outcome="win"] .exact').inner_text() == "+20.48"
        assert page.locator('tr[data-outcome="loss"] .change').inner_text() == "-12"
        # Both groups of fields show when no script can hide one of them.
        assert page.get_by_label("Games", exact=True).is_visible()
    finally:
        context.close()
