"""The period's games read by list and event for the newcomers' pools
(storage.games_by_list)."""

import json
from datetime import date

import numpy as np
import pytest
from django.db import connection

from ladder.records import Game, RatingPeriod
from ratings.models import RatingChange
from ratings.recompute import recompute_from, rows, storage
from ratings.rules import engine
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db

# Two names with the same PostgreSQL ``hashtext`` (found by search over 'e1'..'e300000').
COLLIDING = ("e32916", "e46796")


def _pool_events(events: tuple[str, ...]) -> set[str]:
    """Rate a newcomer who plays one rated player in each of ``events``; their pools' events."""
    day = date(2026, 3, 5)
    period = RatingPeriod.objects.for_date(day)
    newcomer = UnratedPlayerFactory()
    Game.objects.bulk_create(
        Game(date=day, white=newcomer, black=PlayerFactory(entry_rating=1600 + 10 * i),
             result="1/2-1/2", period=period, event=event)
        for i, event in enumerate(events)
    )  # fmt: skip
    recompute_from(period)
    (pool,) = RatingChange.objects.filter(player=newcomer).values_list("pool", flat=True)
    return {game[1] for game in pool}


def test_the_pools_carry_each_game_s_own_event_name():
    events = ("Open", "", "Tab\there", "Zürich Open")
    assert _pool_events(events) == {"event:Open", "period:2026-03", "event:Tab\there",
                                    "event:Zürich Open"}  # fmt: skip


def test_names_sharing_a_hash_are_read_apart():
    """Each game's event is its own, even for names PostgreSQL's ``hashtext`` confuses."""
    assert _pool_events(COLLIDING) == {f"event:{name}" for name in COLLIDING}


def test_pool_text_is_json_dumps_of_the_pool():
    """The hand-built pool text equals ``json.dumps`` (escapes, non-ASCII, a non-int score)."""
    pool = [
        engine.PoolGame(date(2026, 3, 5), 'event:Tab\there "quoted" \\ Zürich', 1800, 5000),
        engine.PoolGame(date(2026, 3, 6), "period:2026-03", 2100, 0),
    ]
    assert rows.pool_text(pool) == json.dumps(rows.pool_to_json(pool))
    odd = [engine.PoolGame(date(2026, 3, 7), "event:X", 1900, 2.5)]  # type: ignore[arg-type]
    assert rows.pool_text(odd) == json.dumps(rows.pool_to_json(odd))


def _as_stored(period, rating_list="standard"):
    """The period's games on a list as the ORM reads them, in ``_games`` form."""
    return sorted(
        (white, black, engine.WHITE_SCORE.get(result, -1), day.toordinal(), event)
        for white, black, result, day, event in Game.objects.filter(
            period=period, rating_list=rating_list
        ).values_list("white_id", "black_id", "result", "date", "event")
    )


def _games(read):  # the reads may order the games differently
    at = np.arange(len(read.white))
    return sorted(zip(*(column.tolist() for column in read[:4]), read.events(at), strict=True))


def test_the_narrow_and_wide_reads_give_the_games_as_stored():
    _pool_events(("Open", "", "Blitz", *COLLIDING))
    Game.objects.filter(pk=Game.objects.order_by("pk").first().pk).update(result="+/-")
    period = RatingPeriod.objects.get()
    for narrow in (True, False):
        read = storage.games_by_list(period, ["standard"], narrow=narrow)["standard"]
        assert _games(read) == _as_stored(period)
    assert {game[2] for game in _games(read)} == {-1, engine.UNIT // 2}
    assert sorted({game[4] for game in _games(read)}) == ["", "Blitz", "Open", *COLLIDING]


def test_one_read_of_several_lists_splits_them_as_reads_of_each():
    """The games of three lists read together equal each list read alone, on either database."""
    day = date(2026, 3, 5)
    period = RatingPeriod.objects.for_date(day)
    players = PlayerFactory.create_batch(4)
    lists = ("standard", "rapid", "blitz", "rapid", "blitz", "blitz")
    Game.objects.bulk_create(
        Game(date=day.replace(day=1 + i), white=players[i % 4], black=players[(i + 1) % 4],
             result=("1-0", "0-1", "1/2-1/2")[i % 3], period=period, event=f"E{i % 2}",
             rating_list=name)
        for i, name in enumerate(lists)
    )  # fmt: skip

    together = storage.games_by_list(period, ["standard", "rapid", "blitz"])
    assert {name: len(read.white) for name, read in together.items()} == {
        "standard": 1, "rapid": 2, "blitz": 3
    }  # fmt: skip
    for name in ("standard", "rapid", "blitz"):
        (alone,) = storage.games_by_list(period, [name]).values()
        assert _games(together[name]) == _games(alone) == _as_stored(period, name)
    assert storage.games_by_list(period, ["standard"], narrow=True).keys() == {"standard"}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the packed reads are PostgreSQL's")
def test_the_packed_reads_and_the_background_update_are_counted_as_queries():
    """Queries sent on psycopg cursors (binary results, pipeline mode) still go through
    Django's execute wrappers and query log, so query counts stay honest."""
    from django.test.utils import CaptureQueriesContext

    _pool_events(("Open",))
    period = RatingPeriod.objects.get()
    wrapped = []

    def count(execute, sql, params, many, context):
        wrapped.append(sql)
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as logged, connection.execute_wrapper(count):
        recompute_from(period)
    for queries in ([q["sql"] for q in logged.captured_queries], wrapped):
        assert any("string_agg" in sql and "ladder_game" in sql for sql in queries)
        assert any(sql.startswith("UPDATE") and "ladder_player" in sql for sql in queries)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the packed reads are PostgreSQL's")
def test_a_failing_packed_read_raises_django_s_error_and_leaves_the_transaction_usable():
    from django.db import DataError, transaction

    from ratings.recompute import bulk

    with pytest.raises(DataError), transaction.atomic():
        bulk.fetch_packed("SELECT 1/0 AS packed", [], np.dtype(">i8"), meanwhile=lambda: None)
    update = bulk.in_background([("UPDATE ladder_player SET rating = 1/0", [])])
    with pytest.raises(DataError), transaction.atomic(), update:
        pass
    assert bulk.fetch_packed("SELECT int8send(7) AS packed", [], np.dtype(">i8"))[0][1] == [7]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's settings")
def test_a_background_statement_runs_with_its_settings_which_are_restored_after_it():
    """The players' UPDATE runs with hash joins only (``storage.HASHED``); the statements
    after it in the transaction run as before."""
    from django.db import transaction

    from ratings.recompute import bulk

    player = PlayerFactory(name="Before")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_nestloop = on")
        update = bulk.in_background(
            [
                (
                    "UPDATE ladder_player SET name = current_setting('enable_nestloop') "
                    "WHERE id = %s",
                    [player.pk],
                )
            ],
            settings=storage.HASHED,
        )
        with update:
            pass
        with connection.cursor() as cursor:
            cursor.execute("SHOW enable_nestloop")
            assert cursor.fetchone() == ("on",)
    player.refresh_from_db()
    assert player.name == "off"
