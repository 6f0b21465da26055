"""An unrated player's pool, stored as PostgreSQL's ``json`` (``ratings.models.JSONTextField``):
written by a rating run's COPY and by the ORM, read back by both, on either database."""

from datetime import date

import pytest
from django.db import connection

from ladder.records import RatingPeriod
from ratings.models import RatingChange, Status
from ratings.recompute.services import recompute_from
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db


def _pool_row(committed):
    pooling = UnratedPlayerFactory()
    opponent = PlayerFactory(entry_rating=1700)
    with committed():
        GameFactory(date=date(2026, 3, 9), white=pooling, black=opponent, result="1-0",
                    event="Spring open")  # fmt: skip
    recompute_from(RatingPeriod.objects.get(label="2026-03"))
    return RatingChange.objects.get(player=pooling, rating_list="standard")


def test_a_run_stores_the_pool_and_the_orm_reads_it_as_a_list(committed):
    row = _pool_row(committed)
    assert row.status == Status.UNRATED
    assert row.pool == [["2026-03-09", "event:Spring open", 1700, 10000]]  # a win: 10,000 units
    assert list(RatingChange.objects.filter(pk=row.pk).values_list("pool", flat=True)) == [row.pool]


def test_the_orm_writes_a_pool_back(committed):
    row = _pool_row(committed)
    row.pool = [*row.pool, ["2026-03-10", "Club", 1800, 5000]]
    row.save(update_fields=["pool"])
    row.refresh_from_db()
    assert row.pool[-1] == ["2026-03-10", "Club", 1800, 5000]
    RatingChange.objects.filter(pk=row.pk).update(pool=[])
    assert RatingChange.objects.get(pk=row.pk).pool == []


def test_the_next_period_carries_the_stored_pool_on(committed):
    row = _pool_row(committed)
    opponent = PlayerFactory(entry_rating=1600)
    with committed():
        GameFactory(date=date(2026, 4, 2), white=opponent, black=row.player, result="0-1",
                    event="April rapidplay")  # fmt: skip
    recompute_from(RatingPeriod.objects.get(label="2026-04"))
    april = RatingChange.objects.get(player=row.player, period__label="2026-04")
    assert april.status == Status.UNRATED
    assert april.pool == [*row.pool, ["2026-04-02", "event:April rapidplay", 1600, 10000]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's column type")
def test_the_pool_is_json_text_on_postgresql():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT data_type FROM information_schema.columns "
            "WHERE table_name = %s AND column_name = 'pool'",
            [RatingChange._meta.db_table],
        )
        assert cursor.fetchone() == ("json",)
