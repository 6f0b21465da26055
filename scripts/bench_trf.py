#!/usr/bin/env python
"""Time the import of a 300-player, 9-round Swiss TRF (1,350 games) with its rating run.

    .venv/bin/python scripts/bench_trf.py [--players 300] [--rounds 9] [--seed 1]

Works in its own SQLite file (``bench_trf.sqlite3``, made afresh; your data is never
touched). The TRF is generated in memory: every round pairs all players (an even number), with
random results, ratings and colours. Printed: the time of reading the file, preparing the
import (matching 300 new players), the import with its one rating run, and the total; the last
line is ``import_seconds=<x.xx>`` (the target is under 2 s).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATABASE = ROOT / "bench_trf.sqlite3"


def swiss(players: int, rounds: int, seed: int) -> str:
    """A TRF-16 of a Swiss where every round pairs everyone (random opponents and results)."""
    from ladder.files import exports
    from ladder.files import tournament_file as tf

    rng = random.Random(seed)
    entrants = [
        tf.Entrant(line=0, rank=n, sex=rng.choice("mw"), name=f"Player{n:04d}, Bench",
                    rating=rng.choice([None, *range(1400, 2600)]), federation="ENG",
                    fide_id=900_000 + n, birth_year=rng.randint(1950, 2015),
                    points=Decimal(0), final_rank=n)
        for n in range(1, players + 1)
    ]  # fmt: skip
    for number in range(1, rounds + 1):
        order = entrants[:]
        rng.shuffle(order)
        for white, black in zip(order[::2], order[1::2], strict=True):
            code = rng.choice("1=0")
            other = {"1": "0", "0": "1", "=": "="}[code]
            white.cells.append(tf.Cell(number, black.rank, "w", code, 0))
            black.cells.append(tf.Cell(number, white.rank, "b", other, 0))
    start = date(2026, 3, 2)
    tournament = tf.Tournament(
        name="Bench Swiss", start=start, end=start + timedelta(days=rounds - 1), rounds=rounds,
        round_dates={n: start + timedelta(days=n - 1) for n in range(1, rounds + 1)},
        entrants=entrants, time_control="90+30",
    )  # fmt: skip
    return exports.write_trf(tournament)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    DATABASE.unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{DATABASE}"
    os.environ["LADDER_RECOMPUTE"] = "immediate"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from ladder.files import tournaments, trf
    from ladder.files.tournaments import prepare
    from ladder.records import Game
    from ratings import runs
    from ratings.models import RatingRun

    text = swiss(args.players, args.rounds, args.seed)
    gc.collect()  # the migration's garbage is not the import's time
    started = time.perf_counter()
    tournament = trf.parse(text)
    parsed = time.perf_counter()
    plan = prepare(tournament)
    prepared = time.perf_counter()
    tournaments.import_tournament(plan)
    runs.settle()  # the rating run, as the command runs it after the commit
    done = time.perf_counter()
    run = RatingRun.objects.order_by("-pk").first()
    print("database: SQLite")
    print(f"file: {args.players} players, {args.rounds} rounds, {len(text):,} characters")
    print(f"read the TRF          {parsed - started:6.3f} s")
    print(f"match the players     {prepared - parsed:6.3f} s")
    outcome = runs.describe(run) if run else "no run"
    print(f"import and rating run {done - prepared:6.3f} s  ({Game.objects.count():,} games; "
          f"{outcome})")  # fmt: skip
    print(f"import_seconds={done - started:.2f}")
    for path in ROOT.glob(f"{DATABASE.name}*"):  # the database and the run lock beside it
        path.unlink()


if __name__ == "__main__":
    main()
