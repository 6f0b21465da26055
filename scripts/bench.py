#!/usr/bin/env python
"""Benchmark a full recompute of one period of a synthetic federation.

    make bench                                   # SQLite file bench.sqlite3, default sizes
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x make bench
    make bench BENCH_ARGS="--players 10000 --games 100000"

The benchmark never touches your data: on PostgreSQL it works in its own database
(``ladder_bench`` on the server of DATABASE_URL, dropped and created afresh), on SQLite in the
file ``bench.sqlite3``. It builds the federation (players with a history mix: rated, unrated,
juniors, 2400+ peaks), then measures ``recompute_from(period)`` in a fresh process and prints
the wall time, the number of queries issued and the peak memory of that process.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PERIOD = ("2026-01", date(2026, 1, 1), date(2026, 1, 31))


def bench_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        parts = urlsplit(url)
        return urlunsplit(parts._replace(path="/ladder_bench"))
    return f"sqlite:///{ROOT / 'bench.sqlite3'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = bench_url()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
    if args.measure_only:
        measure()
        return
    recreate_database()
    started = time.perf_counter()
    build(args.players, args.games, args.seed)
    print(f"database: {engine_name()}")
    print(f"built {args.players:,} players and {args.games:,} games in one period "
          f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
    subprocess.run([sys.executable, __file__, "--measure-only"], check=True)


def engine_name() -> str:
    import django

    django.setup()
    from django.db import connection

    return f"{connection.vendor} ({connection.settings_dict['NAME']})"


def recreate_database() -> None:
    url = os.environ["DATABASE_URL"]
    if url.startswith("sqlite"):
        Path(url.removeprefix("sqlite:///")).unlink(missing_ok=True)
    else:
        import psycopg

        admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS ladder_bench")
            conn.execute("CREATE DATABASE ladder_bench")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(players: int, games: int, seed: int) -> None:
    from django.db import connection, transaction

    from ladder.models import Player, RatingPeriod

    rng = random.Random(seed)
    batch = []
    with transaction.atomic():
        for n in range(players):
            rated = rng.random() > 0.1
            rating = rng.randint(1400, 2700) if rated else None
            player = Player(
                name=f"Bench Player {n:06d}",
                fide_id=10_000_000 + n,
                birth_year=rng.randint(1950, 2016),
                entry_rating=rating,
                entry_rated_games=rng.choice([0, 5, 20, 40, 200]) if rated else 0,
                entry_peak_rating=min(3500, rating + rng.randint(0, 150)) if rated else None,
            )
            player.start_from_entry()
            batch.append(player)
            if len(batch) == 20_000:
                Player.objects.bulk_create(batch)
                batch = []
        Player.objects.bulk_create(batch)
        label, start, end = PERIOD
        period = RatingPeriod.objects.create(label=label, start=start, end=end)
        ids = list(Player.objects.values_list("pk", flat=True))
        rows = _games(rng, ids, games, period.pk)
        if connection.vendor == "postgresql":
            columns = "period_id, date, white_id, black_id, result, event, round, created, updated"
            with (
                connection.cursor() as cursor,
                cursor.copy(f"COPY ladder_game ({columns}) FROM STDIN") as copy,
            ):
                for row in rows:
                    copy.write_row(row)
        else:
            with connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO ladder_game (period_id, date, white_id, black_id, result, "
                    "event, round, created, updated) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def _games(rng, ids, count, period_id):
    from django.utils import timezone

    now = timezone.now()
    results = ["1-0"] * 38 + ["0-1"] * 32 + ["1/2-1/2"] * 28 + ["+/-", "0-0"]
    events = ["", "Winter Open", "League", "Rapidplay"]
    for _ in range(count):
        white, black = rng.sample(ids, 2)
        day = date(2026, 1, rng.randint(1, 31))
        yield (period_id, day, white, black, rng.choice(results), rng.choice(events), "", now,
               now)  # fmt: skip


def measure() -> None:
    import django

    django.setup()
    from django.db import connection

    from ladder.models import RatingPeriod
    from ratings.services import recompute_from

    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    period = RatingPeriod.objects.get(label=PERIOD[0])
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with connection.execute_wrapper(count):
        started = time.perf_counter()
        summary = recompute_from(period)
        elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"recompute of {PERIOD[0]}: {summary.rows:,} rating changes written")
    print(f"wall time: {elapsed:.2f} s")
    print(f"queries: {queries}")
    print(f"peak memory: {peak / 1024:.0f} MiB (process; {baseline / 1024:.0f} MiB before)")


if __name__ == "__main__":
    main()
