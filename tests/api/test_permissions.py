"""The permission matrix: reads are public; writes need a user with the model permission."""

from http import HTTPStatus

import pytest
from django.contrib.auth.models import Permission
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

from ladder.records import ApiToken

pytestmark = pytest.mark.django_db


def writes(club) -> dict:
    """Every write endpoint: (method, path, body, status for a user with the permission)."""
    new_game = {"date": "2026-04-20", "white": club.cleo.pk, "black": club.anna.pk, "result": "1-0"}
    return {
        "create player": ("post", "/api/v1/players/", {"name": "New"}, HTTPStatus.CREATED),
        "update player": (
            "put",
            f"/api/v1/players/{club.cleo.pk}/",
            {"name": "Cleo C.", "birth_year": 2012},
            HTTPStatus.OK,
        ),
        "patch player": (
            "patch", f"/api/v1/players/{club.cleo.pk}/", {"federation": "ENG"}, HTTPStatus.OK
        ),
        "record game": ("post", "/api/v1/games/", new_game, HTTPStatus.CREATED),
        "correct game": ("put", f"/api/v1/games/{club.april.pk}/", new_game, HTTPStatus.OK),
        "patch game": (
            "patch", f"/api/v1/games/{club.april.pk}/", {"round": "3"}, HTTPStatus.OK
        ),
        "delete game": ("delete", f"/api/v1/games/{club.april.pk}/", None, HTTPStatus.NO_CONTENT),
        "close period": ("post", f"/api/v1/periods/{club.march.pk}/close/", None, HTTPStatus.OK),
        "reopen period": (
            "post",
            f"/api/v1/periods/{club.march.pk}/reopen/",
            {"reason": "A correction."},
            HTTPStatus.CONFLICT,  # the period is open: allowed through, refused by the service
        ),
    }  # fmt: skip


WRITES = [
    "create player", "update player", "patch player", "record game", "correct game",
    "patch game", "delete game", "close period", "reopen period",
]  # fmt: skip


def call(client, method, path, body):
    return getattr(client, method)(path, body, format="json")


@pytest.mark.parametrize("name", WRITES)
def test_anonymous_writes_are_401(anon, club, name):
    method, path, body, _ = writes(club)[name]

    response = call(anon, method, path, body)

    assert response.status_code == HTTPStatus.UNAUTHORIZED
    assert response.json() == {"detail": "Authentication credentials were not provided."}
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("name", WRITES)
def test_writes_without_the_permission_are_403(viewer, club, name):
    method, path, body, _ = writes(club)[name]

    response = call(viewer, method, path, body)

    assert response.status_code == HTTPStatus.FORBIDDEN
    assert response.json() == {"detail": "You do not have permission to perform this action."}


@pytest.mark.parametrize("name", WRITES)
def test_writes_with_the_permission_succeed(editor, club, committed, name):
    method, path, body, status = writes(club)[name]

    with committed():
        response = call(editor, method, path, body)

    assert response.status_code == status, response.content


def test_a_permission_on_another_model_is_not_enough(viewer_user, club):
    viewer_user.user_permissions.add(Permission.objects.get(codename="add_player"))
    client = APIClient()
    client.force_authenticate(viewer_user)

    response = call(client, *writes(club)["record game"][:3])

    assert response.status_code == HTTPStatus.FORBIDDEN


READS = [
    "/api/v1/players/",
    "/api/v1/players/{anna}/",
    "/api/v1/players/{anna}/history/",
    "/api/v1/games/",
    "/api/v1/games/{win}/",
    "/api/v1/periods/",
    "/api/v1/periods/{march}/",
    "/api/v1/rating-list/",
    "/api/v1/schema/",
    "/api/v1/docs/",
]


@pytest.mark.parametrize("role", ["anon", "viewer", "editor"])
@pytest.mark.parametrize("path", READS)
def test_reads_are_public(request, club, role, path):
    client = request.getfixturevalue(role)
    path = path.format(anna=club.anna.pk, win=club.win.pk, march=club.march.pk)

    assert client.get(path).status_code == HTTPStatus.OK


@pytest.mark.parametrize("role", ["anon", "viewer"])
def test_the_calculator_is_open_to_everyone(request, db, role):
    client = request.getfixturevalue(role)

    response = client.post(
        "/api/v1/calculator/", {"rating": 1800, "k": 20, "opponent": 1800}, format="json"
    )

    assert response.status_code == HTTPStatus.OK


def test_token_authentication(editor_user, club, committed):
    _, key = ApiToken.issue(editor_user, days=1)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    with committed():
        response = client.patch(f"/api/v1/games/{club.april.pk}/", {"round": "7"}, format="json")

    assert response.status_code == HTTPStatus.OK


def test_bad_token_is_401(club):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")

    response = client.get("/api/v1/players/")

    assert response.status_code == HTTPStatus.UNAUTHORIZED
    assert response.json() == {"detail": "Invalid token."}


def test_session_authentication_checks_csrf(editor_user, club):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(editor_user)

    response = client.patch(f"/api/v1/games/{club.april.pk}/", {"round": "7"}, format="json")

    assert response.status_code == HTTPStatus.FORBIDDEN
    assert "CSRF" in response.json()["detail"]


def test_session_authentication(editor_user, club, committed):
    client = APIClient()
    client.force_login(editor_user)

    with committed():
        response = client.patch(f"/api/v1/games/{club.april.pk}/", {"round": "7"}, format="json")

    assert response.status_code == HTTPStatus.OK


@pytest.mark.parametrize("who", ["anon", "viewer"])
def test_anonymous_traffic_is_throttled_and_a_tokens_is_not(who, request, db):
    client = request.getfixturevalue(who)
    cache.clear()
    original = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = {**original, "anon": "2/hour"}
    try:
        statuses = [client.get("/api/v1/periods/").status_code for _ in range(3)]
    finally:
        AnonRateThrottle.THROTTLE_RATES = original
        cache.clear()

    last = HTTPStatus.TOO_MANY_REQUESTS if who == "anon" else HTTPStatus.OK
    assert statuses == [HTTPStatus.OK, HTTPStatus.OK, last]
