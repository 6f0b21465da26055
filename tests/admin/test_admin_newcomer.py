"""The newcomer's walk-through of issue 23 in the admin, in real Chromium at 1280 px: what a
club secretary at a laptop saw, each finding a test."""

import re
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect
from rest_framework.test import APIClient

from ladder.records import ApiToken, Game, RatingPeriod, Result
from ladder.writes import actions
from tests.admin.conftest import club_group
from tests.factories import GameFactory, PeriodFactory, PlayerFactory
from tests.tournaments.files import ROUND_ROBIN

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-Ladder-2026"


@pytest.fixture
def secretary(live_server, page):  # noqa: F811
    """A page logged in to the admin as a member of the Club administrators group."""
    user = User.objects.create_user("secretary", password=PASSWORD, is_staff=True)
    user.groups.add(club_group())
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "secretary")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    return page


def test_games_list_shows_event_round_and_list_at_1280(secretary, live_server, screenshot):
    page = secretary
    ann = PlayerFactory(name="Annabel Longname-Whitfield", fide_id=41000017, entry_rating=2000)
    ben = PlayerFactory(name="Benedikt Aleksandrov-Vale", fide_id=41000002, entry_rating=1900)
    GameFactory(
        white=ann, black=ben, result=Result.DRAW, date=date(2026, 3, 4),
        event="Blitz Night 2026-03", round="5",
    )  # fmt: skip
    page.goto(f"{live_server.url}/admin/ladder/game/")
    shown = page.locator("#changelist .results").bounding_box()
    for header in ("Event", "Round", "List", "Result", "Black"):
        box = page.locator("#result_list thead th", has_text=header).bounding_box()
        assert box is not None, header
        right = box["x"] + box["width"]
        assert right <= shown["x"] + shown["width"] + 0.5, f"{header} is cut off at {right}"
        assert right <= 1280
    row = page.locator("#result_list tbody tr").first
    assert "Blitz Night 2026-03" in row.inner_text()
    screenshot("newcomer-admin-games-1280")


def test_a_clean_round_preview_puts_a_primary_save_on_the_first_screen(
    secretary, live_server, screenshot
):
    page = secretary
    names = [f"Player {chr(65 + i)}{chr(97 + i)}" for i in range(16)]
    for number, name in enumerate(names):
        PlayerFactory(name=name, entry_rating=2000 - 10 * number, fide_id=7000 + number)
    page.goto(f"{live_server.url}/admin/ladder/game/enter-round/")
    page.fill("#id_date", "2026-03-14")
    page.fill("#id_event", "Club championship")
    page.fill("#id_round", "1")
    page.fill(
        "#id_paste",
        "\n".join(f"{names[i]} - {names[i + 1]} 1-0" for i in range(0, 16, 2)),
    )
    page.get_by_role("button", name="Preview").first.click()
    save = page.locator("#save-round")
    save.wait_for()
    assert save.get_attribute("value") == "Save 8 games"
    box = save.bounding_box()
    assert box["y"] + box["height"] <= 900, f"Save sits at {box['y']:.0f} px"
    # The primary style: the admin's default button, not a plain one.
    assert "default" in save.get_attribute("class").split()
    primary = page.evaluate(
        "getComputedStyle(document.querySelector('.submit-row input.default')).backgroundColor"
    )
    assert (
        page.evaluate("getComputedStyle(document.querySelector('#save-round')).backgroundColor")
        == primary
    )
    screenshot("newcomer-admin-round-ready-1280")
    save.click()
    page.locator(".messagelist").get_by_text("Saved 8 games of 2026-03-14").wait_for()


@pytest.fixture
def superuser_page(live_server, page):  # noqa: F811
    User.objects.create_superuser("boss", password=PASSWORD)
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    return page


def test_the_admin_issues_a_working_hashed_token_shown_once(
    superuser_page, live_server, screenshot
):
    page = superuser_page
    reader = User.objects.create_user("reader", is_staff=True)
    # DRF's plain-text "Auth Token" admin is gone: its tokens were refused by the API.
    assert page.get_by_role("link", name="Tokens", exact=True).count() == 0
    assert page.goto(f"{live_server.url}/admin/authtoken/tokenproxy/add/").status == 404
    page.goto(f"{live_server.url}/admin/")
    page.get_by_role("link", name="Api tokens").click()
    page.get_by_role("link", name="Add api token").click()
    page.select_option("#id_user", label="reader")
    page.fill("#id_name", "results script")
    page.fill("#id_days", "0")
    page.get_by_role("button", name="Save", exact=True).click()
    page.locator(".errorlist").filter(has_text="Ensure this value is greater than").wait_for()
    assert ApiToken.objects.count() == 0
    page.fill("#id_days", "30")
    page.get_by_role("button", name="Save", exact=True).click()
    message = page.locator(".messagelist .warning").inner_text()
    key = re.search(r"key is (\S+) —", message).group(1)
    token = ApiToken.objects.get()
    assert (token.user, token.name, token.prefix) == (reader, "results script", key[:8])
    assert token.digest == ApiToken.hash(key)  # hashed at rest
    assert key not in token.digest
    assert 29 <= (token.expires_at - timezone.now()).days <= 30
    screenshot("newcomer-admin-token-issued-1280")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/players/").status_code == 200  # the API takes it
    client.credentials(HTTP_AUTHORIZATION=f"Token {key[:-1]}x")
    assert client.get("/api/v1/players/").status_code == 401  # a wrong key it refuses
    # The key is not shown again: not in the list, not on the token's page.
    page.goto(f"{live_server.url}/admin/ladder/apitoken/")
    assert key not in page.content()
    page.goto(f"{live_server.url}/admin/ladder/apitoken/{token.pk}/change/")
    assert key not in page.content()
    # Revoked from the list, the API refuses it.
    page.goto(f"{live_server.url}/admin/ladder/apitoken/")
    page.locator("#result_list input.action-select").first.check()
    page.select_option("select[name=action]", "revoke")
    page.get_by_role("button", name="Go").click()
    page.locator(".messagelist").get_by_text("Revoked 1 token.").wait_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/players/").status_code == 401


@pytest.mark.parametrize("how", ["change page", "list action"])
def test_an_empty_period_is_deleted_and_a_period_with_games_is_refused_saying_why(
    secretary, live_server, screenshot, how
):
    page = secretary
    empty = PeriodFactory(label="2026-05", start=date(2026, 5, 1), end=date(2026, 5, 31))
    GameFactory(date=date(2026, 3, 4))
    played = RatingPeriod.objects.get(label="2026-03")
    if how == "change page":
        page.goto(f"{live_server.url}/admin/ladder/ratingperiod/{played.pk}/delete/")
        message = page.locator(".messagelist .error")
        message.wait_for()
        assert "Nothing was deleted." in message.inner_text()
        assert "game" in message.inner_text()  # why: it holds games
        page.goto(f"{live_server.url}/admin/ladder/ratingperiod/{empty.pk}/change/")
        page.get_by_role("link", name="Delete").click()
        page.get_by_role("button", name="Yes, I’m sure").click()
    else:
        page.goto(f"{live_server.url}/admin/ladder/ratingperiod/")
        page.locator(f"#result_list input.action-select[value='{empty.pk}']").check()
        page.select_option("select[name=action]", "delete_selected")
        page.get_by_role("button", name="Go").click()
        page.get_by_role("button", name="Yes, I’m sure").click()
    page.locator(".messagelist .success").filter(has_text="deleted").wait_for()
    assert not RatingPeriod.objects.filter(pk=empty.pk).exists()
    assert RatingPeriod.objects.filter(pk=played.pk).exists()
    screenshot(f"newcomer-admin-period-deleted-{how.replace(' ', '-')}")


def test_a_tournament_file_preview_names_the_k_40_starters_and_the_import_lands_on_its_games(
    secretary, live_server, screenshot, tmp_path
):
    page = secretary
    GameFactory(date=date(2026, 3, 20), event="Another evening")  # not the file's
    path = tmp_path / "spring.trf"
    path.write_text(ROUND_ROBIN, encoding="utf-8")
    page.goto(f"{live_server.url}/admin/ladder/game/import-file/")
    page.set_input_files("input[type=file]", str(path))
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#content-main")
    expect(preview).to_contain_text("Players: 0 matched, 4 new.")
    text = preview.inner_text()
    hernandez = next(line for line in text.splitlines() if "Hernandez" in line)
    assert "2282, starts at K 40" in hernandez  # a new rated player, no rated game yet
    doe = next(line for line in text.splitlines() if "new: Jane Doe" in line)
    assert "K " not in doe  # unrated: no K until a first rating
    screenshot("newcomer-admin-trf-preview-1280")
    page.get_by_role("button", name="Import 6 games").click()
    page.locator(".messagelist").get_by_text("Imported 6 games of 'Spring Round Robin'").wait_for()
    tournament = Game.objects.exclude(event="Another evening").first().tournament
    assert f"tournament__id__exact={tournament.pk}" in page.url
    expect(page.locator("#result_list tbody tr")).to_have_count(6)
    assert "Another evening" not in page.locator("#result_list").inner_text()
    screenshot("newcomer-admin-trf-imported-1280")


def test_reopening_from_a_game_leads_back_to_it_and_closing_again_links_the_revision(
    secretary, live_server, screenshot
):
    page = secretary
    ann = PlayerFactory(name="Ann Able", entry_rating=1800)
    ben = PlayerFactory(name="Ben Best", entry_rating=1700)
    game = GameFactory(white=ann, black=ben, result=Result.WHITE_WIN, date=date(2026, 3, 4))
    march = RatingPeriod.objects.get(label="2026-03")
    actions.close_period(period=march)
    game_url = f"{live_server.url}/admin/ladder/game/{game.pk}/change/"
    page.goto(game_url)
    page.get_by_role("button", name="Reopen 2026-03…").click()
    page.fill("#id_reason", "The result was entered reversed.")
    page.get_by_role("button", name="Reopen").click()
    page.locator(".messagelist").get_by_text("The period 2026-03 is reopened").wait_for()
    assert page.url == game_url  # back on the game the reopening started from
    page.select_option("#id_result", "0-1")
    page.get_by_role("button", name="Save", exact=True).click()
    page.goto(f"{live_server.url}/admin/ladder/ratingperiod/")
    page.locator(f"#result_list input.action-select[value='{march.pk}']").check()
    page.select_option("select[name=action]", "close_periods")
    page.get_by_role("button", name="Go").click()
    message = page.locator(".messagelist li", has_text="The period 2026-03 is closed")
    expect(message).to_contain_text("Published: standard list, revision 2")
    link = message.get_by_role("link", name="standard list, revision 2")
    screenshot("newcomer-admin-closed-again-1280")
    link.click()
    expect(page.locator("#period-publications")).to_contain_text("The result was entered reversed.")
