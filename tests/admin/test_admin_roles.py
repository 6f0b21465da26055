"""Roles: the Club administrators group has exactly its permissions; others are kept out."""

from http import HTTPStatus

import pytest
from django.contrib.auth.models import User

from ladder.records import Game
from tests.admin.conftest import club_group

pytestmark = pytest.mark.django_db

PAGES = [
    "/admin/",
    "/admin/ladder/player/",
    "/admin/ladder/player/add/",
    "/admin/ladder/game/",
    "/admin/ladder/game/add/",
    "/admin/ladder/game/enter-round/",
    "/admin/ladder/tournament/",
    "/admin/ladder/tournament/add/",
    "/admin/ladder/ratingperiod/",
    "/admin/ladder/ratingperiod/add/",
    "/admin/ladder/periodlog/",
    "/admin/ratings/ratingchange/",
]


def test_group_has_exactly_the_permissions_to_run_the_ladder():
    group = club_group()
    granted = {
        f"{p.content_type.app_label}.{p.codename}"
        for p in group.permissions.select_related("content_type")
    }
    expected = {
        f"ladder.{action}_{model}"
        for model in ("player", "game", "ratingperiod", "tournament", "basecorrection")
        for action in ("add", "change", "delete", "view")
    } | {"ladder.view_periodlog", "ratings.view_ratingchange"}
    assert granted == expected


@pytest.mark.parametrize("url", PAGES)
def test_club_administrator_reaches_every_page(admin_client, club, march, make_games, url):
    games = make_games(1, white=club["Alice Brown"], black=club["Bob Green"])
    response = admin_client.get(url)
    assert response.status_code == HTTPStatus.OK
    for extra in (
        f"/admin/ladder/game/{games[0].pk}/change/",
        f"/admin/ladder/game/{games[0].pk}/history/",
        f"/admin/ladder/player/{games[0].white_id}/history/",
        f"/admin/ladder/ratingperiod/{march.pk}/history/",
    ):
        assert admin_client.get(extra).status_code == HTTPStatus.OK


def test_club_administrator_cannot_edit_derived_records(admin_client):
    assert admin_client.get("/admin/ratings/ratingchange/add/").status_code == (
        HTTPStatus.FORBIDDEN
    )
    assert admin_client.get("/admin/ladder/periodlog/add/").status_code == HTTPStatus.FORBIDDEN


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_and_non_staff_users_are_sent_to_the_login(client, url):
    assert client.get(url).url.startswith("/admin/login/")
    member = User.objects.create_user("member")
    member.groups.add(club_group())
    client.force_login(member)  # in the group, but not staff
    assert client.get(url).url.startswith("/admin/login/")


def test_staff_without_permissions_cannot_change_results(
    client, staff_without_permissions, club, march
):
    client.force_login(staff_without_permissions)
    game = Game.objects.create(
        date=march.start, white=club["Alice Brown"], black=club["Bob Green"], result="1-0"
    )
    forbidden = [
        client.get("/admin/ladder/game/"),
        client.get(f"/admin/ladder/game/{game.pk}/change/"),
        client.post(
            f"/admin/ladder/game/{game.pk}/change/",
            {"date": "2026-03-01", "white": game.white_id, "black": game.black_id, "result": "0-1"},
        ),
        client.post(f"/admin/ladder/game/{game.pk}/delete/", {"post": "yes"}),
        client.get("/admin/ladder/game/enter-round/"),
        client.post("/admin/ladder/game/enter-round/", {"date": "2026-03-02", "_save": "1"}),
    ]
    assert [r.status_code for r in forbidden] == [HTTPStatus.FORBIDDEN] * len(forbidden)
    game.refresh_from_db()
    assert game.result == "1-0"


def test_viewer_cannot_enter_a_round(client, club):
    viewer = User.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(*club_group().permissions.filter(codename__startswith="view_"))
    client.force_login(viewer)
    assert client.get("/admin/ladder/game/").status_code == HTTPStatus.OK
    assert b"Enter a round" not in client.get("/admin/ladder/game/").content
    assert client.get("/admin/ladder/game/enter-round/").status_code == HTTPStatus.FORBIDDEN
