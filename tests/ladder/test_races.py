"""Races through the write path with real concurrent connections on PostgreSQL: never a 500,
never a resurrected game, and the ratings equal a full recompute afterwards."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from ladder.records import Game, Player, RatingPeriod
from ladder.writes import actions
from ratings.models import RatingChange
from ratings.recompute import services
from tests.factories import GameFactory, PlayerFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="races are run on PostgreSQL"),
]


def at_once(*calls: Callable[[], int]) -> list[int]:
    """Run the calls in threads started together (each with its own connection)."""
    barrier = threading.Barrier(len(calls))
    results: list[int] = [0] * len(calls)

    def run(index: int, call: Callable[[], int]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def api() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="boss"))
    return client


def snapshot():
    rows = RatingChange.objects.order_by("player_id", "period_id").values_list(
        "player_id", "period_id", "rating_after", "change"
    )
    return list(rows), list(Player.objects.order_by("pk").values_list("pk", "rating"))


def equals_a_full_recompute() -> bool:
    state = snapshot()
    services.recompute_from(None)
    return snapshot() == state


@pytest.fixture
def boss():
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.mark.parametrize("attempt", range(3))
def test_simultaneous_first_games_of_a_new_month(boss, attempt):
    players = PlayerFactory.create_batch(12)

    def post(i: int) -> Callable[[], int]:
        data = {"date": "2026-07-04", "white": players[2 * i].pk, "black": players[2 * i + 1].pk,
                "result": "1-0"}  # fmt: skip
        return lambda: api().post("/api/v1/games/", data, format="json").status_code

    assert at_once(*(post(i) for i in range(6))) == [201] * 6
    assert RatingPeriod.objects.filter(label="2026-07").count() == 1
    assert Game.objects.count() == 6
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(6))
def test_a_correction_racing_a_deletion_never_brings_the_game_back(boss, attempt):
    game = GameFactory(result="1-0")
    url = f"/api/v1/games/{game.pk}/"
    patch = lambda: api().patch(url, {"result": "0-1"}, format="json").status_code  # noqa: E731
    delete = lambda: api().delete(url).status_code  # noqa: E731
    patched, deleted = at_once(patch, delete)
    assert deleted == 204
    assert patched in (200, 404)
    assert not Game.objects.filter(pk=game.pk).exists()
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(3))
def test_the_same_game_posted_twice_at_once_is_recorded_once(boss, attempt):
    white, black = PlayerFactory(), PlayerFactory()
    data = {"date": "2026-03-04", "white": white.pk, "black": black.pk, "result": "1-0"}
    post = lambda: api().post("/api/v1/games/", data, format="json").status_code  # noqa: E731
    GameFactory(date=date(2026, 3, 1))  # the month's period exists
    assert sorted(at_once(post, post)) == [201, 409]  # the second is refused as a duplicate
    assert Game.objects.filter(white=white).count() == 1
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(4))
def test_a_correction_and_an_entry_on_the_same_day_never_deadlock(boss, attempt):
    players = PlayerFactory.create_batch(4)
    game = GameFactory(date=date(2026, 3, 2), white=players[0], black=players[1])
    new = {"date": "2026-03-09", "white": players[2].pk, "black": players[3].pk, "result": "1-0"}
    moved = {"date": "2026-03-09", "result": "0-1"}
    post = lambda: api().post("/api/v1/games/", new, format="json").status_code  # noqa: E731
    patch = lambda: api().patch(f"/api/v1/games/{game.pk}/", moved, format="json").status_code  # noqa: E731
    assert sorted(at_once(post, patch)) == [200, 201]
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(4))
def test_a_close_racing_an_entry_never_leaves_a_game_in_a_closed_period(boss, attempt):
    first = GameFactory(date=date(2026, 3, 2))
    white, black = PlayerFactory(), PlayerFactory()
    data = {"date": "2026-03-20", "white": white.pk, "black": black.pk, "result": "1-0"}
    post = lambda: api().post("/api/v1/games/", data, format="json").status_code  # noqa: E731
    close = lambda: api().post(f"/api/v1/periods/{first.period_id}/close/").status_code  # noqa: E731
    entered, closed = at_once(post, close)
    assert closed == 200
    assert entered in (201, 409)
    period = RatingPeriod.objects.get(pk=first.period_id)
    late = Game.objects.filter(period=period, created__gt=period.closed_at)
    assert not late.exists()  # nothing written into the period after it was closed
    assert (entered == 201) == Game.objects.filter(white=white).exists()


@pytest.mark.parametrize("attempt", range(4))
def test_simultaneous_players_with_one_fide_id_get_one_201_and_conflicts(boss, attempt):
    """The losers of the race get what one at a time gets: 409 and the field's message."""
    bodies: dict[int, dict] = {}

    def post(i: int) -> Callable[[], int]:
        data = {"name": f"Twin {i}", "fide_id": 4_000_000 + attempt, "entry_rating": 1800}

        def call() -> int:
            answer = api().post("/api/v1/players/", data, format="json")
            bodies[i] = answer.json()
            return answer.status_code

        return call

    statuses = at_once(*(post(i) for i in range(4)))
    assert sorted(statuses) == [201, 409, 409, 409], bodies
    assert Player.objects.filter(fide_id=4_000_000 + attempt).count() == 1
    later = {"name": "Twin 5", "fide_id": 4_000_000 + attempt, "entry_rating": 1800}
    one_at_a_time = api().post("/api/v1/players/", later, format="json")
    assert one_at_a_time.status_code == 409
    lost = [bodies[i] for i, status in enumerate(statuses) if status == 409]
    assert lost == [one_at_a_time.json()] * 3


@pytest.mark.parametrize("attempt", range(2))
def test_simultaneous_players_with_one_national_id_get_one_201_and_conflicts(boss, attempt):
    national = {"national_federation": "NOR", "national_id": f"77{attempt}"}
    posted = [{"name": f"Twin {i}", **national} for i in range(5)]
    answers: dict[int, dict] = {}

    def post(i: int) -> Callable[[], int]:
        def call() -> int:
            answer = api().post("/api/v1/players/", posted[i], format="json")
            answers[i] = answer.json()
            return answer.status_code

        return call

    statuses = at_once(*(post(i) for i in range(4)))
    assert sorted(statuses) == [201, 409, 409, 409], answers
    assert Player.objects.filter(national_id=f"77{attempt}").count() == 1
    one_at_a_time = api().post("/api/v1/players/", posted[4], format="json")
    assert one_at_a_time.status_code == 409
    lost = [answers[i] for i, status in enumerate(statuses) if status == 409]
    assert lost == [one_at_a_time.json()] * 3


@pytest.mark.parametrize("attempt", range(8))
def test_first_games_on_different_days_of_a_new_month_share_one_period(boss, attempt):
    players = PlayerFactory.create_batch(12)

    def post(i: int) -> Callable[[], int]:
        data = {"date": f"2026-08-{i + 3:02d}", "white": players[2 * i].pk,
                "black": players[2 * i + 1].pk, "result": "1-0"}  # fmt: skip
        return lambda: api().post("/api/v1/games/", data, format="json").status_code

    assert at_once(*(post(i) for i in range(6))) == [201] * 6
    assert RatingPeriod.objects.filter(label="2026-08").count() == 1
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(3))
def test_retries_with_one_idempotency_key_at_once_record_one_game(boss, attempt):
    white, black = PlayerFactory(), PlayerFactory()
    data = {"date": "2026-03-04", "white": white.pk, "black": black.pk, "result": "1-0"}
    headers = {"Idempotency-Key": f"retry-{attempt}"}

    def post() -> int:
        return api().post("/api/v1/games/", data, format="json", headers=headers).status_code

    assert at_once(post, post, post) == [201, 201, 201]
    assert Game.objects.filter(white=white).count() == 1


@pytest.mark.parametrize("attempt", range(3))
def test_a_game_entered_while_a_merge_commits_never_lands_on_the_merged_record(boss, attempt):
    """The merge holds its transaction open after moving the games; a game posted for the
    merged record meanwhile waits for it and is refused (409) once the merge has committed,
    where it used to pass the check and land on the merged record."""
    kept, other, opponent = PlayerFactory(), PlayerFactory(), PlayerFactory()
    GameFactory(white=other, black=opponent, date=date(2026, 3, 2))
    merged = threading.Event()

    def merge() -> int:
        with transaction.atomic():
            actions.merge_players(keep=kept.pk, other=other.pk, reason="One person")
            merged.set()
            time.sleep(0.5)  # the game's post arrives while the merge is not committed
        return 200

    def post() -> int:
        merged.wait(10)
        data = {"date": "2026-03-20", "white": other.pk, "black": opponent.pk, "result": "1-0"}
        response = api().post("/api/v1/games/", data, format="json")
        return response.status_code

    assert at_once(merge, post) == [200, 409]
    assert not Game.objects.filter(white=other).exists()
    assert not Game.objects.filter(black=other).exists()
    assert equals_a_full_recompute()
