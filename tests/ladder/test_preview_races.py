"""Previews racing real writes on PostgreSQL (real concurrent connections): the preview takes
the real action's locks and rolls back, so the real write is kept whole and rated as usual."""

from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections

from ladder.records import Game
from ladder.writes import previews
from ratings.models import RatingRun, RunStatus
from ratings.recompute import services
from tests.factories import GameFactory
from tests.ladder.test_races import api, at_once, boss, equals_a_full_recompute  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="races are run on PostgreSQL"),
]


@pytest.mark.parametrize("attempt", range(6))
def test_a_preview_racing_the_real_correction_leaves_the_correction_whole(boss, attempt):  # noqa: F811
    game = GameFactory(result="1-0")
    url = f"/api/v1/games/{game.pk}/"
    real = lambda: api().patch(url, {"result": "0-1"}, format="json").status_code  # noqa: E731
    preview = lambda: api().patch(f"{url}?dry_run=true", {"result": "1/2-1/2"},  # noqa: E731
                                  format="json").status_code  # fmt: skip
    undo = lambda: api().delete(f"{url}?dry_run=true").status_code  # noqa: E731
    assert at_once(real, preview, undo) == [200, 200, 200]
    assert Game.objects.get(pk=game.pk).result == "0-1"
    assert not RatingRun.objects.exclude(status=RunStatus.DONE).exists()
    assert equals_a_full_recompute()


@pytest.mark.parametrize("attempt", range(6))
def test_a_preview_racing_the_close_of_its_period(boss, attempt):  # noqa: F811
    games = GameFactory.create_batch(3, result="1-0")  # March 2026, rated on commit
    period = games[0].period
    url = f"/api/v1/games/{games[0].pk}/"
    more = {"date": "2026-03-20", "white": games[1].white_id, "black": games[2].black_id,
            "result": "0-1"}  # fmt: skip
    preview = lambda: api().patch(f"{url}?dry_run=true", {"result": "0-1"},  # noqa: E731
                                  format="json").status_code  # fmt: skip
    enter = lambda: api().post("/api/v1/games/", more, format="json").status_code  # noqa: E731
    close = lambda: api().post(f"/api/v1/periods/{period.pk}/close/").status_code  # noqa: E731
    previewed, entered, closed = at_once(preview, enter, close)
    assert previewed in (200, 409)  # before the close, or refused after it
    assert entered in (201, 409)
    assert closed == 200
    assert not RatingRun.objects.exclude(status=RunStatus.DONE).exists()
    assert equals_a_full_recompute()


def test_a_preview_gives_way_to_a_run_executing_meanwhile(boss, monkeypatch):  # noqa: F811
    game = GameFactory(result="1-0")
    taken, done = threading.Event(), threading.Event()

    def executor() -> None:  # holds the executor's lock, as a run executing does
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s)", [services.LOCK_KEY])
                taken.set()
                done.wait(30)
                cursor.execute("SELECT pg_advisory_unlock(%s)", [services.LOCK_KEY])
        finally:
            connections.close_all()

    thread = threading.Thread(target=executor)
    thread.start()
    taken.wait(30)
    monkeypatch.setattr(previews, "PATIENCE", 0.3)
    with pytest.raises(ValidationError) as busy:
        previews.correction(game=game, changes={"result": "0-1"})
    assert busy.value.messages == [previews.BUSY]
    done.set()
    thread.join(30)
    assert previews.correction(game=game, changes={"result": "0-1"}).players
    assert Game.objects.get(pk=game.pk).result == "1-0"
