#!/usr/bin/env python
"""Measure the CSV imports on big files: players imported, and a games file refused.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x scripts/bench_import.py
    scripts/bench_import.py --players 100000 --games-mb 50     # the defaults
    scripts/bench_import.py --database my_bench --bad result --bad duplicate

Works in its own database (``--database``, default ``ladder_import_bench``, on the server of
DATABASE_URL, dropped and created afresh; SQLite: the file ``bench_import.sqlite3``) and runs
each step in a fresh process, so that each step's peak memory is its own. For each step it
prints the wall time, the CPU time of the process (user + system: what the load of other work
on the machine changes least), the queries, the peak memory (resident set) of the process and
the load average:

1. ``import_players`` of N players (name, FIDE id, birth year, rating, rated games);
2. ``import_games`` of a file of about M MB whose last row is bad, once per kind of bad row
   (``--bad``, default every kind): a date that is no date, a result that is no result, an
   unknown player, a player playing themselves, a game of a closed period, a game already
   recorded, a game the file already holds.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script

# The last row of the games file, by kind of problem (the players are FIDE ids 100000 up; a
# game between the first two is recorded on 2026-03-01 in round "stored", February is closed).
BAD_ROWS = {
    "date": "2026-13-45,100001,100002,1-0",
    "result": "2026-03-02,100001,100002,2-0",
    "player": "2026-03-02,Player 00001x,100002,1-0",
    "self": "2026-03-02,100001,100001,1-0",
    "closed": "2026-02-10,100001,100002,1-0",
    "recorded": "2026-03-01,100001,100002,1-0",
    "duplicate": "2026-03-01,100000,100001,1-0",
}


def measure(label: str, step) -> None:
    """Run ``step`` and print what it cost this process."""
    from django.db import connection, reset_queries

    connection.force_debug_cursor = True
    reset_queries()
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    outcome = step()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    queries = len(connection.queries)
    connection.force_debug_cursor = False
    load = os.getloadavg()[0]
    print(
        f"{label}: {seconds:.2f} s (CPU {cpu:.2f} s), {queries} queries, "
        f"peak {after.ru_maxrss / 1024:.0f} MiB, load {load:.1f}; {outcome}",
        flush=True,
    )


def run_command(*argv: str) -> str:
    """Run a management command; return how it ended (the last line of its refusal)."""
    from io import StringIO

    from django.core.management import CommandError, call_command

    try:
        call_command(*argv, stdout=StringIO())
    except CommandError as error:
        return str(error).splitlines()[-1][:110]
    return "imported"


def setup_django(database: str) -> None:
    os.environ["DATABASE_URL"] = scratch_db.url_for(database, "bench_import.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    import django

    django.setup()


def step(args: argparse.Namespace) -> None:
    """One measured step, in this (fresh) process."""
    setup_django(args.database)
    path = Path(args.file)
    if args.step == "players":
        measure(f"import_players, {args.label}", lambda: run_command("import_players", path))
        _club_state()
    else:
        measure(f"import_games, {args.label}", lambda: run_command("import_games", path))


def _club_state() -> None:
    """A closed February and one recorded game, for the last rows that need them."""
    from datetime import date

    from ladder.records import PeriodStatus, RatingPeriod
    from ladder.writes import actions
    from ladder.writes.validation import GameEntry

    RatingPeriod.objects.create(
        label="2026-02", start=date(2026, 2, 1), end=date(2026, 2, 28), status=PeriodStatus.CLOSED
    )
    actions.enter_games(
        games=[GameEntry(date(2026, 3, 1), "100001", "100002", "1-0", "Club Open", "stored")]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games-mb", type=float, default=50)
    parser.add_argument("--database", default="ladder_import_bench")
    parser.add_argument("--bad", action="append", choices=list(BAD_ROWS))
    parser.add_argument("--step", choices=["players", "games"], help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        step(args)
        return
    scratch_db.recreate(scratch_db.url_for(args.database, "bench_import.sqlite3"))
    setup_django(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    folder = Path(tempfile.mkdtemp(prefix="ladder-import-bench-"))
    players = folder / "players.csv"
    with players.open("w") as out:
        out.write("name,fide_id,birth_year,rating,rated_games\n")
        for i in range(args.players):
            out.write(f"Player {i:06d},{100_000 + i},{1950 + i % 60},{1400 + i % 1400},{i % 90}\n")
    measured = [sys.executable, __file__, "--database", args.database, "--file"]
    subprocess.run(
        [*measured, players, "--step", "players", "--label", f"{args.players:,} players"],
        check=True,
    )
    body, rows = folder / "games-body.csv", 0
    with body.open("w") as out:
        out.write("date,white,black,result,event,round\n")
        while out.tell() < args.games_mb * 1_000_000:
            white = 100_000 + rows % args.players
            black = 100_000 + (rows * 7 + 1) % args.players
            black = black if black != white else 100_000 + (white - 99_999) % args.players
            out.write(f"2026-03-{1 + rows % 28:02d},{white},{black},1-0,Club Open,{rows}\n")
            rows += 1
    for bad in args.bad or BAD_ROWS:
        games = folder / f"games-{bad}.csv"
        shutil.copyfile(body, games)
        with games.open("a") as out:
            round_ = {"duplicate": "0", "recorded": "stored"}.get(bad, "last")
            out.write(f"{BAD_ROWS[bad]},Club Open,{round_}\n")
        size = games.stat().st_size / 1_000_000
        label = f"{size:.0f} MB ({rows + 1:,} rows), bad {bad} on the last row"
        subprocess.run([*measured, games, "--step", "games", "--label", label], check=True)
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
