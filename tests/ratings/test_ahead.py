"""A replay reads its periods' games ahead on a connection of its own (PostgreSQL): the same
ratings as reading them itself, its own transaction's games never missed, a failing second
connection taken over, nothing left behind when the replay fails."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from datetime import date

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ladder.records import Game, Player, RatingList, RatingPeriod, Tournament
from ratings.models import RatingChange
from ratings.recompute import ahead, replay, services
from tests.factories import PlayerFactory
from tests.ratings.snapshots import snapshot
from tests.ratings.test_workers import database_url, replaying, wait_for
from tests.ratings.three_lists import MONTHS, three_list_club

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="games are read ahead on PostgreSQL only"
    ),
]

GAMES_READ = "string_agg(int8send((white_id::int8 << 32) | black_id)"


@pytest.fixture
def club() -> list[Player]:
    """Four monthly periods of games on the three lists among rated players and newcomers,
    committed (as a rating run finds them)."""
    return three_list_club(12, 37)


def replay_all() -> None:
    services.recompute_lists(RatingPeriod.objects.order_by("start").first(), rating_lists=LISTS)


LISTS = list(RatingList.values)


def games_reads(queries: CaptureQueriesContext) -> int:
    """How many period games reads ran on the replay's own connection."""
    return sum(GAMES_READ in query["sql"] for query in queries.captured_queries)


def reading_itself() -> None:
    """The replay's transaction has written (an id assigned), so the replay reads its games."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()")


def halves_read(queries: CaptureQueriesContext) -> list[str]:
    """The halves of a period's games read on the replay's own connection, by their condition
    on the pages (``ctid <`` the lower one, ``ctid >=`` the upper one)."""
    found = [q["sql"] for q in queries.captured_queries if GAMES_READ in q["sql"]]
    return [" ".join(sql[sql.index("ctid") :].split()[:2]) for sql in found if "ctid" in sql]


def rated_by_reading_itself(first: RatingPeriod | None = None) -> object:
    """The ratings of a replay from ``first`` (default: the first period) that reads its games
    itself, then the rows deleted for the replay under test."""
    with transaction.atomic():
        reading_itself()
        services.recompute_lists(
            first or RatingPeriod.objects.order_by("start").first(), rating_lists=LISTS
        )
    rated = snapshot()
    RatingChange.objects.all().delete()
    return rated


def failing_read(monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    """The other connection's ``at``-th read fails (a column that does not exist)."""
    started = ahead.GamesAhead.__init__

    def broken(self, queries, **kwargs):
        pk, _, _, dtype = queries[at]
        bad = (pk, "SELECT no_such_column FROM ladder_game", [], dtype)
        started(self, [*queries[:at], bad, *queries[at + 1 :]], **kwargs)

    monkeypatch.setattr(ahead.GamesAhead, "__init__", broken)


def test_games_read_ahead_rate_as_the_replay_reading_them_itself(club):
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    # The first period's games in two halves at once, the replay reading the upper one; every
    # later period's games came from the other connection.
    assert games_reads(queries) == 1
    assert halves_read(queries) == ["ctid >="]
    ahead_result = snapshot()
    RatingChange.objects.all().delete()

    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        reading_itself()
        replay_all()
    assert games_reads(queries) == len(MONTHS)
    assert snapshot() == ahead_result
    assert len(ahead_result[0]) > 3 * len(MONTHS) * 12  # rows on every list, every month


def test_a_transaction_that_wrote_a_game_rates_it(club):
    """A preview writes, then recomputes in the same transaction: a second connection would
    not see its game, so the replay reads the games itself."""
    replay_all()
    white, black = club[0], club[1]
    period = RatingPeriod.objects.for_date(MONTHS[1])
    before = RatingChange.objects.get(player=white, period=period, rating_list="standard").games
    with transaction.atomic():
        Game.objects.create(date=MONTHS[1], white=white, black=black, result="1-0", period=period)
        replay_all()
        after = RatingChange.objects.get(player=white, period=period, rating_list="standard")
        transaction.set_rollback(True)
    assert after.games == before + 1


def test_when_the_other_connection_fails_midway_the_replay_reads_the_rest_itself(
    club, monkeypatch, caplog
):
    expected = rated_by_reading_itself()

    failing_read(monkeypatch, 1)  # the second period's
    with (
        caplog.at_level(logging.WARNING, "ratings.recompute.ahead"),
        CaptureQueriesContext(connection) as queries,
    ):
        replay_all()
    # The first period's lower half came from the other connection.
    assert games_reads(queries) == len(MONTHS) - 1 + 1
    assert "no_such_column" in caplog.text
    assert snapshot() == expected


def test_when_the_other_connection_fails_on_the_first_half_the_replay_reads_it_itself(
    club, monkeypatch, caplog
):
    expected = rated_by_reading_itself()

    failing_read(monkeypatch, 0)  # the first period's lower half
    with (
        caplog.at_level(logging.WARNING, "ratings.recompute.ahead"),
        CaptureQueriesContext(connection) as queries,
    ):
        replay_all()
    assert halves_read(queries) == ["ctid >=", "ctid <"]
    assert games_reads(queries) == 2 + len(MONTHS) - 1
    assert snapshot() == expected


def test_the_first_period_s_halves_hold_each_of_its_games_once_wherever_they_are_stored(club):
    """Its games stored apart (a correction months later is written at the table's end): the
    cut falls anywhere between, each half still reads its own games and no other's."""
    expected = rated_by_reading_itself()
    first = RatingPeriod.objects.order_by("start").first()
    assert first is not None
    games = Game.objects.filter(period=first).order_by("pk")
    moved = list(games[: games.count() // 3])
    Game.objects.filter(pk__in=[g.pk for g in moved]).delete()
    for game in moved:  # written again: stored after every other period's games
        game.pk = None
    Game.objects.bulk_create(moved)
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert len(halves_read(queries)) == 1
    assert snapshot() == expected


def test_when_the_other_connection_cannot_connect_the_replay_reads_every_period(club, monkeypatch):
    original = connection.get_connection_params

    def nowhere():
        return {**original(), "port": 1, "connect_timeout": 2}

    monkeypatch.setattr(connection, "get_connection_params", nowhere)
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert games_reads(queries) == len(MONTHS) + 1  # the first period's in its two halves
    assert RatingChange.objects.filter(rating_list="blitz").count() > 0


def test_a_failing_replay_leaves_no_thread_or_connection_behind(club, monkeypatch):
    rate, calls = replay._rate, []

    def fail_in_the_second_period(*args, **kwargs):
        calls.append(1)
        if len(calls) > len(LISTS):
            raise RuntimeError("rating failed")
        return rate(*args, **kwargs)

    monkeypatch.setattr(replay, "_rate", fail_in_the_second_period)
    with pytest.raises(RuntimeError, match="rating failed"):
        replay_all()
    assert not [t for t in threading.enumerate() if t.name == ahead.THREAD]
    deadline = time.monotonic() + 10
    while _side_connections() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _side_connections() == 0
    assert not RatingChange.objects.exists()  # the failed replay's rows rolled back


def _side_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [ahead.THREAD]
        )
        return int(cursor.fetchone()[0])


def test_a_second_connection_killed_midway_leaves_the_ratings_as_they_would_be(club, monkeypatch):
    """Its server process terminated (an administrator, a restart of a pooler) while the
    replay runs: the replay reads what is left itself."""
    expected = rated_by_reading_itself()

    take, killed = ahead.GamesAhead.take, []

    def kill_after_the_first(self, period):
        found = take(self, period)
        if not killed:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = %s",
                    [ahead.THREAD],
                )
                killed.append(cursor.fetchone()[0])
        return found

    monkeypatch.setattr(ahead.GamesAhead, "take", kill_after_the_first)
    monkeypatch.setattr(ahead, "DEPTH", 1)  # so that a period is left to read when it dies
    with CaptureQueriesContext(connection) as queries:
        replay_all()
    assert killed == [1]
    assert games_reads(queries) >= 1  # read by the replay itself after the kill
    assert snapshot() == expected


def test_players_with_ids_beyond_int4_are_read_whole_either_way(club):
    """Ids that do not fit int4 (a federation's imported ids) turn the games' packing wide,
    on the other connection and on the replay's own."""
    big = PlayerFactory(pk=2**31 + 7, entry_rating=2100)
    period = RatingPeriod.objects.for_date(MONTHS[2])
    Game.objects.bulk_create(
        Game(date=MONTHS[2], white=big, black=other, result="1-0", period=period)
        for other in club[:5]
    )
    replay_all()
    ahead_result = snapshot()
    row = RatingChange.objects.get(player=big, period=period, rating_list="standard")
    assert (row.games, row.score_units) == (5, 5 * 10_000)
    RatingChange.objects.all().delete()
    with transaction.atomic():
        reading_itself()
        replay_all()
    assert snapshot() == ahead_result


def replay_both_ways(lists: list[str]) -> tuple[object, object]:
    """The replay of ``lists`` with the games read ahead (its rows streamed in from period to
    period), then reading them itself: both snapshots."""
    first = RatingPeriod.objects.order_by("start").first()
    services.recompute_lists(first, rating_lists=lists)
    streamed = snapshot()
    RatingChange.objects.all().delete()
    with transaction.atomic():
        reading_itself()
        services.recompute_lists(first, rating_lists=lists)
    return streamed, snapshot()


def test_a_tournament_started_the_month_before_is_read_between_streamed_periods(club):
    """The rows of period after period go in one COPY; a period that must read the list in
    force when its tournament started (FIDE.md 10.1) ends it first, and is rated as when the
    replay reads its games itself."""
    a, b = club[0], club[1]
    march = RatingPeriod.objects.for_date(MONTHS[2])
    event = Tournament.objects.create(
        name="Spring Open", start=MONTHS[1], end=MONTHS[2], rating_list="standard",
        rated_in=march,
    )  # fmt: skip
    Game.objects.create(date=MONTHS[2], white=a, black=b, result="1-0", period=march,
                        tournament=event, event=event.name)  # fmt: skip
    streamed, itself = replay_both_ways(LISTS)
    assert streamed == itself


def test_rapid_and_blitz_alone_read_the_standard_list_between_streamed_periods(club):
    """Without the standard list in the replay, each period reads it (R&B 7.2.1's seeds for the
    newcomers): the COPY of the rows before is ended first."""
    streamed, itself = replay_both_ways(["rapid", "blitz"])
    assert streamed == itself


def test_a_replay_killed_while_its_rows_stream_leaves_the_ratings_as_they_were(club):
    """``kill -9`` of a replay whose one COPY has carried the rows of the earlier periods and
    waits at a row of the last one: the server rolls all of it back, nothing written shows,
    and the next replay rates as before."""
    replay_all()
    rated = snapshot()
    last = RatingPeriod.objects.order_by("-start").first()
    row = RatingChange.objects.filter(period=last, rating_list="standard").order_by("pk").first()
    assert last is not None
    assert row is not None
    url = database_url().replace("postgres://", "postgresql://", 1)
    table = RatingChange._meta.db_table
    # ``watcher`` sees the server's sessions (outside a transaction: a transaction reads
    # pg_stat_activity once); ``blocker`` holds a row the replay will write.
    watcher = psycopg.connect(url, autocommit=True)
    blocker = psycopg.connect(url, autocommit=True)
    saved = f"CREATE TEMPORARY TABLE saved AS SELECT * FROM {table} WHERE id = %s"
    blocker.execute(saved, [row.pk])
    RatingChange.objects.filter(period=last).delete()  # the last period not rated yet
    before = snapshot()
    known = set(sessions(watcher))
    # The same player, list and period, written and not committed: the replay's COPY waits for
    # this transaction at that row (the unique index by player), every period before it sent.
    blocker.autocommit = False
    blocker.execute(f"INSERT INTO {table} SELECT * FROM saved")
    with replaying(exclusive_periods=0) as process:
        try:
            wait_for(lambda: copying(watcher, table), what="the replay's COPY to wait at the row")
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
        finally:
            blocker.rollback()
            blocker.close()
    wait_for(lambda: set(sessions(watcher)) <= known, what="the killed replay's sessions to end")
    watcher.close()
    assert snapshot() == before
    replay_all()
    assert snapshot() == rated


def sessions(watcher: psycopg.Connection) -> list[int]:
    """The server processes of the clients of this database."""
    found = watcher.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND backend_type = 'client backend'"
    ).fetchall()
    return [pid for (pid,) in found]


def copying(watcher: psycopg.Connection, table: str) -> bool:
    """Whether a session waits for a lock in a COPY into the rating table."""
    row = watcher.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND query ILIKE %s",
        [f"COPY %{table}%"],
    ).fetchone()
    return bool(row and row[0])


def test_a_first_period_without_games_is_not_cut_and_the_rest_rate_as_read_itself(club):
    """A period with no games (a month the club did not play) first: nothing to cut in two;
    the later periods are read ahead as usual."""
    empty = RatingPeriod.objects.for_date(date(2025, 12, 1))
    assert not Game.objects.filter(period=empty).exists()
    expected = rated_by_reading_itself(empty)
    with CaptureQueriesContext(connection) as queries:
        services.recompute_lists(empty, rating_lists=LISTS)
    assert halves_read(queries) == []
    assert games_reads(queries) <= 1  # the empty period's, if anything: the rest read ahead
    assert snapshot() == expected
