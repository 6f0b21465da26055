"""A long replay may write its rows without the rating table's index by player and build it
again at the end (``LADDER_EXCLUSIVE_REPLAY_PERIODS``, PostgreSQL): the same ratings, the index
back whatever happens (a failure, ``kill -9``), duplicates refused, and the table locked
meanwhile, as documented."""

from __future__ import annotations

import os
import signal
from datetime import date
from typing import Any

import psycopg
import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from ladder.records import Game, Player, RatingList, RatingPeriod, Tournament
from ratings.models import RatingChange
from ratings.recompute import columns, replay, services
from tests.ratings.snapshots import snapshot
from tests.ratings.test_workers import database_url, replaying, wait_for, waiting
from tests.ratings.three_lists import MONTHS, three_list_club

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the index is set aside on PostgreSQL only"
    ),
]

LISTS = list(RatingList.values)
INDEX = "one_change_per_period"


@pytest.fixture
def club() -> list[Player]:
    """Four monthly periods of games on the three lists among rated players and newcomers."""
    return three_list_club(10, 41)


@pytest.fixture
def exclusive(settings) -> None:
    settings.LADDER_EXCLUSIVE_REPLAY_PERIODS = len(MONTHS)


def replay_all(dry_run: bool = False) -> dict[str, services.Recompute]:
    first = RatingPeriod.objects.order_by("start").first()
    return services.recompute_lists(first, rating_lists=LISTS, dry_run=dry_run)


def index_there() -> bool:
    """Whether the rating table has its unique index by player, as the migrations made it."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, RatingChange._meta.db_table)
    return INDEX in found and found[INDEX]["unique"] and found[INDEX]["columns"] == [
        "player_id", "rating_list", "period_id",
    ]  # fmt: skip


def ddl(queries: CaptureQueriesContext) -> list[str]:
    """The statements that dropped or added the index, in order: "drop" or "add"."""
    found = []
    for query in queries.captured_queries:
        sql = query["sql"]
        if f'DROP CONSTRAINT "{INDEX}"' in sql:
            found.append("drop")
        elif f'ADD CONSTRAINT "{INDEX}"' in sql:
            found.append("add")
    return found


def test_an_exclusive_replay_rates_as_a_replay_through_the_index(club, settings):
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert ddl(queries) == []  # off by default
    expected = snapshot()
    assert len(expected[0]) > 3 * len(MONTHS) * 10  # rows on every list, every month
    RatingChange.objects.all().delete()

    settings.LADDER_EXCLUSIVE_REPLAY_PERIODS = len(MONTHS)
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert ddl(queries) == ["drop", "add"]
    assert index_there()
    assert snapshot() == expected
    with CaptureQueriesContext(connection) as queries:
        replay_all()  # again, over the rows it wrote: each period's deleted and written anew
    assert ddl(queries) == ["drop", "add"]
    assert snapshot() == expected


def test_a_shorter_replay_or_a_dry_run_keeps_the_index(club, exclusive):
    later = RatingPeriod.objects.for_date(MONTHS[1])  # three periods of the four
    with CaptureQueriesContext(connection) as queries:
        services.recompute_lists(later, rating_lists=LISTS)
        replay_all(dry_run=True)
    assert ddl(queries) == []
    assert index_there()


def test_a_read_by_player_midway_builds_the_index_first(club, settings):
    """A tournament that started in the month before its period is rated with the list then
    (FIDE.md 10.1): its players' rows are read a player at a time, so the index comes back
    before that read, and stays for the rest of the replay."""
    a, b = club[0], club[1]
    march = RatingPeriod.objects.for_date(MONTHS[2])
    event = Tournament.objects.create(
        name="Spring Open", start=date(2026, 2, 28), end=date(2026, 3, 2),
        rating_list="standard", rated_in=march,
    )  # fmt: skip
    Game.objects.create(date=date(2026, 3, 1), white=a, black=b, result="1-0", period=march,
                        tournament=event, event=event.name)  # fmt: skip
    replay_all()
    expected = snapshot()
    RatingChange.objects.all().delete()

    settings.LADDER_EXCLUSIVE_REPLAY_PERIODS = len(MONTHS)
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert snapshot() == expected
    assert ddl(queries) == ["drop", "add"]
    sql = [query["sql"] for query in queries.captured_queries]
    added = next(i for i, s in enumerate(sql) if f'ADD CONSTRAINT "{INDEX}"' in s)
    by_player = [i for i, s in enumerate(sql) if "CROSS JOIN LATERAL" in s]
    # The first read by player after the drop comes after the index is back; the March
    # periods' rows (and April's) are written through it.
    dropped = next(i for i, s in enumerate(sql) if f'DROP CONSTRAINT "{INDEX}"' in s)
    assert [i for i in by_player if dropped < i < added] == []
    assert any(i > added for i in by_player)


def test_a_failing_exclusive_replay_leaves_the_table_and_its_index_as_they_were(
    club, exclusive, monkeypatch
):
    replay_all()
    expected = snapshot()
    rate, calls = replay._rate, []

    def fail_in_the_third_period(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > 2 * len(LISTS):
            raise RuntimeError("rating failed")
        return rate(*args, **kwargs)

    monkeypatch.setattr(replay, "_rate", fail_in_the_third_period)
    # Caught inside the caller's own transaction: the drop is rolled back with the replay's
    # rows, not left behind in a transaction that goes on.
    with transaction.atomic():
        with pytest.raises(RuntimeError, match="rating failed"):
            replay_all()
        assert index_there()
        assert snapshot() == expected


def test_duplicate_rows_fail_the_replay_when_the_index_is_built(club, exclusive, monkeypatch):
    """Without the index nothing stops a row written twice until it is built again: then the
    whole replay fails and nothing of it is kept."""
    replay_all()
    expected = snapshot()
    insert = columns.insert_rated

    def twice(*args: Any, **kwargs: Any) -> int:
        return insert(*args, **kwargs) + insert(*args, **kwargs)

    monkeypatch.setattr(columns, "insert_rated", twice)
    with pytest.raises(IntegrityError, match=INDEX):
        replay_all()
    assert index_there()
    assert snapshot() == expected


def other_connection_reads() -> str:
    """What another connection's read of the rating table meets now: "read", or "locked" if
    it would wait (for 200 ms)."""
    params = connection.get_connection_params()
    keys = ("dbname", "user", "password", "host", "port")
    with psycopg.connect(**{k: params[k] for k in keys if params.get(k)}) as other:
        other.execute("SET lock_timeout = '200ms'")
        try:
            other.execute(f"SELECT count(*) FROM {RatingChange._meta.db_table}")
        except psycopg.errors.LockNotAvailable:
            return "locked"
        return "read"


@pytest.mark.django_db(transaction=True)
def test_other_connections_wait_for_an_exclusive_replay_not_for_a_dry_run(
    club, settings, monkeypatch
):
    rate, met = replay._rate, []

    def probe_midway(*args: Any, **kwargs: Any) -> Any:
        if len(met) < 1 and args[0].start == MONTHS[2]:
            met.append(other_connection_reads())
        return rate(*args, **kwargs)

    monkeypatch.setattr(replay, "_rate", probe_midway)
    replay_all()
    assert met == ["read"]  # by default, readers never wait for a replay
    settings.LADDER_EXCLUSIVE_REPLAY_PERIODS = len(MONTHS)
    met.clear()
    replay_all(dry_run=True)
    assert met == ["read"]
    met.clear()
    replay_all()
    assert met == ["locked"]
    assert other_connection_reads() == "read"  # and no longer, once it has committed
    assert index_there()


@pytest.mark.django_db(transaction=True)
def test_a_replay_killed_without_its_index_leaves_the_table_and_the_index_as_they_were(club):
    """``kill -9`` of the process replaying, after it dropped the index and wrote rows: the
    server rolls its transaction back, the index with it."""
    replay_all()
    rated = snapshot()
    url = database_url().replace("postgres://", "postgresql://", 1)
    blocker = psycopg.connect(url)  # holds the players' table: the run stops before its commit
    blocker.execute("LOCK TABLE ladder_player IN EXCLUSIVE MODE")
    with replaying(exclusive_periods=1) as process:
        try:
            wait_for(lambda: holds_the_table(blocker), what="the replay to lock the rating table")
            wait_for(lambda: waiting(blocker), what="the replay to wait for the players' table")
            os.kill(process.pid, signal.SIGKILL)  # kill -9, its rows written, the index gone
            process.wait(10)
        finally:
            blocker.rollback()
            blocker.close()
    wait_for(lambda: other_connection_reads() == "read", what="the server to roll it back")
    assert index_there()
    assert snapshot() == rated


def holds_the_table(blocker: psycopg.Connection) -> bool:
    """Whether another session holds the rating table locked against every other one."""
    row = blocker.execute(
        "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass "
        "AND mode = 'AccessExclusiveLock' AND granted AND pid <> pg_backend_pid()",
        [RatingChange._meta.db_table],
    ).fetchone()
    return bool(row and row[0])
