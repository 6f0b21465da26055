"""Every changelist reads in a fixed number of queries, however many rows it shows."""

from datetime import date, timedelta

import pytest

from ladder.records import RatingPeriod
from ladder.writes.actions import close_period
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

BUDGET = 12  # measured: 7 to 11 depending on the page, equal at both sizes
CHANGELISTS = [
    "/admin/ladder/player/",
    "/admin/ladder/game/",
    "/admin/ladder/ratingperiod/",
    "/admin/ladder/periodlog/",
    "/admin/ratings/ratingchange/",
]


def grow(rows: int, committed, user) -> None:
    """Add ``rows`` games, each in a month of its own after the last, between fresh players,
    and close the earlier half of the periods (so the log fills too)."""
    last = RatingPeriod.objects.order_by("-start").first()
    first = last.end + timedelta(days=10) if last else date(2010, 1, 15)
    with committed():
        for index in range(rows):
            day = first + timedelta(days=31 * index)
            GameFactory(date=day, white=PlayerFactory(), black=PlayerFactory())
    periods = list(RatingPeriod.objects.order_by("start"))
    for period in periods[: len(periods) // 2]:
        if not period.is_closed:
            close_period(period=period, user=user)


@pytest.mark.parametrize("url", CHANGELISTS)
def test_changelist_queries_stay_flat(
    admin_client, club_admin, committed, django_assert_max_num_queries, url
):
    grow(5, committed, club_admin)
    with django_assert_max_num_queries(BUDGET):
        small = admin_client.get(url)
    assert small.context["cl"].result_count >= 2
    grow(35, committed, club_admin)
    with django_assert_max_num_queries(BUDGET):
        large = admin_client.get(url)
    assert large.context["cl"].result_count >= 17
    assert len(large.context["cl"].result_list) > len(small.context["cl"].result_list)


@pytest.mark.parametrize("path", ["change", "history"])
def test_player_and_period_pages_stay_flat(
    admin_client, club_admin, committed, django_assert_max_num_queries, path
):
    grow(5, committed, club_admin)
    player = PlayerFactory(name="Regular Rita")
    opponents = PlayerFactory.create_batch(3)
    for months in (range(2), range(2, 12)):  # 6 games in 2 periods, then 36 in 12
        with committed():
            for month in months:
                for opponent in opponents:
                    GameFactory(date=date(2026, month + 1, 10), white=player, black=opponent)
        period = RatingPeriod.objects.get(label="2026-01")
        with django_assert_max_num_queries(BUDGET + 2):
            response = admin_client.get(f"/admin/ladder/player/{player.pk}/{path}/")
        assert response.status_code == 200
        with django_assert_max_num_queries(BUDGET + 2):
            response = admin_client.get(f"/admin/ladder/ratingperiod/{period.pk}/{path}/")
        assert response.status_code == 200
