"""Fixtures of the API tests: clients for each role and a small club with rated games."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Permission, User
from rest_framework.test import APIClient

from ladder.writes import actions
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

EDITOR_PERMISSIONS = [
    "add_player",
    "change_player",
    "add_game",
    "change_game",
    "delete_game",
    "change_ratingperiod",
]


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def viewer_user(db) -> User:
    return User.objects.create_user("viewer")


@pytest.fixture
def editor_user(db) -> User:
    user = User.objects.create_user("editor")
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="ladder", codename__in=EDITOR_PERMISSIONS)
    )
    return user


@pytest.fixture
def viewer(viewer_user) -> APIClient:
    """Authenticated, without any model permission."""
    client = APIClient()
    client.force_authenticate(viewer_user)
    return client


@pytest.fixture
def editor(editor_user) -> APIClient:
    """Authenticated, with the model permissions a results secretary holds."""
    client = APIClient()
    client.force_authenticate(editor_user)
    return client


@pytest.fixture
def superuser(db) -> APIClient:
    """A superuser holds every permission: what is refused is refused for the method."""
    client = APIClient()
    client.force_authenticate(User.objects.create_superuser("root"))
    return client


@pytest.fixture
def club(db, committed) -> SimpleNamespace:
    """Three players, two games in March 2026 and one in April, ratings recomputed."""
    with committed():
        anna = PlayerFactory(name="Anna Alekhina", fide_id=4100001, entry_rating=2000)
        boris = PlayerFactory(name="Boris Botvin", fide_id=4100002, entry_rating=1800)
        cleo = UnratedPlayerFactory(name="Cleo Carls", birth_year=2012)
        win = GameFactory(
            white=anna, black=boris, result="1-0", date=date(2026, 3, 10), event="Club Cup"
        )
        draw = GameFactory(white=boris, black=cleo, result="1/2-1/2", date=date(2026, 3, 12))
        april = GameFactory(
            white=anna, black=boris, result="0-1", date=date(2026, 4, 5), event="Spring Open"
        )
    for player in (anna, boris, cleo):
        player.refresh_from_db()
    march, april_period = win.period, april.period
    return SimpleNamespace(
        anna=anna,
        boris=boris,
        cleo=cleo,
        win=win,
        draw=draw,
        april=april,
        march=march,
        april_period=april_period,
    )


@pytest.fixture
def closed_march(club, editor_user) -> SimpleNamespace:
    """The club with March closed."""
    club.march = actions.close_period(period=club.march, user=editor_user)
    return club
