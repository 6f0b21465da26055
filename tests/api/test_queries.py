"""Every list endpoint reads in a fixed number of queries, whatever the page size."""

from datetime import date, timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test import TestCase, override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from ladder.records import PeriodLog, Player, RatingPeriod
from ladder.writes import actions
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

SIZES = [3, 30]
LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n}-rows")
def crowd(request, django_db_setup, django_db_blocker) -> Player:
    """``n`` players, each with a game in each of ``n`` months against the first player.

    Built once per size for the whole module, as ``TestCase.setUpTestData`` does: inside a
    transaction rolled back when the module is done, each test in a savepoint within it.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        with override_settings(CACHES=LOCAL_CACHE):  # as the tests' own cache (tests/conftest.py)
            hero = build_crowd(request.param)
        yield hero
        transaction.set_rollback(True)


def build_crowd(size: int) -> Player:
    with TestCase.captureOnCommitCallbacks(execute=True):
        players = PlayerFactory.create_batch(size)
        hero = players[0]
        for i in range(1, size):
            day = date(2024, 1, 15) + timedelta(days=31 * i)
            other, third = players[i], players[i % (size - 1) + 1]
            GameFactory(white=hero, black=other, date=day, result="1/2-1/2", event=f"Round {i}")
            GameFactory(white=other, black=third, date=day, result="1-0")
            GameFactory(
                white=other,
                black=hero,
                date=day,
                result="1-0",
                rating_list="rapid",
                time_control="15+10",
            )
    first = RatingPeriod.objects.order_by("start").first()
    user = User.objects.create_user("closer")
    actions.close_period(period=first, user=user)
    actions.reopen_period(period=first, reason="A check.", user=user)
    assert PeriodLog.objects.count() == 2
    return hero


def crowd_periods() -> int:
    return RatingPeriod.objects.count()


# (path, queries): a full page and its count, plus what each endpoint reads once per request.
# A first page shorter than a page is counted by its rows, a query less (``SHORT``).
ENDPOINTS = {
    # + the official lists (publications, the page's lines); the year K is counted in and
    # FIDE's rows come with the page's players
    "players": ("/api/v1/players/", 4),
    # the player with the current year for K and FIDE's row, the official lists with the
    # player's lines
    "player": ("/api/v1/players/{hero}/", 2),
    "games": ("/api/v1/games/", 2),
    "periods": ("/api/v1/periods/", 2),
    # + player, games, their players, opening ratings (on PostgreSQL the games with the
    # other two: ``JOINED``)
    "history": ("/api/v1/players/{hero}/history/", 6),
    "rating list": ("/api/v1/rating-list/", 3),  # latest period, changes, players
    "period report": ("/api/v1/periods/{period}/", 4),  # period, log, report, publications
    # ?list= reads another list's columns and rows, in as many queries.
    "players (rapid)": ("/api/v1/players/?list=rapid&ordering=-rating", 4),
    "games (rapid)": ("/api/v1/games/?list=rapid", 2),
    "history (rapid)": ("/api/v1/players/{hero}/history/?list=rapid", 6),
    "rating list (rapid)": ("/api/v1/rating-list/?list=rapid", 3),
    "period report (rapid)": ("/api/v1/periods/{period}/?list=rapid", 4),
    "rating runs (rapid)": ("/api/v1/rating-runs/?list=rapid", 2),
}


# The endpoints paged by page numbers (``ladder.api.pagination.PageNumbers``): a short first
# page asks no count.
SHORT = {
    "players", "games", "periods", "history", "players (rapid)", "games (rapid)",
    "history (rapid)", "rating runs (rapid)",
}  # fmt: skip


# On PostgreSQL a page of history reads its games, their players and their opening ratings in
# one statement (``ratings.selectors._joined``): two queries fewer.
JOINED = {"history", "history (rapid)"}


@pytest.mark.parametrize("name", list(ENDPOINTS))
def test_queries_do_not_grow_with_the_rows(crowd, name):
    path, queries = ENDPOINTS[name]
    if name in JOINED and connection.vendor == "postgresql":
        queries -= 2
    period = RatingPeriod.objects.order_by("start").first()
    path = path.format(hero=crowd.pk, period=period.pk)
    client = APIClient()

    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)

    assert response.status_code == 200
    body = response.json()
    if name in SHORT and body["count"] < settings.REST_FRAMEWORK["PAGE_SIZE"]:
        queries -= 1
        assert len(body["results"]) == body["count"]
    assert len(captured) == queries, [q["sql"] for q in captured]
    if name == "player":
        assert body["id"] == crowd.pk
        return
    rows = body.get("results", body.get("report"))
    # One rapid game a month: a rapid period has two rows, the runs may have merged into one.
    assert len(rows) >= (1 if "rapid" in name else min(3, crowd_periods()))
