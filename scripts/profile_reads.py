#!/usr/bin/env python
"""CPU time of each read not kept, in one process, beside the DRF hello measured the same way.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres scripts/profile_reads.py --build
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres scripts/profile_reads.py
    ... scripts/profile_reads.py --club 5000 --profile detail --top 40

The wrk shares of ``scripts/bench_web.py`` move with whatever else runs on the machine; the CPU
a request costs the serving process does not. Each read of ``bench_web.READS`` is called
``--requests`` times through Django's WSGI handler (``DJANGO_DEBUG=0``, the read cache off,
persistent connections, the throttle on but never refusing, ``REDIS_URL`` if set), after a few
warm-up calls, ``--runs`` times; the lowest CPU time a request (``time.process_time``: this
process only, the database's own work comes on top) is printed beside the hello's
(``scripts/hello_drf.py`` through its WSGI handler) and the budget the issue's share gives it
(the hello's CPU divided by the share: a read at 25 % of the hello may cost 4 hellos).

``--build`` makes the two clubs ``bench_web`` measures (the demo club and a generated one of
``--players``) in databases of their own (``--database``, and that name with ``_demo``);
``--profile READ`` runs cProfile over one read (``detail``, ``list``, ``history``,
``standings``, ``page``, ``floor``) and prints its ``--top`` functions by own and by
cumulative time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

# Short names for the reads of bench_web.READS, in its order.
SHORT = {
    "detail": "GET /api/v1/players/{id}/",
    "list": "GET /api/v1/players/?ordering=-rating",
    "history": "GET /api/v1/players/{id}/history/",
    "standings": "GET / (standings)",
    "page": "GET /players/{id}/",
    "floor": "GET /api/v1/freshness/ (floor)",
}
# bench_web's targets not kept, as budgets in hellos (None: no target).
HELLOS = {"detail": 4, "list": 10, "history": 10, "standings": 10, "page": None, "floor": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="ladder_profile_reads")
    parser.add_argument("--build", action="store_true", help="make both clubs afresh")
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--periods", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--club", choices=["demo", "5000", "both"], default="both")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--reads", default=",".join(SHORT), help="comma-separated short names")
    parser.add_argument("--profile", choices=list(SHORT), help="cProfile one read")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--queries", action="store_true", help="print each read's SQL once")
    parser.add_argument("--in-process", help=argparse.SUPPRESS)  # demo|5000|hello
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", "")
    if not server.startswith(("postgres://", "postgresql://")):
        sys.exit("profile_reads needs PostgreSQL: set DATABASE_URL=postgres://... (any database).")
    clubs = {"demo": f"{args.database}_demo", "5000": args.database}
    if args.in_process:
        measure_here(args, server, clubs)
        return
    if args.build:
        build(args, server, clubs)
    if args.profile or args.queries:
        run_child(args, "demo" if args.club == "demo" else "5000")
        return
    hello, hello_calls = run_child(args, "hello")["hello"]
    print(f"hello: {hello:.2f} ms CPU a request (lowest of {args.runs} runs of {args.requests}), "
          f"{hello_calls} Python calls")  # fmt: skip
    for club in ["demo", "5000"] if args.club == "both" else [args.club]:
        found = run_child(args, club)
        print(f"\n== {club}: CPU ms a request, in hellos, the budget the issue's share of the "
              "hello gives it; Python calls a request")  # fmt: skip
        for name, (ms, count) in found.items():
            hellos = HELLOS[name]
            budget = "" if hellos is None else f"budget {hello * hellos:6.2f}"
            mark = "" if hellos is None else ("ok" if ms <= hello * hellos else "over")
            print(f"{name:10} {SHORT[name]:40} {ms:7.2f}  {ms / hello:5.1f} hellos  "
                  f"{budget:14} {mark:4} {count:8,} calls")  # fmt: skip


def build(args: argparse.Namespace, server: str, clubs: dict[str, str]) -> None:
    """Make the two clubs, each in a process of its own (Django is set up on its database)."""
    for club, name in clubs.items():
        url = urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
        code = (
            "import sys, argparse; sys.path.insert(0, 'scripts'); import bench_web; "
            f"a = argparse.Namespace(players={args.players}, periods={args.periods}, "
            f"seed={args.seed}); "
            + (
                f"bench_web.build_demo({server!r}, a, {name!r})"
                if club == "demo"
                else f"bench_web.build({server!r}, a, {name!r})"
            )
        )
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, check=True,
            env={**os.environ, **_settings(), "DATABASE_URL": url},
        )  # fmt: skip
        print(f"built {club} in {time.perf_counter() - started:.0f} s ({name})")


def _settings() -> dict[str, str]:
    """bench_web's serving settings, with the read cache off."""
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench-web-not-secret"),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LADDER_ANON_THROTTLE": "100000000/hour",
        "DATABASE_CONN_MAX_AGE": "600",
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "LADDER_READ_CACHE_SECONDS": "0",
    }


def run_child(args: argparse.Namespace, what: str) -> dict[str, float]:
    argv = [sys.executable, __file__, "--in-process", what, *sys.argv[1:]]
    argv = [a for a in argv if a != "--build"]
    out = subprocess.run(
        argv, cwd=ROOT, env={**os.environ, **_settings()}, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
    lines = out.stdout.splitlines()
    for line in lines[:-1]:
        print(line)
    return json.loads(lines[-1])


def measure_here(args: argparse.Namespace, server: str, clubs: dict[str, str]) -> None:
    """Measure in this process: the hello, or one club's reads; the last line is JSON."""
    if args.in_process == "hello":
        import hello_drf

        handler, paths = hello_drf.application, {"hello": "/hello/"}
    else:
        url = urlunsplit(urlsplit(server)._replace(path=f"/{clubs[args.in_process]}"))
        os.environ["DATABASE_URL"] = url
        import django

        django.setup()
        from bench_web import READS
        from django.core.wsgi import get_wsgi_application

        handler = get_wsgi_application()
        player = _player_id(args.in_process)
        wanted = args.reads.split(",") if not args.profile else [args.profile]
        paths = {short: READS[SHORT[short]].format(id=player) for short in wanted}
    found = {}
    for name, path in paths.items():
        for _ in range(5):  # warm up: URL resolving, templates, the connection
            call(handler, path)
        if args.queries and name != "hello":
            from django.db import connection
            from django.test.utils import CaptureQueriesContext

            with CaptureQueriesContext(connection) as queries:
                call(handler, path)
            print(f"--- {path}: {len(queries)} queries")
            for query in queries:
                print(f"{query['time']}s  {query['sql'][:600]}")
            found[name] = len(queries)
            continue
        if args.profile and name != "hello":
            profile(handler, path, args)
            found[name] = 0.0
            continue
        best = float("inf")
        for _ in range(args.runs):
            started = time.process_time()
            for _ in range(args.requests):
                call(handler, path)
            best = min(best, (time.process_time() - started) / args.requests * 1000)
        found[name] = [round(best, 3), calls(handler, path)]
    print(json.dumps(found))


def calls(handler, path: str, requests: int = 10) -> int:
    """Python function calls a request (cProfile's count): unlike the CPU time, the same
    whatever else the machine is doing."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        call(handler, path)
    profiler.disable()
    return round(pstats.Stats(profiler).total_calls / requests)  # type: ignore[attr-defined]


def _player_id(club: str) -> int:
    """The player bench_web reads: the demo's busiest, the generated club's first."""
    from django.db import connection

    with connection.cursor() as cursor:
        if club == "demo":
            cursor.execute(
                "SELECT player_id FROM ratings_ratingchange GROUP BY player_id "
                "ORDER BY count(*) DESC, player_id LIMIT 1"
            )
        else:
            cursor.execute("SELECT min(id) FROM ladder_player")
        return int(cursor.fetchone()[0])


def call(handler, path: str) -> bytes:
    """One GET through the WSGI handler, as gunicorn makes it; the body, checked 200."""
    from io import BytesIO

    path, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SCRIPT_NAME": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8801", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1:8801", "HTTP_USER_AGENT": "wrk",
        "HTTP_ACCEPT": "*/*", "wsgi.input": BytesIO(), "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False,
    }  # fmt: skip
    status = []
    response = handler(environ, lambda s, h, e=None: status.append(s))
    try:
        body = b"".join(response)
    finally:
        response.close()  # request_finished: the connection kept (CONN_MAX_AGE)
    assert status[0].startswith("200"), (path, status[0], body[:300])
    return body


def profile(handler, path: str, args: argparse.Namespace) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)  # CPU: waits for the database are not ours
    profiler.enable()
    for _ in range(args.requests):
        call(handler, path)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.strip_dirs()
    print(f"--- {path}: {args.requests} requests, by own time")
    stats.sort_stats("tottime").print_stats(args.top)
    print(f"--- {path}: by cumulative time")
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
