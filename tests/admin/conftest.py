"""Admin fixtures: users in each role, logged-in clients, a small rated club."""

import importlib
from datetime import date

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, User

from tests.factories import GameFactory, PeriodFactory, PlayerFactory

GROUP = "Club administrators"
MIGRATION = importlib.import_module("ladder.migrations.0002_club_administrators")


def club_group() -> Group:
    """Return the group made by the data migration, remade if a transactional test flushed it."""
    if not Group.objects.filter(name=GROUP).exists():
        MIGRATION.create_group(apps, None)
    return Group.objects.get(name=GROUP)


@pytest.fixture
def club_admin(db) -> User:
    user = User.objects.create_user("clubadmin", is_staff=True)
    user.groups.add(club_group())
    return user


@pytest.fixture
def staff_without_permissions(db) -> User:
    return User.objects.create_user("staff", is_staff=True)


@pytest.fixture
def admin_client(client, club_admin):
    """A client logged in as a member of the Club administrators group (not a superuser)."""
    client.force_login(club_admin)
    return client


@pytest.fixture
def march(db):
    return PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))


@pytest.fixture
def april(db):
    return PeriodFactory(start=date(2026, 4, 1), end=date(2026, 4, 30))


@pytest.fixture
def club(db):
    """Four rated players with distinct names and FIDE ids."""
    return {
        name: PlayerFactory(name=name, fide_id=fide_id, entry_rating=rating)
        for name, fide_id, rating in (
            ("Alice Brown", 1001, 1900),
            ("Bob Green", 1002, 1800),
            ("Carol White", 1003, 1700),
            ("Dan Black", 1004, 1600),
        )
    }


@pytest.fixture
def make_games(committed):
    """Record games through the signals (a real commit runs the recompute)."""

    def make(count: int, **fields):
        with committed():
            return GameFactory.create_batch(count, **fields)

    return make
