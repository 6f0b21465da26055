"""Background mode with real worker processes on PostgreSQL: entered through the API, rated by
workers, never two runs at once, and a worker killed with ``kill -9`` mid-run loses nothing."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from ratings.models import RatingRun
from ratings.recompute import services
from tests.factories import GameFactory, PlayerFactory
from tests.ratings.snapshots import snapshot

ROOT = Path(__file__).resolve().parents[2]
BACKGROUND = {
    "LADDER_RECOMPUTE": "background",
    "TASKS": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
}

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="background workers are run on PostgreSQL"
)


def database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(*args: str, url: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "LADDER_RECOMPUTE": "background", "DATABASE_URL": url or database_url()}
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "rating_worker",
            "--interval",
            "0.1",
            "--sweep",
            "0.5",
            *args,
        ],  # fmt: skip
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@contextlib.contextmanager
def replaying(exclusive_periods: int) -> Iterator[subprocess.Popen]:
    """``manage.py recompute_ratings`` in a process of its own, its rating run executed at once
    (``LADDER_EXCLUSIVE_REPLAY_PERIODS``: ``exclusive_periods``); killed on leaving if it still
    runs."""
    env = {
        **os.environ, "DATABASE_URL": database_url(), "LADDER_RECOMPUTE": "immediate",
        "LADDER_EXCLUSIVE_REPLAY_PERIODS": str(exclusive_periods),
    }  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "manage.py", "recompute_ratings"], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def stop(*workers: subprocess.Popen) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.kill()
        worker.wait(10)


def wait_for(condition, *, seconds: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"Timed out waiting for {what}.")
        time.sleep(0.1)


def all_rated() -> bool:
    runs = RatingRun.objects.values_list("status", flat=True)
    return bool(runs) and all(status == "done" for status in runs)


def equals_a_full_recompute() -> bool:
    state = snapshot()
    services.recompute_from(None)
    return snapshot() == state


@postgresql_only
@pytest.mark.django_db(transaction=True)
@override_settings(**BACKGROUND)
def test_games_entered_through_the_api_are_rated_by_workers_one_run_at_a_time():
    players = PlayerFactory.create_batch(12)
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    api = APIClient()
    api.force_authenticate(user)
    workers = [start_worker(), start_worker()]  # two at once: never two runs together
    try:
        for day in range(1, 13):
            white, black = players[day % 12], players[(day * 5 + 1) % 12]
            if white == black:
                continue
            response = api.post(
                "/api/v1/games/",
                {
                    "date": f"2026-0{1 + day % 3}-{day:02d}",
                    "white": white.pk,
                    "black": black.pk,
                    "result": ["1-0", "0-1", "1/2-1/2"][day % 3],
                },  # fmt: skip
                format="json",
            )
            assert response.status_code == 201, response.content
            time.sleep(0.05)
        wait_for(all_rated, what="the workers to rate every run")
    finally:
        stop(*workers)
    runs = list(RatingRun.objects.order_by("started_at"))
    assert runs
    for earlier, later in zip(runs, runs[1:], strict=False):
        assert earlier.finished_at <= later.started_at, "two runs executed at once"
    assert equals_a_full_recompute()


@postgresql_only
@pytest.mark.django_db(transaction=True)
@override_settings(**BACKGROUND)
def test_a_worker_killed_mid_run_leaves_the_last_complete_state_and_the_run_is_retried():
    players = PlayerFactory.create_batch(30)
    for day in range(1, 29):
        GameFactory(date=date(2026, 3, day), white=players[day], black=players[day - 1],
                    result="1-0")  # fmt: skip
    RatingRun.objects.all().delete()
    services.recompute_from(None)
    rated = snapshot()
    GameFactory(date=date(2026, 3, 29), white=players[0], black=players[29], result="0-1")
    url = database_url().replace("postgres://", "postgresql://", 1)
    blocker = psycopg.connect(url)  # holds the players' table: the run stops before its commit
    blocker.execute("LOCK TABLE ladder_player IN EXCLUSIVE MODE")
    worker = start_worker()
    try:
        wait_for(lambda: RatingRun.objects.filter(status="running").exists(), what="the claim")
        wait_for(lambda: waiting(blocker), what="the run to wait inside its transaction")
        os.kill(worker.pid, signal.SIGKILL)  # kill -9, mid-run
        worker.wait(10)
    finally:
        blocker.rollback()
        blocker.close()
        stop(worker)
    assert snapshot() == rated  # no half-written period: the last complete state
    assert RatingRun.objects.get().status == "running"  # abandoned
    worker = start_worker()  # a worker up again retries it, without anyone acting
    try:
        wait_for(all_rated, what="the abandoned run to be retried")
    finally:
        stop(worker)
    run = RatingRun.objects.get()
    assert run.attempts == 2
    assert snapshot() != rated
    assert equals_a_full_recompute()


def waiting(blocker: psycopg.Connection) -> bool:
    """Tell whether a session of this database waits for a lock (the worker, mid-run)."""
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    )
    row = blocker.execute(query).fetchone()
    return bool(row and row[0])


def test_a_worker_without_a_reachable_database_says_so_and_exits_non_zero():
    worker = start_worker("--batch", url="postgres://postgres@127.0.0.1:1/nowhere")
    output, _ = worker.communicate(timeout=60)
    assert worker.returncode != 0
    assert "Cannot reach the database" in output
