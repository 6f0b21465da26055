"""Event names read back by hash for the newcomers' pools (services._game_columns)."""

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
    read = services._game_columns

    def game_columns(period, rating_list, **kwargs):
        exact.append(kwargs.get("exact", False))
        return read(period, rating_list, **kwargs)

    monkeypatch.setattr(services, "_game_columns", game_columns)
    assert _pool_events(COLLIDING) == {f"event:{name}" for name in COLLIDING}
    assert exact == [False, True]  # the hash path found the collision; the exact one read it


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
        services._game_columns(period, "standard", narrow=True),
        services._game_columns(period, "standard"),
        services._game_columns(period, "standard", exact=True),
    ]

    def games(read):  # the reads may order the games differently
        at = np.arange(len(read.white))
        return sorted(zip(*(column.tolist() for column in read[:4]), read.events(at), strict=True))

    assert games(reads[0]) == games(reads[1]) == games(reads[2])
    assert sorted(game[4] for game in games(reads[0])) == ["", "Blitz", "Open"]
