"""Phone first: at 390 px (and at 1280 px) every page shows its key numbers inside the viewport,
without a sideways scroll. Chromium measures the cells; screenshots land in test-artifacts/."""

import pytest
from playwright.sync_api import expect

from tests.browser.support import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"phone": 390, "laptop": 1280}


@pytest.fixture(params=list(WIDTHS))
def screen(request, browser):
    """A page at one of the two widths, with its name and width."""
    width = WIDTHS[request.param]
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900},
        is_mobile=width < 500,
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield request.param, width, page
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def assert_inside(locator, width: int) -> None:
    """Assert every element the locator finds is shown and lies within the viewport's width."""
    assert locator.count() > 0
    for index in range(locator.count()):
        box = locator.nth(index).bounding_box()
        assert box is not None, f"{locator} #{index} is not shown"
        assert box["x"] >= 0, f"{locator} #{index} starts left of the screen"
        assert box["x"] + box["width"] <= width + 0.5, f"{locator} #{index} ends off-screen"


def no_page_scroll(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_standings_show_rank_name_rating_and_change(screen, live_server, example_a):
    name, width, page = screen
    page.goto(live_server.url + "/")
    no_page_scroll(page, width)
    first = page.locator("table.standings tbody tr", has_text="Ada Example")
    for cell in ("td:nth-child(1)", "th[scope=row]", "td.rating"):
        assert_inside(first.locator(cell), width)
    change = first.locator("td.rating + td")
    assert_inside(change, width)
    assert change.inner_text() == "+14"
    shot(page, f"standings-{name}")


def test_player_page_shows_period_change_rating_after_and_a_readable_chart(
    screen, live_server, example_a
):
    name, width, page = screen
    page.goto(live_server.url + example_a.get_absolute_url())
    no_page_scroll(page, width)
    history = page.locator("table.history tbody tr").first
    assert_inside(history.locator("th[scope=row]"), width)
    assert_inside(history.locator("td.change"), width)
    assert_inside(history.locator("td.after"), width)
    assert history.locator("td.after").inner_text() == "1864"
    chart = page.locator("svg[data-chart=rating]")
    assert_inside(chart, width)
    # No label of the chart overlaps another (the "1750" over "Jun 2026" of the issue).
    boxes = [
        b
        for b in (t.bounding_box() for t in chart.locator("text").all())
        if b is not None and b["width"] > 0
    ]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, f"chart labels overlap: {a} {b}"
    shot(page, f"player-{name}")


def test_period_report_shows_player_change_and_rating_after(screen, live_server, example_a):
    name, width, page = screen
    page.goto(live_server.url + "/periods/2026-03/")
    no_page_scroll(page, width)
    hero = page.locator("table.report tbody tr", has_text="Ada Example")
    for cell in ("th[scope=row]", "td.change", "td.after"):
        assert_inside(hero.locator(cell), width)
    if width >= 1280:
        assert_inside(hero.locator("td.perf"), width)  # the Performance column is not clipped
    shot(page, f"period-{name}")


def test_calculator_result_follows_the_first_fields(screen, live_server):
    name, width, page = screen
    page.goto(live_server.url + "/calculator/?own=1500&opponent=2000&method=elo&k_preset=20")
    no_page_scroll(page, width)
    headline = page.get_by_test_id("headline")
    assert_inside(headline, width)
    assert headline.inner_text().startswith("Win: +19")
    first = page.locator(".calc-first").bounding_box()
    box = headline.bounding_box()
    options = page.locator(".calc-more").bounding_box()
    if width < 500:  # under the first fields, before the options
        assert first["y"] + first["height"] <= box["y"] < options["y"]
    else:  # beside the fields, on the first screen
        assert box["x"] >= first["x"] + first["width"]
        assert box["y"] + box["height"] < 900
    assert_inside(page.locator("table.gaps tr.current"), width)
    shot(page, f"calculator-{name}")


def test_k_helper_is_labelled_keyboard_reachable_and_live(screen, live_server):
    name, width, page = screen
    page.goto(live_server.url + "/calculator/")
    unlabelled = page.evaluate(
        "[...document.querySelectorAll('#calculator input:not([type=hidden]), "
        "#calculator textarea, #calculator select')].filter(e => !e.labels.length).length"
    )
    assert unlabelled == 0  # every field, the K helper's too, has its label
    assert page.locator("a.skip-link").count() == 1
    page.get_by_text("Not sure of your K? Work it out").click()
    page.get_by_label("Rated games so far").fill("12")
    advice = page.get_by_test_id("k-advice")
    advice.wait_for()
    assert advice.inner_text() == "40"
    use = page.get_by_role("link", name="Use K 40")
    page.get_by_label("Highest published rating").focus()
    # Not wait_for_function: its polling evaluates a string, which the page's CSP refuses.
    expect(page.locator("#calculator")).to_have_attribute("data-state", "ready")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Use K 40"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # the focus ring shows on the new link
    assert_inside(use, width)
    use.click()
    page.wait_for_url("**k_preset=40**")
    assert page.get_by_label("40", exact=True).is_checked()
    shot(page, f"calculator-k-helper-{name}")
