"""The player admin's privacy tools: the data export (JSON, CSV zip) and erasure with a reason."""

import io
import json
import zipfile
from http import HTTPStatus
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User

from ladder.records import Player

pytestmark = pytest.mark.django_db

URL = "/admin/ladder/player/"


def shown(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def erase(client, *players, **extra):
    """Run the erase action and follow its redirect."""
    data = {"action": "erase_players", "_selected_action": [p.pk for p in players], **extra}
    return client.post(URL, data, follow=True)


@pytest.fixture
def played(club, march, make_games):
    alice, bob = club["Alice Brown"], club["Bob Green"]
    make_games(1, white=alice, black=bob, result="1-0", event="Club night")
    make_games(1, white=club["Carol White"], black=alice, result="1/2-1/2")
    return club


def test_the_player_page_links_both_exports(admin_client, played):
    alice = played["Alice Brown"]
    page = admin_client.get(f"{URL}{alice.pk}/change/").content.decode()
    assert f'href="{URL}{alice.pk}/export/json/" id="export-json"' in page
    assert f'href="{URL}{alice.pk}/export/csv/" id="export-csv"' in page
    assert 'form="erase-player"' in page


def test_the_json_export_is_a_download_of_everything(
    admin_client, played, django_assert_max_num_queries
):
    alice = played["Alice Brown"]
    # session, user, permissions, the player, then the export's 7 reads (1 a section, and the
    # content type): the same for any number of games (tests/ladder/test_privacy.py)
    with django_assert_max_num_queries(12):
        response = admin_client.get(f"{URL}{alice.pk}/export/json/")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="player-{alice.pk}.json"'
    data = json.loads(response.content)
    assert data["player"]["name"] == "Alice Brown"
    assert sorted(g["opponent"] for g in data["games"]) == ["Bob Green", "Carol White"]


def test_the_csv_export_is_a_zip(admin_client, played):
    alice = played["Alice Brown"]
    response = admin_client.get(f"{URL}{alice.pk}/export/csv/")
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert "Club night" in archive.read("games.csv").decode()


def test_the_export_needs_the_view_permission(client, played, staff_without_permissions):
    alice = played["Alice Brown"]
    assert client.get(f"{URL}{alice.pk}/export/json/").status_code == HTTPStatus.FOUND  # login
    client.force_login(staff_without_permissions)
    assert client.get(f"{URL}{alice.pk}/export/json/").status_code == HTTPStatus.FORBIDDEN
    view = Permission.objects.get(codename="view_player")
    staff_without_permissions.user_permissions.add(view)
    assert client.get(f"{URL}{alice.pk}/export/json/").status_code == HTTPStatus.OK
    assert client.get(f"{URL}99999/export/json/").status_code == HTTPStatus.NOT_FOUND


def test_erasure_asks_for_a_reason_then_erases(admin_client, club_admin, played):
    alice = played["Alice Brown"]
    form = erase(admin_client, alice)
    assert form.status_code == HTTPStatus.OK
    page = form.content.decode()
    assert "Erase players&#x27; personal data" in page
    assert "This cannot be undone." in page
    assert f"Alice Brown (1001) (#{alice.pk})" in page
    blank = erase(admin_client, alice, apply="Erase", reason="  ")
    assert "Give a reason for the erasure; it is recorded." in blank.content.decode()
    assert Player.objects.get(pk=alice.pk).name == "Alice Brown"
    done = erase(admin_client, alice, apply="Erase", reason="Her request of 1 Dec")
    assert done.redirect_chain == [(URL, HTTPStatus.FOUND)]
    assert shown(done) == [
        f"Player #{alice.pk} is erased: now 'Erased player #{alice.pk}'. Games and ratings are "
        "unchanged."
    ]
    stored = Player.objects.get(pk=alice.pk)
    assert (stored.name, stored.fide_id) == (f"Erased player #{alice.pk}", None)
    newest = stored.history.order_by("-history_date").first()
    assert (newest.history_change_reason, newest.history_user) == (
        "Erased: Her request of 1 Dec",
        club_admin,
    )
    again = erase(admin_client, stored)
    assert "erased already, nothing to erase" in again.content.decode()
    twice = erase(admin_client, stored, apply="Erase", reason="Again")
    assert shown(twice)[0].startswith(f"Erased player #{alice.pk} was erased already on ")


def test_erasure_needs_the_delete_permission(client, played, staff_without_permissions):
    alice = played["Alice Brown"]
    staff_without_permissions.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_player", "change_player"])
    )
    client.force_login(staff_without_permissions)
    page = client.get(f"{URL}{alice.pk}/change/").content.decode()
    assert 'form="erase-player"' not in page
    erase(client, alice, apply="Erase", reason="Asked")
    assert Player.objects.get(pk=alice.pk).name == "Alice Brown"


def test_the_confirmation_page_reads_in_a_constant_number_of_queries(
    admin_client, played, django_assert_max_num_queries
):
    for chosen in ([played["Alice Brown"]], list(played.values())):  # one player, or four
        with django_assert_max_num_queries(8):
            response = erase(admin_client, *chosen)
        assert response.status_code == HTTPStatus.OK


def test_a_superuser_sees_the_erase_action(client, played):
    boss = User.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(boss)
    page = client.get(URL).content.decode()
    assert "Erase the selected players&#x27; personal data (asks for a reason)" in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_secretary_exports_then_erases_a_player_in_a_browser(live_server, page, screenshot):
    from playwright.sync_api import expect

    from tests.admin.conftest import club_group
    from tests.factories import PlayerFactory

    fiona = PlayerFactory(name="Fiona Walsh", fide_id=4100018, federation="ENG")
    user = User.objects.create_user("clubadmin", password="pw-Ladder-2026", is_staff=True)
    user.groups.add(club_group())
    page.goto(f"{live_server.url}/admin/login/?next={URL}{fiona.pk}/change/")
    page.fill("#id_username", "clubadmin")
    page.fill("#id_password", "pw-Ladder-2026")
    page.click("input[type=submit]")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export data (JSON)").click()
    assert download.value.suggested_filename == f"player-{fiona.pk}.json"
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported["player"]["fide_id"] == 4100018
    page.get_by_role("button", name="Erase personal data…").click()
    expect(page.get_by_role("heading", name="Erase players' personal data")).to_be_visible()
    screenshot("admin-erase-confirmation")
    page.fill("#id_reason", "Her request of 1 December")
    page.get_by_role("button", name="Erase").click()
    expect(page.locator("ul.messagelist")).to_contain_text(
        f"Player #{fiona.pk} is erased: now 'Erased player #{fiona.pk}'."
    )
    assert Player.objects.get(pk=fiona.pk).name == f"Erased player #{fiona.pk}"
