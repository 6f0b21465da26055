#!/usr/bin/env python
"""Benchmark a federation's ten years of monthly periods against the I/O floor of the same work.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x make bench-history
    make bench-history BENCH_HISTORY_ARGS="--scale 0.02"     # a fiftieth, while developing

It works in its own database (``ladder_bench_history`` on the server of DATABASE_URL, dropped
and made afresh; the floor in ``ladder_bench_history_floor``) and builds, with COPY, a federation
of 500,000 players with entry data on the three lists, then 120 monthly periods of games:
about 120,000 standard, 50,000 rapid and 40,000 blitz games a month (25 million in all;
``--scale`` builds a fraction of both players and games). A third of the players are newcomers,
unrated, who arrive in a month of the ten years; a quarter leave (play no more) in a later
month; birth years run from 1940 to 2015, so that juniors turn 18 (FIDE's K = 40 ends) on the
way. Each month a sixth of the game slots' worth of each list's players play, about six games
each, in events of about 200 games.

Then, each in a fresh process (wall time, queries, peak memory of that process):

1. the full replay of the three lists from the first period (``recompute_lists``), its rows
   written without the rating table's index by player (``LADDER_EXCLUSIVE_REPLAY_PERIODS``;
   ``--online``: through it, as by default);
2. one game result of the first period corrected, through the write path
   (``ladder.writes.actions.correct_game``; its rating run executes at once, as it does by
   default): the incremental recompute of ten years;
3. one game result of the latest period corrected the same way.

And the floor for the same work: ``/work/shared/bench/floor.py``'s steps (read the games and
players, numpy, COPY one row a player), timed for each period and list on its games and the
players who played them, summed. The last line is ``history_ratio_to_floor=<x>
correction_10y_s=<y> latest_s=<z> peak_mib=<m>`` (the ratio ``n/a`` on SQLite).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script
from bench_data import (  # noqa: E402 - beside this script
    FLOOR,
    RESULTS,
    analyze,
    copy_rows,
    engine_name,
    insert_games,
    measured,
    recreate_database,
    run_measure,
    use_scratch_database,
)

DATABASE = "ladder_bench_history"
FLOOR_DATABASE = "ladder_bench_history_floor"
PLAYERS = 500_000
MONTHS = 120
FIRST = date(2016, 1, 1)
# Games a month on each list at scale 1, and the time control each list's games carry.
LISTS = {"standard": (120_000, "90+30"), "rapid": (50_000, "15+10"), "blitz": (40_000, "3+2")}
# Who plays on each list (a player plays on at least one), and has entry data on it.
PLAYS = {"standard": 0.8, "rapid": 0.5, "blitz": 0.4}
NEWCOMERS, LEAVING = 0.3, 0.25
GAMES_A_PLAYER = 6  # each month's active players play about this many games each
EVENT_GAMES = 200  # games an event, about
# The replay measured writes its rows without the rating table's index by player unless
# ``--online`` (``LADDER_EXCLUSIVE_REPLAY_PERIODS``: a replay of at least this many periods).
EXCLUSIVE = "24"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of players and games")
    parser.add_argument("--months", type=int, default=MONTHS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor", type=Path, default=FLOOR, help="path of floor.py")
    parser.add_argument(
        "--online",
        action="store_true",
        help="replay as by default, readers never waiting (else its rows are written without "
        f"the rating table's index by player, LADDER_EXCLUSIVE_REPLAY_PERIODS={EXCLUSIVE})",
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("which", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    server_url = use_scratch_database(DATABASE, "bench_history.sqlite3")
    if args.measure:
        MEASURES[args.measure]()
        return
    recreate_database()
    started = time.perf_counter()
    sizes = build(args.scale, args.months, args.seed)
    games = sum(g for g, _ in sizes.values())
    print(f"database: {engine_name()}")
    print(f"built {round(PLAYERS * args.scale):,} players and {games:,} games in "
          f"{args.months} monthly periods in {time.perf_counter() - started:.1f} s")  # fmt: skip
    print("\n== full replay of the three lists from the first period")
    # A federation replaying its whole history does it when readers may wait: the rows written
    # without the index by player, built again at the end (docs/configuration.md).
    exclusive = os.environ.get("LADDER_EXCLUSIVE_REPLAY_PERIODS") or EXCLUSIVE
    if args.online:
        exclusive = "0"
    locked = " (the rating table locked while it replays)" if exclusive != "0" else ""
    print(f"LADDER_EXCLUSIVE_REPLAY_PERIODS={exclusive}{locked}")
    with mock.patch.dict(os.environ, LADDER_EXCLUSIVE_REPLAY_PERIODS=exclusive):
        history = run_measure(__file__, "history")
    print("\n== one result of the first period corrected (correct_game, its rating run)")
    old = run_measure(__file__, "correction", "first")
    print("\n== one result of the latest period corrected (correct_game, its rating run)")
    latest = run_measure(__file__, "correction", "latest")
    floor = run_floor(args.floor, server_url, sizes)
    peak = max(m["peak_mib"] for m in (history, old, latest))
    print()
    print(
        f"full replay: {history['seconds']:.2f} s, peak {history['peak_mib']:.0f} MiB; "
        + (f"floor {floor:.2f} s" if floor else "floor not measured (needs PostgreSQL)")
    )
    print(f"correction ten years back: {old['seconds']:.2f} s, peak {old['peak_mib']:.0f} MiB "
          f"({old['seconds'] / latest['seconds']:.1f}x the latest period's)")  # fmt: skip
    print(f"correction in the latest period: {latest['seconds']:.2f} s, "
          f"peak {latest['peak_mib']:.0f} MiB")  # fmt: skip
    ratio = f"{history['seconds'] / floor:.2f}" if floor else "n/a"
    print(f"history_ratio_to_floor={ratio} correction_10y_s={old['seconds']:.2f} "
          f"latest_s={latest['seconds']:.2f} peak_mib={peak:.0f}")  # fmt: skip


def months(count: int) -> list[tuple[str, date, date]]:
    """The monthly periods from FIRST on: label, first and last day."""
    found, start = [], FIRST
    for _ in range(count):
        following = (start + timedelta(days=32)).replace(day=1)
        found.append((start.strftime("%Y-%m"), start, following - timedelta(days=1)))
        start = following
    return found


def build(scale: float, count: int, seed: int) -> dict[tuple[int, str], tuple[int, int]]:
    """Build the federation; return each period's (index, list) games and players."""
    import django

    django.setup()
    from django.db import transaction
    from django.utils import timezone

    from ladder.records import RatingPeriod

    rng = np.random.default_rng(seed)
    n = max(50, round(PLAYERS * scale))
    now = timezone.now()
    newcomer = rng.random(n) < NEWCOMERS
    joins = np.where(newcomer, rng.integers(1, count, n), 0)
    leaves = np.where(rng.random(n) < LEAVING, joins + 1 + rng.integers(0, count, n), count)
    leaves = np.minimum(leaves, count)
    plays = {name: rng.random(n) < share for name, share in PLAYS.items()}
    plays["standard"] |= ~(plays["rapid"] | plays["blitz"])
    with transaction.atomic():
        _skip_foreign_key_checks()
        ids = _players(rng, n, newcomer, plays, now)
        periods = RatingPeriod.objects.bulk_create(
            RatingPeriod(label=label, start=start, end=end) for label, start, end in months(count)
        )
        sizes = {}
        for index, period in enumerate(periods):
            here = (joins <= index) & (index < leaves)
            for name, (per_month, control) in LISTS.items():
                games = max(1, round(per_month * scale))
                pool = ids[here & plays[name]]
                if len(pool) < 2:
                    continue
                active = rng.choice(pool, min(len(pool), max(2, 2 * games // GAMES_A_PLAYER)),
                                    replace=False)  # fmt: skip
                white_at = rng.integers(0, len(active), games)
                black_at = (white_at + rng.integers(1, len(active), games)) % len(active)
                white, black = active[white_at], active[black_at]
                sizes[index, name] = (games, len(np.union1d(white, black)))
                insert_games(_games(rng, period, name, control, white, black, now))
    analyze()
    return sizes


def _skip_foreign_key_checks() -> None:
    """For the load's transaction, no foreign-key check a row (PostgreSQL, as a superuser):
    the generated rows name only players and periods just made, and Django's deferred checks
    of 2.5 million games took minutes at the commit."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        row = cursor.fetchone()
        if row and row[0]:
            cursor.execute("SET LOCAL session_replication_role = replica")


def _players(rng, n: int, newcomer: np.ndarray, plays: dict[str, np.ndarray], now) -> np.ndarray:
    """COPY ``n`` players in, their derived fields as their entry data leave them; their ids."""
    from ladder.records import LIST_FIELDS, Player
    from ladder.records.names import search_key

    columns = ["name", "search_key", "fide_id", "birth_year", "sex", "federation", "title",
               "national_federation", "national_id", "created", "updated"]  # fmt: skip
    names = [f"History Player {k:06d}" for k in range(n)]
    values: list[list] = [
        names,
        [search_key(name) for name in names],
        (20_000_000 + np.arange(n)).tolist(),
        rng.integers(1940, 2016, n).tolist(),
        [""] * n,
        ["ENG"] * n,
        [""] * n,
        [""] * n,
        [""] * n,
        [now] * n,
        [now] * n,
    ]
    for name, fields in LIST_FIELDS.items():
        rated = ~newcomer & plays[name] & (rng.random(n) < 0.95)
        rating = np.clip(rng.normal(1750, 250, n).round(), 1400, 2750).astype(int)
        games = rng.choice([0, 5, 20, 40, 200, 1000], n)
        peak = np.minimum(3500, rating + rng.integers(0, 150, n))
        entry = [int(r) if ok else None for r, ok in zip(rating.tolist(), rated, strict=True)]
        peaks = [int(p) if ok else None for p, ok in zip(peak.tolist(), rated, strict=True)]
        played = np.where(rated, games, 0).tolist()
        columns += [fields.entry_rating, fields.entry_rated_games, fields.entry_peak_rating,
                    fields.rating, fields.rated_games, fields.peak_rating]  # fmt: skip
        values += [entry, played, peaks, entry, played, peaks]
    copy_rows(Player._meta.db_table, columns, zip(*values, strict=True))
    return np.array(sorted(Player.objects.values_list("pk", flat=True)))


def _games(rng, period, name: str, control: str, white, black, now):
    """The game rows (``bench_data.GAME_COLUMNS``) of one period and list."""
    count = len(white)
    days = [period.start + timedelta(days=d) for d in range(period.end.day)]
    day = rng.integers(0, len(days), count).tolist()
    result = rng.integers(0, len(RESULTS), count).tolist()
    event = (rng.integers(0, max(1, count // EVENT_GAMES), count)).tolist()
    prefix = f"{period.label} {name} open"
    for w, b, d, r, e in zip(white.tolist(), black.tolist(), day, result, event, strict=True):
        yield (period.pk, days[d], w, b, RESULTS[r], f"{prefix} {e}", "", now, now, name,
               control)  # fmt: skip


def run_floor(path: Path, server_url: str, sizes: dict) -> float | None:
    """The floor script's steps timed for each period and list, summed; None on SQLite.

    floor.py's own ``main`` runs (its load, then the timed read, compute and write) with its
    GAMES and PLAYERS set to the period's games on the list and the players who played them,
    in a database of its own (its load ends with an ANALYZE of the whole database).
    """
    if not server_url.startswith(("postgres://", "postgresql://")):
        print("\n== I/O floor: skipped (floor.py needs PostgreSQL)")
        return None
    os.environ["DATABASE_URL"] = scratch_db.url_for(FLOOR_DATABASE, "unused.sqlite3")
    scratch_db.recreate(os.environ["DATABASE_URL"])
    spec = importlib.util.spec_from_file_location("floor", path)
    assert spec is not None
    assert spec.loader is not None
    floor = importlib.util.module_from_spec(spec)
    sys.argv, argv = [str(path)], sys.argv  # floor.py reads its sizes from argv on import
    try:
        spec.loader.exec_module(floor)
    finally:
        sys.argv = argv
    floor.DSN = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    total = 0.0
    print(f"\n== I/O floor ({path}), each period and list")
    for (_, _name), (games, players) in sorted(sizes.items()):
        floor.GAMES, floor.PLAYERS = games, players
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            floor.main()
        total += float(out.getvalue().split()[-1].removeprefix("floor_seconds="))
    scratch_db.recreate(os.environ["DATABASE_URL"])  # leave it empty
    games = sum(g for g, _ in sizes.values())
    print(f"{len(sizes)} periods and lists, {games:,} games: read, compute and write summed")
    print(f"floor_seconds={total:.2f}")
    return total


def measure_history() -> None:
    """The full replay of the three lists from the first period, one pass."""
    import django

    django.setup()
    from ladder.records import RatingList, RatingPeriod
    from ratings.recompute import services

    first = RatingPeriod.objects.order_by("start").first()

    def replay():
        done = services.recompute_lists(first, rating_lists=RatingList.values)
        return services.Recompute(
            periods=next(iter(done.values())).periods,
            rows=sum(r.rows for r in done.values()),
            players_changed=sum(r.players_changed for r in done.values()),
        )

    measured("full replay of the three lists", replay)


def measure_correction() -> None:
    """Correct one standard result of the first or the latest period through the write path;
    its rating run executes at the commit, in this process, and is part of the time."""
    import django

    django.setup()
    from ladder.records import Game, RatingPeriod
    from ladder.writes import actions
    from ratings.models import RatingRun, RunStatus

    which = sys.argv[-1]
    periods = RatingPeriod.objects.order_by("start" if which == "first" else "-start")
    period = periods.first()
    game = Game.objects.filter(period=period, rating_list="standard", result="1-0").first()
    assert game is not None
    runs = RatingRun.objects.count()
    measured(
        f"game {game.pk} of {period.label} corrected 1-0 to 0-1",
        lambda: actions.correct_game(game=game, changes={"result": "0-1"}),
    )
    run = RatingRun.objects.order_by("-pk").first()
    assert RatingRun.objects.count() > runs, "no rating run was made"
    assert run is not None
    assert run.status == RunStatus.DONE, f"its rating run is {run.status}, not done"
    print(f"its rating run: {run.status}, players {run.players}")


MEASURES = {"history": measure_history, "correction": measure_correction}


if __name__ == "__main__":
    main()
