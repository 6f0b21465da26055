#!/usr/bin/env python
"""Measure the CSV imports on big files: players imported, and a games file refused.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x scripts/bench_import.py
    scripts/bench_import.py --players 100000 --games-mb 50     # the defaults

Works in its own database (``ladder_import_bench`` on the server of DATABASE_URL, dropped and
created afresh; SQLite: the file ``bench_import.sqlite3``) and prints, for each step, the wall
time, the queries and the peak memory of this process:

1. ``import_players`` of N players (name, FIDE id, birth year, rating, rated games);
2. ``import_games`` of a file of about M MB whose last row has a date that is no date;
3. the same file whose last row has a result that is no result (checked by the validator).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script


def measure(label: str, step) -> None:
    from django.db import connection, reset_queries

    connection.force_debug_cursor = True
    reset_queries()
    start = time.perf_counter()
    outcome = step()
    seconds = time.perf_counter() - start
    queries = len(connection.queries)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    connection.force_debug_cursor = False
    print(f"{label}: {seconds:.2f} s, {queries} queries, peak {peak:.0f} MiB; {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games-mb", type=float, default=50)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = scratch_db.url_for("ladder_import_bench", "bench_import.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    scratch_db.recreate(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from io import StringIO

    from django.core.management import CommandError, call_command

    call_command("migrate", verbosity=0)
    folder = Path(tempfile.mkdtemp(prefix="ladder-import-bench-"))
    players = folder / "players.csv"
    with players.open("w") as out:
        out.write("name,fide_id,birth_year,rating,rated_games\n")
        for i in range(args.players):
            out.write(f"Player {i:06d},{100_000 + i},{1950 + i % 60},{1400 + i % 1400},{i % 90}\n")

    def run(*argv: str) -> str:
        try:
            call_command(*argv, stdout=StringIO())
        except CommandError as error:
            return str(error).splitlines()[-1][:100]
        return "imported"

    measure(f"import_players, {args.players:,} players", lambda: run("import_players", players))
    for bad, last in (("date", "2026-13-45,100001,100002,1-0"),
                      ("result", "2026-03-02,100001,100002,2-0")):  # fmt: skip
        games = folder / f"games-{bad}.csv"
        rows = 0
        with games.open("w") as out:
            out.write("date,white,black,result,event,round\n")
            while out.tell() < args.games_mb * 1_000_000:
                white = 100_000 + rows % args.players
                black = 100_000 + (rows * 7 + 1) % args.players
                black = black if black != white else 100_000 + (white - 99_999) % args.players
                out.write(f"2026-03-{1 + rows % 28:02d},{white},{black},1-0,Club Open,{rows}\n")
                rows += 1
            out.write(last + ",Club Open,last\n")
        size = games.stat().st_size / 1_000_000
        label = f"import_games, {size:.0f} MB ({rows + 1:,} rows), bad {bad} on the last row"
        measure(label, lambda games=games: run("import_games", games))


if __name__ == "__main__":
    main()
