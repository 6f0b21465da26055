#!/usr/bin/env python
"""Attack Ladder as an outsider would and print what held: bad input through every door,
concurrent writers (PostgreSQL), and the API's abuse limits.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x python scripts/attack.py [--trials 12]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x python scripts/attack.py --quick

Works in its own database (``ladder_attack`` on the server of DATABASE_URL, dropped and created
afresh; SQLite: ``attack.sqlite3``, where the races are skipped), with the database cache (never
Redis) and the run sweeper's thread off (the script sweeps itself). ``--quick``: fewer race trials
and junk reads. Each group of the second attack (issue 24) prints its inputs and their verdicts:
clean (a clear 4xx with a message, or the right answer where a 4xx is not one), 500, or silently
wrong (a bad input taken, a cache row kept, a user name shown, a run left waiting...). Every
published list is snapshotted first and compared last. The final line:

    inputs=<n> clean=<n> errors_500=<n> silently_wrong=<n> races=<n>
    lists_changed_without_revision=<n>      (on one line)

and the exit status is 1 when a target (0 x 500, 0 silently wrong, 0 lists changed) is missed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from functools import partial
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script

totals: Counter[str] = Counter()
ADMIN = "attack-admin-boss"  # a user name the public must never see
CLEAN, ERROR, WRONG = "clean", "500", "silently wrong"


def verdict(status: int, body: bytes = b"?", held: bool | None = None) -> str:
    """A bad input's verdict: 500 for a crash; else clean when ``held`` (if given) or when it
    was refused with a 4xx that says something."""
    if status >= 500:
        return ERROR
    if held is None:
        held = 400 <= status < 500 and bool(body.strip())
    return CLEAN if held else WRONG


def answered(response, **kwargs) -> str:
    return verdict(response.status_code, response.content, **kwargs)


def report(group: str, verdicts: list[str], statuses: list[int] | None = None) -> None:
    """Count and print one group of bad inputs."""
    counts = Counter(verdicts)
    totals["inputs"] += len(verdicts)
    totals["clean"] += counts[CLEAN]
    totals["errors_500"] += counts[ERROR]
    totals["silently_wrong"] += counts[WRONG]
    shown = ", ".join(f"{name}: {n}" for name, n in sorted(counts.items()))
    codes = ", ".join(f"{c}: {n}" for c, n in sorted(Counter(statuses or []).items()))
    print(f"{group}: {len(verdicts)} inputs ({shown})" + (f" [HTTP {codes}]" if codes else ""))


def report_race(group: str, trials: int, statuses: list[int]) -> None:
    """Count and print one race: any 5xx is a 500; a 4xx is a fair refusal."""
    totals["races"] += trials
    totals["errors_500"] += sum(1 for code in statuses if code >= 500)
    shown = ", ".join(f"{code}: {n}" for code, n in sorted(Counter(statuses).items()))
    print(f"{group}: {len(statuses)} requests ({shown})")


def snapshot():
    from ladder.records import Player
    from ratings.models import RatingChange

    rows = RatingChange.objects.order_by("player_id", "period_id", "rating_list").values_list(
        "player_id", "period_id", "rating_list", "rating_after", "change"
    )
    return list(rows), list(Player.objects.order_by("pk").values_list("pk", "rating"))


def differs_from_replay() -> int:
    from ratings.recompute import services

    state = snapshot()
    services.recompute_from(None)
    return int(snapshot() != state)


def published_lists() -> dict:
    """Every published list as stored: (period, list, revision) -> its row and its lines."""
    from ratings.models import Publication, PublishedRating

    lines: dict[int, list] = {}
    for row in PublishedRating.objects.order_by("publication_id", "player_id").values_list():
        lines.setdefault(row[1], []).append(row[2:])
    fields = ("period_id", "rating_list", "revision", "published_at", "published_by_id",
              "reason", "corrected_in_id", "players_changed", "differences", "pk")  # fmt: skip
    return {
        row[:3]: (row[3:-1], lines.get(row[-1], []))
        for row in Publication.objects.values_list(*fields)
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=12, help="runs of each race")
    parser.add_argument("--quick", action="store_true", help="3 trials a race, 20 junk reads")
    args = parser.parse_args()
    trials, reads = (3, 20) if args.quick else (args.trials, 200)
    os.environ["DATABASE_URL"] = scratch_db.url_for("ladder_attack", "attack.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.pop("REDIS_URL", None)  # the caches group counts rows of the database cache
    os.environ["LADDER_RUN_SWEEP_SECONDS"] = "0"  # the orphaned-run group sweeps by itself
    os.environ["LADDER_RECOMPUTE"] = "immediate"
    scratch_db.recreate(os.environ["DATABASE_URL"])
    import django

    django.setup()
    import logging

    from django.core.management import call_command

    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # the 4xx are the point
    logging.getLogger("ratings").setLevel(logging.CRITICAL)

    call_command("migrate", verbosity=0)
    club = seed()
    published = published_lists()
    bad_input(club)
    bodies(club)
    slipped_through(club)
    bad_settings()
    caches_group(reads)
    disclosure(club)
    orphaned_run()
    killed_worker()
    if os.environ["DATABASE_URL"].startswith("postgres"):
        races(club, trials)
    else:
        print("races: skipped (SQLite serializes writers whole)")
    replay = differs_from_replay()
    print(f"lists differing from a full replay: {replay}")
    totals["silently_wrong"] += replay + totals["lost or resurrected"]
    print(f"games lost or resurrected: {totals['lost or resurrected']}")
    after = published_lists()
    changed = sum(1 for key, kept in published.items() if after.get(key) != kept)
    totals["lists_changed_without_revision"] += changed
    print(f"published lists: {len(published)} before, {len(after)} after, {changed} changed")
    print(f"kills: {totals['kills']}")
    names = ("inputs", "clean", "errors_500", "silently_wrong", "races",
             "lists_changed_without_revision")  # fmt: skip
    print(" ".join(f"{name}={totals[name]}" for name in names))
    missed = totals["errors_500"] or totals["silently_wrong"]
    return 1 if missed or totals["lists_changed_without_revision"] else 0


def seed():
    from datetime import date

    from django.contrib.auth import get_user_model

    from ladder.records import Player, RatingPeriod
    from ladder.writes import actions
    from ladder.writes.validation import GameEntry

    user = get_user_model().objects.create_superuser(ADMIN, "boss@example.org", "pw")
    players = [
        Player.objects.create(name=f"Player {i:02d}", fide_id=1000 + i, entry_rating=1500 + 20 * i,
                              entry_rated_games=40, birth_year=1980)
        for i in range(24)
    ]  # fmt: skip
    for month in (6, 7, 8, 9, 10):
        entries = [
            GameEntry(date=date(2026, month, 1 + i), white=players[i],
                      black=players[(i + month) % 24], result="1-0")
            for i in range(12)
        ]  # fmt: skip
        actions.enter_games(games=entries)
    for label in ("2026-06", "2026-07", "2026-08", "2026-09"):
        actions.close_period(period=RatingPeriod.objects.get(label=label), user=user)
    return {"user": user, "players": players}


def group(name: str, responses: list) -> None:
    """Report bad inputs sent over HTTP: each must be refused with a 4xx that says why."""
    report(name, [answered(r) for r in responses], [r.status_code for r in responses])


def client(club):
    from rest_framework.test import APIClient

    api = APIClient(raise_request_exception=False)
    api.force_authenticate(club["user"])
    return api


def bad_input(club) -> None:
    from django.test import Client

    from ladder.records import Game, RatingPeriod

    a, b = (p.pk for p in club["players"][:2])
    before = Game.objects.count()
    api = client(club)
    games = [
        {"date": "2025-01-15", "white": a, "black": b, "result": "1-0"},  # before a published list
        {"date": "2999-12-31", "white": a, "black": b, "result": "1-0"},
        {"date": "2026-06-10", "white": a, "black": b, "result": "1-0"},  # closed period
        {"date": "2026-11-10", "white": a, "black": a, "result": "1-0"},
        {"date": "2026-11-10", "white": a, "black": b, "result": "2-0"},
        {"date": "2026-11-10", "white": a, "black": b, "result": "1-0", "event": "\x1b[2J"},
        {"date": "2026-11-10", "white": 10**30, "black": b, "result": "1-0"},
        {"date": "not a date", "white": a, "black": b, "result": "1-0"},
        {"date": "2026-11-10", "white": "x\x00", "black": b, "result": "1-0"},
        [1, 2, 3],
        "null",
        {"date": None},
    ]
    group("API games, bad", [api.post("/api/v1/games/", g, format="json") for g in games])
    players = [
        {"name": "A\x07"}, {"name": "B\nC"}, {"name": "Z", "fide_id": 0},
        {"name": "Z", "entry_rating": 0}, {"name": "Z", "entry_rating": 1399},
        {"name": "Z", "fide_id": 1000}, {"name": "Z", "fide_id": 2**64}, {"name": ""},
    ]  # fmt: skip
    group("API players, bad", [api.post("/api/v1/players/", p, format="json") for p in players])
    entry = {"entry_rating": 1900}
    group("API entry data behind a published list",
          [api.patch(f"/api/v1/players/{a}/", entry, format="json")])  # fmt: skip
    bombs = ["[" * 100_000 + "]" * 100_000, '{"rating": NaN}', '{"a":' * 50 + "1" + "}" * 50]
    anon = Client(raise_request_exception=False)
    group("calculator JSON bombs (anonymous)", [
        anon.post("/api/v1/calculator/", body, content_type="application/json")
        for body in bombs
    ])  # fmt: skip
    admin = Client(raise_request_exception=False)
    admin.force_login(club["user"])
    urls = ["/admin/ladder/game/?result=%00", "/admin/ladder/game/?q=%00",
            "/admin/ladder/game/?period__id__exact=x", "/admin/ladder/player/?q=%00"]  # fmt: skip
    # The admin answers a bad filter with its own page (a redirect to ?e=1, a form shown again
    # with its errors): anything short of a 500 held, unless the bad period was saved.
    statuses = [admin.get(url).status_code for url in urls]
    statuses.append(admin.post("/admin/ladder/ratingperiod/add/",
                               {"label": "2027/01", "start": "2027-01-01", "end": "2027-01-31"}
                               ).status_code)  # fmt: skip
    saved = RatingPeriod.objects.filter(label="2027/01").exists()
    verdicts = [verdict(code, held=True) for code in statuses]
    verdicts[-1] = verdict(statuses[-1], held=not saved)
    page = anon.get("/periods/")
    verdicts.append(verdict(page.status_code, held=page.status_code == 200))
    report("admin, bad", verdicts, statuses + [page.status_code])
    codes = csv_attacks()
    report("CSV, bad", [verdict(code, b"refused") for code in codes], codes)
    after = Game.objects.count()
    totals["lost or resurrected"] += abs(after - before)


def bodies(club) -> None:
    """Bodies a JSON parser must not decode: byte codecs as charsets, a zlib bomb, 1e400."""
    import base64
    import bz2
    import codecs
    import json
    import zlib

    from django.test import Client

    anon = Client(raise_request_exception=False)
    good = json.dumps({"rating": 1800, "k": 20, "opponent": 1900, "score": "1"})
    encoded = {
        "zlib": zlib.compress(good.encode()), "bz2": bz2.compress(good.encode()),
        "rot13": codecs.encode(good, "rot13").encode(), "base64": base64.b64encode(good.encode()),
    }  # fmt: skip

    def send(body: bytes, charset: str):  # bytes as they are: Client.post re-encodes them
        kind = f"application/json; charset={charset}"
        return anon.generic("POST", "/api/v1/calculator/", body, content_type=kind)

    responses = [send(body, name) for name, body in encoded.items()]
    responses.append(send(zlib.compress(b"[" * 50_000_000 + b"]" * 50_000_000, 9), "zlib"))
    a, b = (p.pk for p in club["players"][2:4])
    huge = f'{{"date": "2026-11-12", "white": 1e400, "black": {b}, "result": "1-0"}}'
    responses.append(client(club).post("/api/v1/games/", huge, content_type="application/json"))
    huge = f'{{"date": "2026-11-12", "white": {a}, "black": {b}, "result": 1e400}}'
    responses.append(client(club).post("/api/v1/games/", huge, content_type="application/json"))
    group("bodies: charsets zlib/bz2/rot13/base64, a zlib bomb, 1e400", responses)


SETTINGS = {
    "LADDER_ANON_THROTTLE": ["abc", "1000/fortnight"],
    "LADDER_LOGIN_FAILURES": ["many"], "LADDER_LOCKOUT_HOURS": ["an hour"],
    "LADDER_TOKEN_DAYS": ["ninety"], "LADDER_READ_CACHE_SECONDS": ["5m"],
    "DATABASE_CONN_MAX_AGE": ["forever"], "LADDER_CLUB_K": ["twenty"],
}  # fmt: skip


def bad_settings() -> None:
    """Each bad value stops ``manage.py check`` with ImproperlyConfigured naming it."""
    verdicts = []
    for name, values in SETTINGS.items():
        for value in values:
            env = {**os.environ, name: value}
            done = subprocess.run(
                [sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            said = done.stderr
            held = done.returncode != 0 and "ImproperlyConfigured" in said and name in said
            if not held:
                print(f"  {name}={value!r}: exit {done.returncode}, {said.strip()[-200:]!r}")
            verdicts.append(CLEAN if held else WRONG)  # a ValueError's traceback too
    report("settings: bad values stop manage.py check", verdicts)


def kept_answers() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM ladder_cache")
        return cursor.fetchone()[0]


def caches_group(reads: int) -> None:
    """Junk query strings keep no answer; /healthz notices the cache table gone."""
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    anon = Client(raise_request_exception=False)
    empty = kept_answers()
    anon.get("/")  # the page's own answer is kept once: the junk must add none
    if kept_answers() == empty:
        print("  control failed: / itself was not kept, so the junk reads prove nothing")
    verdicts, statuses = [], []
    for n in range(reads):
        before = kept_answers()
        response = anon.get(f"/?junk={n}")
        statuses.append(response.status_code)
        verdicts.append(verdict(response.status_code, held=kept_answers() == before))
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE ladder_cache")
    try:
        health = anon.get("/healthz")
        status = health.json().get("status") if health.status_code < 500 else None
        verdicts.append(verdict(health.status_code, held=status == "degraded"))
        statuses.append(health.status_code)
    finally:
        call_command("createcachetable", verbosity=0)
    report(f"caches: {reads} /?junk=<n> reads, /healthz without the cache table", verdicts,
           statuses)  # fmt: skip


def disclosure(club) -> None:
    """The public sees no administrator's user name; a foreign next= lands on /admin/."""
    from django.test import Client

    from ladder.records import RatingPeriod

    anon = Client(raise_request_exception=False)
    verdicts, statuses = [], []
    for period in RatingPeriod.objects.filter(closed_at__isnull=False):
        response = anon.get(f"/api/v1/periods/{period.pk}/", HTTP_ACCEPT="application/json")
        shown = ADMIN.encode() in response.content
        held = response.status_code == 200 and not shown
        verdicts.append(verdict(response.status_code, held=held))
        statuses.append(response.status_code)
    staff = Client()  # a session, not force_authenticate: the read cache serves that as anonymous
    staff.force_login(club["user"])
    staff = staff.get(f"/api/v1/periods/{period.pk}/", HTTP_ACCEPT="application/json")
    if ADMIN.encode() not in staff.content:
        print("  control failed: staff see no user name either, so the probe proves nothing")
    evil = "https://evil.example/"
    login = Client(raise_request_exception=False)
    response = login.post(f"/admin/login/?next={evil}",
                          {"username": ADMIN, "password": "pw", "next": evil})  # fmt: skip
    where = response.get("Location", "")
    landed = login.get(where) if where.startswith("/") else None
    held = where == "/admin/" and landed is not None and landed.status_code == 200
    verdicts.append(verdict(response.status_code, held=held))
    statuses.append(response.status_code)
    if not held:
        print(f"  login with next={evil}: {response.status_code} to {where!r}")
    report("disclosure: public periods, login next=", verdicts, statuses)


def orphaned_run() -> None:
    """A run left "running" by a killed process: /healthz degraded, then one sweep runs it."""
    from datetime import timedelta

    from django.conf import settings
    from django.test import Client
    from django.utils import timezone

    from ratings.models import RatingRun, RunStatus
    from ratings.runs import sweeper

    anon = Client(raise_request_exception=False)
    long_ago = timezone.now() - timedelta(seconds=settings.LADDER_HEALTH_RUN_SECONDS + 60)
    run = RatingRun.objects.create(status=RunStatus.RUNNING, requested_at=long_ago,
                                   started_at=long_ago, attempts=1,
                                   reason="attack.py: its process was killed")  # fmt: skip
    totals["kills"] += 1
    health = anon.get("/healthz")
    degraded = health.status_code == 200 and health.json().get("status") == "degraded"
    verdicts = [verdict(health.status_code, held=degraded)]
    swept = sweeper.tick()
    run.refresh_from_db()
    waiting = RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING))
    verdicts.append(verdict(200, held=not run.is_pending and not waiting.exists()))
    after = anon.get("/healthz")
    verdicts.append(verdict(after.status_code, held=after.json().get("status") == "ok"))
    print(f"  orphaned run: swept={swept}, now {run.status}; /healthz {after.json()['status']}")
    report("orphaned run (immediate mode, sweeper.tick)", verdicts,
           [health.status_code, after.status_code])  # fmt: skip


def killed_worker() -> None:
    """Real gunicorn workers sweeping every 2 s: kill -9 one, leave a run "running" as it would,
    and the run must be picked up with no write while /healthz says "degraded" meanwhile."""
    import json
    import signal
    import socket
    import time
    import urllib.request
    from datetime import timedelta

    from django.utils import timezone

    from ratings.models import RatingRun, RunStatus

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "LADDER_RUN_SWEEP_SECONDS": "2", "LADDER_HEALTH_RUN_SECONDS": "1",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1"}  # fmt: skip
    gunicorn = Path(sys.executable).with_name("gunicorn")
    command = [str(gunicorn), "-w", "2", "-b", f"127.0.0.1:{port}", "ladder.wsgi"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip

    def health() -> str:
        url = f"http://127.0.0.1:{port}/healthz"
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - our own server
            return json.load(answer)["status"]

    verdicts = []
    try:
        for _ in range(60):  # the workers boot
            try:
                health()
                break
            except OSError:
                time.sleep(0.5)
        workers = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        os.kill(int(workers[0]), signal.SIGKILL)  # one of ours, by its id
        totals["kills"] += 1
        long_ago = timezone.now() - timedelta(seconds=60)
        run = RatingRun.objects.create(status=RunStatus.RUNNING, requested_at=long_ago,
                                       started_at=long_ago, attempts=1,
                                       reason="attack.py: its worker was killed")  # fmt: skip
        verdicts.append(CLEAN if health() == "degraded" else WRONG)
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            health()  # a respawned worker starts its sweeper on its first request
            run.refresh_from_db()
            if not run.is_pending:
                break
            time.sleep(1)
        verdicts.append(CLEAN if not run.is_pending else WRONG)
        print(f"  killed worker: the run is {run.status} after the sweep; /healthz {health()}")
    except Exception as error:  # noqa: BLE001 - a crash is what we count
        print(f"  killed worker: {type(error).__name__}: {error}")
        verdicts.append(ERROR)
    finally:
        server.terminate()
        server.wait(30)
    report("killed gunicorn worker, run swept (LADDER_RUN_SWEEP_SECONDS=2)", verdicts)


def slipped_through(club) -> None:
    """What the second attack found taken silently: a player given two games in one round of
    an event on one day (API), a TRF file naming its tournament twice, a FIDE id written in
    other digits than 0-9 (API, CSV)."""
    from django.core.management import CommandError, call_command

    from ladder.records import Game
    from tests.tournaments.files import ROUND_ROBIN

    a, b, c = (p.pk for p in club["players"][2:5])
    api = client(club)
    game = {"date": "2026-11-12", "event": "Club", "round": "3", "result": "1-0"}
    first = api.post("/api/v1/games/", {**game, "white": a, "black": b}, format="json")
    second = api.post("/api/v1/games/", {**game, "white": a, "black": c}, format="json")
    in_round = Game.objects.filter(date="2026-11-12", event="Club", round="3").count()
    verdicts = [verdict(first.status_code, held=first.status_code == 201)]
    verdicts.append(answered(second, held=second.status_code == 400 and in_round == 1))
    digits = api.post("/api/v1/players/", {"name": "Digits", "fide_id": "١٢٣٤٥"}, format="json")
    verdicts.append(answered(digits))
    statuses = [first.status_code, second.status_code, digits.status_code]
    with tempfile.TemporaryDirectory() as folder:
        twice = ROUND_ROBIN.replace("012 Spring Round Robin", "012 Spring Round Robin\n012 Other")
        trf = Path(folder) / "twice.trf"
        trf.write_text(twice)
        events = Game.objects.exclude(event="").values("event").distinct().count()
        try:
            call_command("import_trf", str(trf), stdout=StringIO())
            verdicts.append(WRONG)
        except CommandError as error:
            named = "record 012" in str(error) and "given twice" in str(error)
            unchanged = Game.objects.exclude(event="").values("event").distinct().count() == events
            verdicts.append(CLEAN if named and unchanged else WRONG)
        csv = Path(folder) / "players.csv"
        csv.write_text("name,fide_id\nDigits Two,١٢٣٤٥\n")
        try:
            call_command("import_players", str(csv), stdout=StringIO())
            verdicts.append(WRONG)
        except CommandError as error:
            verdicts.append(CLEAN if "digits 0-9" in str(error) else WRONG)
    report("slipped through before: two games a round, TRF 012 twice, other digits", verdicts,
           statuses)  # fmt: skip


def csv_attacks() -> list[int]:
    from django.core.management import CommandError, call_command

    folder = Path(tempfile.mkdtemp(prefix="ladder-attack-"))
    files = {
        "players": ['name,fide_id\n"Big' + "x" * 140_000 + '",5\n', "name,fide_id\nSmith, John,5\n",
                    "name,rating,rating\nA,1500,1600\n", "name,fide_id\nA,0\n",
                    "name,rating\nA,0\n", "name\nA\x1b]0;x\x07\n"],
        "games": ["date,white,black,result\n2999-12-31,1000,1001,1-0\n",
                  "date,white,black,result,result\n2026-11-02,1000,1001,1-0,0-1\n"],
    }  # fmt: skip
    codes = []
    for kind, texts in files.items():
        for i, text in enumerate(texts):
            path = folder / f"{kind}{i}.csv"
            path.write_text(text, encoding="utf-8")
            try:
                call_command(f"import_{kind}", str(path), stdout=StringIO())
                codes.append(200)  # imported: a bad file got through
            except CommandError:
                codes.append(400)
            except Exception:  # noqa: BLE001 - a crash is what we count
                codes.append(500)
    return codes


def at_once(*calls):
    from django.db import connections

    barrier = threading.Barrier(len(calls))
    results = [0] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception:  # noqa: BLE001 - a crash is what we count
            results[i] = 599
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def races(club, trials: int) -> None:
    from datetime import date

    from ladder.records import Game, Player, RatingPeriod
    from ladder.writes import actions

    players = club["players"]

    def patch(url: str) -> int:
        return client(club).patch(url, {"result": "0-1"}, format="json").status_code

    def delete(url: str) -> int:
        return client(club).delete(url).status_code

    def post(path: str, body: dict) -> int:
        return client(club).post(path, body, format="json").status_code

    statuses: list[int] = []
    for trial in range(trials):
        game = Game.objects.create(
            date=date(2026, 11, 1 + trial % 28), white=players[trial % 24],
            black=players[(trial + 5) % 24], result="1-0", round=f"r{trial}",
        )  # fmt: skip
        url = f"/api/v1/games/{game.pk}/"
        codes = at_once(partial(patch, url), partial(delete, url))
        statuses += codes
        if codes[1] == 204 and Game.objects.filter(pk=game.pk).exists():
            totals["lost or resurrected"] += 1
    report_race(f"PATCH racing DELETE, {trials} trials", trials, statuses)
    statuses = []
    for trial in range(trials):
        body = {"name": "Twin", "fide_id": 900_000 + trial, "entry_rating": 1800}
        statuses += at_once(*[partial(post, "/api/v1/players/", body)] * 4)
        found = Player.objects.filter(fide_id=900_000 + trial).count()
        totals["lost or resurrected"] += abs(found - 1)
    report_race(f"4 players with one FIDE id, {trials} trials", trials, statuses)
    statuses = []
    for trial in range(trials):
        month = "2026-12" if trial % 2 else "2026-11"
        pairs = [(players[(2 * i + trial) % 24], players[(2 * i + trial + 1) % 24])
                 for i in range(6)]  # fmt: skip
        bodies = [
            {"date": f"{month}-{10 + i:02d}", "white": w.pk, "black": b.pk, "result": "1-0",
             "round": f"m{trial}-{i}"}
            for i, (w, b) in enumerate(pairs)
        ]  # fmt: skip
        statuses += at_once(*(partial(post, "/api/v1/games/", body) for body in bodies))
    report_race(f"six games of a month at once, {trials} trials", trials, statuses)
    statuses = []
    october = RatingPeriod.objects.get(label="2026-10")
    for trial in range(trials):
        body = {"date": "2026-10-20", "white": players[0].pk, "black": players[1].pk,
                "result": "1-0", "round": f"c{trial}"}  # fmt: skip
        close = partial(post, f"/api/v1/periods/{october.pk}/close/", {})
        statuses += at_once(partial(post, "/api/v1/games/", body), close)
        october.refresh_from_db()
        late = Game.objects.filter(period=october, created__gt=october.closed_at)
        totals["lost or resurrected"] += late.count()  # written into a closed period
        actions.reopen_period(period=october, reason="attack.py: the next trial")
    report_race(f"an entry racing the close of its period, {trials} trials", trials, statuses)


if __name__ == "__main__":
    sys.exit(main())
