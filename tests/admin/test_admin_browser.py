"""A club administrator enters a round in a real browser: a mistake, the preview, the fix."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from ladder.records import Game, Player
from tests.admin.conftest import club_group
from tests.factories import PlayerFactory

PASSWORD = "pw-Ladder-2026"
PAIRINGS = [
    ("Anna Ames", "Ben Bold", "1-0"),
    ("Cleo Cole", "Dev Dunn", "1/2-1/2"),
    ("Emil Eck", "Fiona Fox", "0-1"),
    ("Gus Grey", "Hana Hill", "1-0"),
    ("Ivo Irwin", "Jill Jones", "0-1"),
    ("Kai Kent", "Lena Lund", "1/2-1/2"),
]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_enter_a_round_with_a_mistake(live_server, page, screenshot):  # noqa: F811
    for number, (white, black, _) in enumerate(PAIRINGS):
        PlayerFactory(name=white, entry_rating=2000 - 20 * number, fide_id=5000 + 2 * number)
        PlayerFactory(name=black, entry_rating=1700 + 30 * number, fide_id=5001 + 2 * number)
    user = User.objects.create_user("clubadmin", password=PASSWORD, is_staff=True)
    user.groups.add(club_group())

    page.goto(f"{live_server.url}/admin/login/?next=/admin/ladder/game/")
    page.fill("#id_username", "clubadmin")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.get_by_role("link", name="Enter a round").click()
    expect(page.get_by_role("heading", name="Enter a round")).to_be_visible()

    page.fill("#id_date", "2026-03-14")
    page.fill("#id_event", "Club championship")
    page.fill("#id_round", "1")
    for row, (white, black, result) in enumerate(PAIRINGS):
        page.fill(f"#id_rows-{row}-white", white)
        page.fill(f"#id_rows-{row}-black", "Fion Fox" if black == "Fiona Fox" else black)
        page.select_option(f"#id_rows-{row}-result", result)
    page.get_by_role("button", name="Preview").click()

    expect(page.locator("#round-preview")).to_contain_text(
        "No player is named 'Fion Fox'. Did you mean 'Fiona Fox'?"
    )
    expect(page.locator("#round-invalid")).to_have_text(
        "1 line needs correcting (of 6); nothing was saved."
    )
    expect(page.locator("#save-round")).to_have_count(0)
    screenshot("admin-round-preview-error")
    assert Game.objects.count() == 0

    page.get_by_role("button", name="Use “Fiona Fox”").click()  # one click fixes and previews
    expect(page.locator("#round-preview td.ok")).to_have_count(6)
    expect(page.locator("#id_rows-2-black")).to_have_value("Fiona Fox")
    page.get_by_role("button", name="Save 6 games").click()

    expect(page.locator(".messagelist")).to_contain_text(
        "Saved 6 games of 2026-03-14 (Club championship, round 1)."
    )
    expect(page.locator(".messagelist")).to_contain_text(
        re.compile(r"2026-03 recomputed: \d+ players' ratings changed\.")
    )
    assert Game.objects.count() == 6
    # The list of that date's games, newest first, with every result inside 1280 px.
    expect(page).to_have_url(re.compile(r"date__year=2026&date__month=3&date__day=14"))
    results = page.locator("#result_list td.field-result")
    expect(results).to_have_count(6)
    for index in range(6):
        box = results.nth(index).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= 1280
    screenshot("admin-round-saved-list")

    page.goto(f"{live_server.url}/admin/ladder/player/?q=Anna")
    anna = Player.objects.get(name="Anna Ames")
    assert anna.rating != anna.entry_rating
    expect(page.locator("td.field-rating")).to_have_text(str(anna.rating))
    screenshot("admin-round-saved-ratings")
