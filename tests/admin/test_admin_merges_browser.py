"""A rating officer clears the Duplicates page in a real browser: one pair is two people, the
other one person entered twice."""

from datetime import date

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from ladder.records import Game, NotDuplicate, Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.admin.conftest import club_group
from tests.factories import PlayerFactory

PASSWORD = "pw-Ladder-2026"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_duplicates_not_a_duplicate_then_merge(live_server, page, screenshot):  # noqa: F811
    ann = PlayerFactory(name="Ann Able", fide_id=7001, birth_year=1980, federation="ENG")
    dup = PlayerFactory(name="Able, Ann", birth_year=1980, federation="ENG")
    PlayerFactory(name="Tom Twin", birth_year=1990, federation="ENG")
    PlayerFactory(name="Tom Twinn", birth_year=1990, federation="ENG")
    bob = PlayerFactory(name="Bob Best", fide_id=7002)
    actions.enter_games(
        games=[GameEntry(date=date(2026, 3, 2), white=dup, black=bob, result="1-0")]
    )
    user = User.objects.create_user("clubadmin", password=PASSWORD, is_staff=True)
    user.groups.add(club_group())

    page.goto(f"{live_server.url}/admin/login/?next=/admin/ladder/player/")
    page.fill("#id_username", "clubadmin")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.get_by_role("link", name="Duplicates").click()
    rows = page.locator("#duplicates tbody tr")
    expect(rows).to_have_count(2)
    twins = rows.filter(has_text="Tom Twinn")
    expect(twins).to_contain_text("close names (Tom Twin / Tom Twinn")
    screenshot("admin-duplicates")
    twins.get_by_role("button", name="Not a duplicate").click()
    expect(page.locator(".messagelist")).to_contain_text("are two people")
    expect(rows).to_have_count(1)
    assert NotDuplicate.objects.count() == 1

    rows.get_by_role("link", name="Merge…").click()
    expect(page.locator("#merge-players")).to_contain_text("Able, Ann")
    page.get_by_role("button", name="Merge").click()  # no reason yet
    expect(page.locator(".errorlist")).to_contain_text("Give a reason for the merge")
    page.fill("#id_reason", "Entered twice at the spring open")
    page.get_by_role("button", name="Merge").click()
    expect(page.locator(".messagelist")).to_contain_text(
        "Merged Able, Ann into Ann Able (7001): 1 game moved, rated again from 2026-03."
    )
    assert Game.objects.get().white_id == ann.pk
    assert Player.objects.get(pk=dup.pk).merged_into_id == ann.pk
