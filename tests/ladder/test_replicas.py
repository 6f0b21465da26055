"""Reads from read replicas (ladder/caching/replicas.py).

The router's decisions are tested everywhere. The rest runs against a real streaming replica
(``bash scripts/replica.sh start``; .ci/run does it) and is skipped unless DATABASE_URL is
PostgreSQL and DATABASE_REPLICA_URLS names a standby that answers: the test makes a database of
its own on the primary, waits for the replica to stream it, and serves Ladder with gunicorn
against both; a replica's replay is paused (``pg_wal_replay_pause``) to tell which database
answered.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import transaction
from django.test import RequestFactory

from ladder.caching import replicas
from ladder.caching.replicas import ReplicaRouter, may_read_a_replica, pin, pinned, reading
from ladder.records import Player

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_800_000_000.0


def request(method: str = "GET", path: str = "/", cookies=None, **meta):
    made = RequestFactory().generic(method, path, **meta)
    made.COOKIES.update(cookies or {})
    return made


# --- the decisions, everywhere --------------------------------------------------------------


@pytest.mark.parametrize(
    ("made", "replica"),
    [
        (request("GET", "/api/v1/players/"), True),
        (request("HEAD", "/players/3/"), True),
        (request("GET", "/"), True),
        (request("GET", "/api/v1/players/", cookies={"sessionid": "s"}), True),
        (request("GET", "/api/v1/players/", HTTP_AUTHORIZATION="Token k"), True),
        (request("GET", "/", cookies={"sessionid": "s"}), False),
        (request("GET", "/admin/ladder/player/"), False),
        (request("GET", "/admin/login/"), False),
        (request("POST", "/api/v1/players/"), False),
        (request("PATCH", "/api/v1/players/3/"), False),
        (request("GET", "/", cookies={"Ladder-Pin": str(int(NOW) + 3)}), False),
        (request("GET", "/api/v1/players/", HTTP_LADDER_PIN=str(int(NOW) + 3)), False),
        (request("GET", "/", cookies={"Ladder-Pin": str(int(NOW) - 1)}), True),  # expired
        (request("GET", "/", cookies={"Ladder-Pin": str(int(NOW) + 86_400)}), True),  # forged
        (request("GET", "/", cookies={"Ladder-Pin": "soon"}), True),
    ],
)
def test_which_requests_may_read_a_replica(made, replica):
    assert may_read_a_replica(made, now=NOW) is replica


def test_a_write_pins_its_client_for_the_pin_seconds(settings):
    from django.http import HttpResponse

    settings.LADDER_REPLICA_PIN_SECONDS = 5
    answer = HttpResponse()
    pin(answer, now=NOW)

    assert answer["Ladder-Pin"] == str(int(NOW) + 5)
    assert answer.cookies["Ladder-Pin"]["max-age"] == 5
    assert pinned(request(HTTP_LADDER_PIN=answer["Ladder-Pin"]), now=NOW + 4.5)
    assert not pinned(request(HTTP_LADDER_PIN=answer["Ladder-Pin"]), now=NOW + 5)


def test_the_router_reads_the_replica_the_request_chose_and_writes_the_primary():
    router = ReplicaRouter()

    assert router.db_for_read(Player) == "default"  # outside a request: the primary
    with reading("replica_1"):
        assert router.db_for_read(Player) == "replica_1"
        assert router.db_for_write(Player) == "default"
        from django.core.cache.backends.db import DatabaseCache

        cache_model = DatabaseCache("ladder_cache", {}).cache_model_class
        assert router.db_for_read(cache_model) == "default"  # counted and written on reads
    assert router.db_for_read(Player) == "default"
    assert router.allow_migrate("default", "ladder")
    assert not router.allow_migrate("replica_1", "ladder")


@pytest.mark.django_db
def test_inside_a_transaction_reads_go_to_the_primary():
    with reading("replica_1"), transaction.atomic():
        assert ReplicaRouter().db_for_read(Player) == "default"


def test_without_replicas_the_middleware_never_pins(settings):
    from django.http import HttpResponse

    settings.LADDER_REPLICAS = []
    answer = replicas.ReplicaReadsMiddleware(lambda r: HttpResponse())(request("POST", "/api/"))

    assert "Ladder-Pin" not in answer


def test_a_request_that_reads_nothing_connects_to_no_replica(settings):
    from django.http import HttpResponse

    settings.LADDER_REPLICAS = ["replica_9"]  # no such database: connecting to it would raise
    middleware = replicas.ReplicaReadsMiddleware(lambda r: HttpResponse("no query"))

    assert middleware(request("GET", "/calculator/")).status_code == HTTPStatus.OK


# --- a real replica -------------------------------------------------------------------------

PRIMARY = os.environ.get("DATABASE_URL", "")
REPLICA = os.environ.get("DATABASE_REPLICA_URLS", "").split(",")[0].strip()
DB = "ladder_replica_tests"


def _psql_url(url: str, name: str) -> str:
    parts = urlsplit(url)._replace(path=f"/{name}", query="")
    return urlunsplit(parts).replace("postgres://", "postgresql://", 1)


def _answers_as_standby() -> bool:
    if not (PRIMARY.startswith(("postgres://", "postgresql://")) and REPLICA):
        return False
    import psycopg

    try:
        with psycopg.connect(_psql_url(REPLICA, "postgres"), connect_timeout=2) as c:
            return bool(c.execute("SELECT pg_is_in_recovery()").fetchone()[0])
    except psycopg.Error:
        return False


real_replica = pytest.mark.skipif(
    not _answers_as_standby(),
    reason="needs DATABASE_URL on PostgreSQL and DATABASE_REPLICA_URLS naming a standby "
    "(bash scripts/replica.sh start)",
)


@contextmanager
def replay_paused() -> Iterator[None]:
    """Stop the replica replaying the primary's changes until the block ends."""
    import psycopg

    with psycopg.connect(_psql_url(REPLICA, "postgres"), autocommit=True) as c:
        c.execute("SELECT pg_wal_replay_pause()")
        while c.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0] != "paused":
            time.sleep(0.05)
        try:
            yield
        finally:
            c.execute("SELECT pg_wal_replay_resume()")


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def club() -> Iterator[tuple[dict[str, str], str]]:
    """A migrated database of its own, streamed to the replica; the environment to serve it and
    an editor's API token."""
    import psycopg

    with psycopg.connect(_psql_url(PRIMARY, "postgres"), autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{DB}"')
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LADDER_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "replica-tests-not-secret",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": urlunsplit(urlsplit(PRIMARY)._replace(path=f"/{DB}")),
        "LADDER_ANON_THROTTLE": "1000000/hour",
        "LADDER_RUN_SWEEP_SECONDS": "0",
        "DJANGO_SUPERUSER_PASSWORD": "replica-tests-password",
    }
    _manage(env, "migrate", "--noinput")
    _manage(env, "createsuperuser", "--noinput", "--username", "editor", "--email", "e@x.org")
    token = _manage(env, "issue_token", "editor").strip()
    deadline = time.monotonic() + 30
    while True:  # the replica has the database, migrated, and the token
        try:
            with psycopg.connect(_psql_url(REPLICA, DB), connect_timeout=2) as c:
                if c.execute("SELECT count(*) FROM ladder_apitoken").fetchone()[0]:
                    break
        except psycopg.Error:
            pass
        assert time.monotonic() < deadline, "the replica did not stream the test database"
        time.sleep(0.2)
    yield env, token
    # Best effort: on a shared server DROP DATABASE waits for every backend to absorb a signal
    # barrier, and one stalled in another's COPY held it for ten minutes. The next run's setup
    # drops the database anyway.
    with psycopg.connect(_psql_url(PRIMARY, "postgres"), autocommit=True) as c:
        c.execute("SET statement_timeout = '20s'")
        with contextlib.suppress(psycopg.errors.QueryCanceled):
            c.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(env: dict[str, str], **settings: str) -> Iterator[str]:
    """Serve Ladder with gunicorn (one worker) under ``settings``; yield its address."""
    port = _free_port()
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    process = subprocess.Popen(
        [gunicorn, "--workers", "1", "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
         "ladder.wsgi:application"],
        cwd=ROOT, env={**env, **settings}, start_new_session=True,
    )  # fmt: skip
    address = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{address}/healthz", timeout=2)  # noqa: S310
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        yield address
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def call(url: str, method: str = "GET", body=None, **headers: str) -> tuple[int, dict, dict]:
    """One request; its status, headers and JSON body."""
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    made = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(made, timeout=20) as answer:  # noqa: S310
            return answer.status, dict(answer.headers), json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), json.loads(refused.read() or b"null")


def _eventually(read, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while True:
        status, _, body = read()
        if status == HTTPStatus.OK or time.monotonic() > deadline:
            return status, body
        time.sleep(0.1)


@real_replica
def test_a_writer_reads_its_own_write_and_another_client_sees_it_eventually(club):
    env, token = club
    editor = {"Authorization": f"Token {token}"}
    replica = urlunsplit(urlsplit(REPLICA)._replace(path=f"/{DB}"))
    # The read cache off: every read is answered by the database the router chose.
    with serving(env, DATABASE_REPLICA_URLS=replica, LADDER_READ_CACHE_SECONDS="0") as site:
        with replay_paused():
            status, headers, body = call(
                f"{site}/api/v1/players/", "POST", {"name": "Pinned Reader"}, **editor
            )
            assert status == HTTPStatus.CREATED, body
            player = f"{site}/api/v1/players/{body['id']}/"
            assert "Ladder-Pin=" in headers["Set-Cookie"]

            own, _, read = call(player, **editor, **{"Ladder-Pin": headers["Ladder-Pin"]})
            assert (own, read["name"]) == (HTTPStatus.OK, "Pinned Reader")
            # Without the pin, the editor's API read goes to the replica, which has not seen it.
            assert call(player, **editor)[0] == HTTPStatus.NOT_FOUND
            assert call(player)[0] == HTTPStatus.NOT_FOUND  # nor has another client
        status, read = _eventually(lambda: call(player))
        assert (status, read["name"]) == (HTTPStatus.OK, "Pinned Reader")


@real_replica
def test_a_lagging_replica_never_has_its_answer_kept(club):
    env, token = club
    editor = {"Authorization": f"Token {token}"}
    replica = urlunsplit(urlsplit(REPLICA)._replace(path=f"/{DB}"))
    listing = "/api/v1/players/?ordering=name"
    with serving(env, DATABASE_REPLICA_URLS=replica, LADDER_READ_CACHE_SECONDS="300") as site:
        before = _eventually(lambda: call(f"{site}{listing}"))[1]
        with replay_paused():
            status, _, body = call(
                f"{site}/api/v1/players/", "POST", {"name": "Aaron Kept"}, **editor
            )
            assert status == HTTPStatus.CREATED, body
            # The replica is behind the data version: the primary answers, and is kept.
            status, _, after = call(f"{site}{listing}")
        assert status == HTTPStatus.OK
        assert after["count"] == before["count"] + 1
        assert call(f"{site}{listing}")[2]["count"] == after["count"]


@real_replica
@pytest.mark.parametrize("pool", ["off", "min=1,max=2"])
def test_a_replica_that_does_not_answer_is_skipped_and_the_primary_serves(club, pool):
    env = {**club[0], "DATABASE_POOL": pool, "LADDER_READ_CACHE_SECONDS": "0"}
    closed = f"postgres://postgres@127.0.0.1:{_free_port()}/{DB}"
    real = urlunsplit(urlsplit(REPLICA)._replace(path=f"/{DB}"))
    with serving(env, DATABASE_REPLICA_URLS=f"{closed},{real}") as site:
        for path in ["/api/v1/players/", "/", "/api/v1/players/?ordering=-rating"] * 4:
            assert call_page(f"{site}{path}")[0] == HTTPStatus.OK, path
    with serving(env, DATABASE_REPLICA_URLS=closed) as site:
        started = time.monotonic()
        for _ in range(5):
            assert call_page(f"{site}/")[0] == HTTPStatus.OK
        assert time.monotonic() - started < 5  # left out after the first refusal


def call_page(url: str) -> tuple[int, dict, None]:
    """A page (HTML): its status only."""
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:  # noqa: S310
            return answer.status, {}, None
    except urllib.error.HTTPError as refused:
        return refused.code, {}, None


def _script(command: str) -> subprocess.CompletedProcess:
    port = str(urlsplit(REPLICA).port or 5432)
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "replica.sh"), command],
        env={**os.environ, "REPLICA_PORT": port}, capture_output=True, text=True, check=False,
    )  # fmt: skip


@real_replica
@pytest.mark.parametrize("kept", [{"DATABASE_CONN_MAX_AGE": "60"}, {"DATABASE_POOL": "1"}])
def test_a_replica_stopped_under_a_kept_connection_is_skipped(club, kept):
    """Last: it stops the replica (started again afterwards, by scripts/replica.sh)."""
    if _script("status").returncode != 0:
        pytest.skip("the replica is not one scripts/replica.sh started: it is not stopped here")
    env = {**club[0], **kept, "LADDER_READ_CACHE_SECONDS": "0"}
    real = urlunsplit(urlsplit(REPLICA)._replace(path=f"/{DB}"))
    with serving(env, DATABASE_REPLICA_URLS=real) as site:
        assert call(f"{site}/api/v1/players/")[0] == HTTPStatus.OK  # the connection is kept
        try:
            assert _script("stop").returncode == 0
            for _ in range(3):
                status, _, body = call(f"{site}/api/v1/players/")
                assert status == HTTPStatus.OK, body
        finally:
            started = _script("start")
    assert started.returncode == 0, started.stdout + started.stderr
