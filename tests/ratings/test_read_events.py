"""Event names read back by hash for the newcomers' pools, and the period's games read by list
(services._games_by_list, services._exact_game_columns)."""

import json
from datetime import date

import numpy as np
import pytest
from django.db import connection

from ladder.models import Game, RatingPeriod
from ratings import engine, services
from ratings.models import RatingChange
from ratings.services import recompute_from
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


@pytest.mark.skipif(connection.vendor != "postgresql", reason="hashtext is PostgreSQL's")
def test_names_sharing_a_hash_are_read_exactly(monkeypatch):
    with connection.cursor() as cursor:
        cursor.execute("SELECT hashtext(%s) = hashtext(%s)", list(COLLIDING))
        assert cursor.fetchone() == (True,)
    exact = []
    read = services._exact_game_columns

    def exact_game_columns(period, rating_list):
        exact.append(rating_list)
        return read(period, rating_list)

    monkeypatch.setattr(services, "_exact_game_columns", exact_game_columns)
    assert _pool_events(COLLIDING) == {f"event:{name}" for name in COLLIDING}
    assert exact == ["standard"]  # the hash path found the collision; the exact one read it


def test_pool_text_is_json_dumps_of_the_pool():
    """The hand-built pool text equals ``json.dumps`` (escapes, non-ASCII, a non-int score)."""
    pool = [
        engine.PoolGame(date(2026, 3, 5), 'event:Tab\there "quoted" \\ Zürich', 1800, 5000),
        engine.PoolGame(date(2026, 3, 6), "period:2026-03", 2100, 0),
    ]
    assert services._pool_text(pool) == json.dumps(services._pool_to_json(pool))
    odd = [engine.PoolGame(date(2026, 3, 7), "event:X", 1900, 2.5)]  # type: ignore[arg-type]
    assert services._pool_text(odd) == json.dumps(services._pool_to_json(odd))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the packed reads are PostgreSQL's")
def test_the_narrow_wide_and_exact_reads_agree():
    _pool_events(("Open", "", "Blitz"))
    period = RatingPeriod.objects.get()
    reads = [
        services._games_by_list(period, ["standard"], narrow=True)["standard"],
        services._games_by_list(period, ["standard"])["standard"],
        services._exact_game_columns(period, "standard"),
    ]

    def games(read):  # the reads may order the games differently
        at = np.arange(len(read.white))
        return sorted(zip(*(column.tolist() for column in read[:4]), read.events(at), strict=True))

    assert games(reads[0]) == games(reads[1]) == games(reads[2])
    assert sorted(game[4] for game in games(reads[0])) == ["", "Blitz", "Open"]


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

    def games(read):
        at = np.arange(len(read.white))
        return sorted(zip(*(column.tolist() for column in read[:4]), read.events(at), strict=True))

    together = services._games_by_list(period, ["standard", "rapid", "blitz"])
    assert {name: len(read.white) for name, read in together.items()} == {
        "standard": 1, "rapid": 2, "blitz": 3
    }  # fmt: skip
    for name in ("standard", "rapid", "blitz"):
        (alone,) = services._games_by_list(period, [name]).values()
        assert games(together[name]) == games(alone)
    assert services._games_by_list(period, ["standard"], narrow=True).keys() == {"standard"}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="hashtext is PostgreSQL's")
def test_a_collision_on_one_list_reads_that_list_exactly_and_the_others_by_hash(monkeypatch):
    day = date(2026, 3, 5)
    period = RatingPeriod.objects.for_date(day)
    newcomers = {name: UnratedPlayerFactory() for name in ("standard", "rapid")}
    games = [
        Game(date=day, white=newcomers[name], result="1-0",
             black=PlayerFactory(rapid_entry_rating=1600, rapid_entry_rated_games=30),
             period=period, event=event, rating_list=name,
             time_control="90+30" if name == "standard" else "15+10")
        for name, events in (("standard", ("Open",)), ("rapid", COLLIDING))
        for event in events
    ]  # fmt: skip
    Game.objects.bulk_create(games)
    exact = []
    read = services._exact_game_columns

    def exact_game_columns(period, rating_list):
        exact.append(rating_list)
        return read(period, rating_list)

    monkeypatch.setattr(services, "_exact_game_columns", exact_game_columns)
    services.recompute_lists(period, rating_lists=["standard", "rapid"])
    assert exact == ["rapid"]
    pools = dict(RatingChange.objects.filter(player__in=newcomers.values()).values_list(
        "rating_list", "pool"))  # fmt: skip
    assert {game[1] for game in pools["standard"]} == {"event:Open"}
    assert {game[1] for game in pools["rapid"]} == {f"event:{name}" for name in COLLIDING}
