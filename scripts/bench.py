#!/usr/bin/env python
"""Benchmark the recompute of a synthetic federation against the I/O floor of the same period.

    make bench                                   # SQLite file bench.sqlite3, default sizes
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x make bench
    make bench BENCH_ARGS="--players 10000 --games 100000"

The benchmark never touches your data: on PostgreSQL it works in its own database
(``ladder_bench`` on the server of DATABASE_URL, dropped and created afresh), on SQLite in the
file ``bench.sqlite3``. It builds the federation (players with a history mix: rated, unrated,
juniors, 2400+ peaks) and prints, each measured in a fresh process (wall time, queries, peak
memory of that process):

1. the full recompute of the first period just after the bulk load (it writes every row and
   every player's derived fields), then the same recompute again (a full recompute rewrites
   every row again, but no player's fields change);
2. the I/O floor of the same sizes (``../shared/bench/floor.py``: read, numpy, COPY, nothing
   else) on the same server, and the ratio of the first recompute to it; on PostgreSQL the
   first recompute (after a reset to the bulk load's state) and the floor are taken in turns
   ``--rounds`` times (3), and the ratio printed is the median of the rounds';
3. the federation case: two more periods of the same size, a full recompute of the three,
   then one result of the first corrected and ``recompute_from(first, players=...)``.

The last line is ``ratio_to_floor=<x.xx>`` (``n/a`` on SQLite: the floor needs PostgreSQL).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script
from bench_data import (  # noqa: E402 - beside this script
    DERIVED_FROM_ENTRY,
    FLOOR,
    RESULTS,
    analyze,
    engine_name,
    insert_games,
    measured,
    recreate_database,
    use_scratch_database,
    vacuum_players,
)
from bench_data import run_measure as run_script_measure  # noqa: E402

PERIODS = [
    ("2026-01", date(2026, 1, 1), date(2026, 1, 31)),
    ("2026-02", date(2026, 2, 1), date(2026, 2, 28)),
    ("2026-03", date(2026, 3, 1), date(2026, 3, 31)),
]
PERIOD = PERIODS[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000, help="games per period")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor", type=Path, default=FLOOR, help="path of floor.py")
    parser.add_argument("--no-federation", action="store_true", help="skip the 3-period case")
    parser.add_argument("--no-lists", action="store_true", help="skip the three-lists case")
    parser.add_argument(
        "--no-spanning", action="store_true", help="skip the tournaments that span two periods"
    )
    parser.add_argument(
        "--rounds", type=int, default=3,
        help="first recomputes and floors taken in turns (PostgreSQL); the ratio is the median",
    )  # fmt: skip
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    server_url = use_scratch_database("ladder_bench", "bench.sqlite3")
    if args.measure:
        MEASURES[args.measure]()
        return
    recreate_database()
    started = time.perf_counter()
    build(args.players, args.games, args.seed)
    print(f"database: {engine_name()}")
    print(f"built {args.players:,} players and {args.games:,} games in one period "
          f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
    print("\n== full recompute of one period, first after the bulk load (writes every row)")
    firsts = [run_measure("first")]
    print("\n== the same full recompute again (rewrites every row; no player's fields change)")
    again = run_measure("first")
    floors = [run_floor(args, server_url)]
    # The machine's speed moves from one minute to the next (the floor alone measured 0.90 and
    # 1.45 s in two runs of an hour): the first recompute and the floor are taken in turns,
    # each round from the state the bulk load left, and the ratio is the rounds' median.
    for round_ in range(2, args.rounds + 1 if floors[0] else 0):
        print(f"\n== round {round_} of {args.rounds}: the first recompute after a reset, the floor")
        reset_first()
        firsts.append(run_measure("first"))
        floors.append(run_floor(args, server_url))
    first = statistics.median(firsts)
    floor = statistics.median(floors) if floors[0] else None
    ratio = statistics.median(f / fl for f, fl in zip(firsts, floors, strict=True)) if floor else 0
    spanning = None if args.no_spanning else spanning_tournaments(args.seed)
    if not args.no_lists:
        lists(first, args.games, args.seed)
    if not args.no_federation:
        federation(args)
    print()
    print(
        f"full recompute (first): {first:.2f} s; I/O floor: "
        + (f"{floor:.2f} s" if floor else "not measured (needs PostgreSQL)")
    )
    if spanning is not None:
        print(f"full recompute with 10% of the games in tournaments that started the month "
              f"before: {spanning:.2f} s ({spanning / again:.2f}x the same recompute without "
              f"them, {again:.2f} s)"
              + (f"; spanning_ratio_to_floor={spanning / floor:.2f}" if floor else ""))  # fmt: skip
    if len(firsts) > 1:
        print(f"rounds: first recompute {_seconds(firsts)}; floor {_seconds(floors)}; "
              f"ratio {', '.join(f'{f / fl:.2f}' for f, fl in zip(firsts, floors, strict=True))}"
              " (medians above and below)")  # fmt: skip
    print(f"ratio_to_floor={ratio:.2f}" if floor else "ratio_to_floor=n/a")


def _seconds(values: list[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values) + " s"


def reset_first() -> None:
    """Put the federation back as the bulk load left it (PostgreSQL: the rounds run only
    beside the floor): the rating table empty, as TRUNCATE leaves it, and every player's
    derived fields from their entry data."""
    import django

    django.setup()
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("TRUNCATE ratings_ratingchange")
        cursor.execute(f"UPDATE ladder_player SET {DERIVED_FROM_ENTRY}")
    vacuum_players()


def run_measure(name: str) -> float:
    """Run one measurement in a fresh process (``bench_data.run_measure``); its wall time."""
    return run_script_measure(__file__, name)["seconds"]


def run_floor(args, server_url: str) -> float | None:
    """Time the I/O floor of the same sizes on the same server; None on SQLite."""
    if not server_url.startswith(("postgres://", "postgresql://")):
        print("\n== I/O floor: skipped (floor.py needs PostgreSQL)")
        return None
    print(f"\n== I/O floor ({args.floor})")
    out = subprocess.run(
        [sys.executable, str(args.floor), str(args.games), str(args.players)],
        check=True, capture_output=True, text=True,
        env={**os.environ, "DATABASE_URL": scratch_db.url_for("ladder_bench", "bench.sqlite3")},
    ).stdout  # fmt: skip
    print(out, end="")
    return float(out.strip().splitlines()[-1].removeprefix("floor_seconds="))


def spanning_tournaments(seed: int) -> float:
    """Put a tenth of the first period's games in 200 tournaments that started on the last day
    of the month before (FIDE.md 10.1: rated with the list in force then), rate the period
    again, and put them back; return the recompute's wall time."""
    import django

    django.setup()
    from django.db import connection, transaction

    from ladder.records import RatingPeriod, Tournament

    period = RatingPeriod.objects.get(label=PERIOD[0])
    start = date.fromordinal(period.start.toordinal() - 1)
    with transaction.atomic():
        made = Tournament.objects.bulk_create(
            Tournament(name=f"Bench Open {n}", start=start, end=period.end, rated_in=period)
            for n in range(200)
        )
        with connection.cursor() as cursor:
            # Every tenth game, spread over the tournaments by its id.
            for n, tournament in enumerate(made):
                cursor.execute(
                    "UPDATE ladder_game SET tournament_id = %s WHERE period_id = %s "
                    "AND id %% 10 = 0 AND id %% 2000 = %s",
                    [tournament.pk, period.pk, 10 * n],
                )
    analyze()
    print("\n== the same period with 10% of its games in tournaments started the month before")
    spanning = run_measure("first")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE ladder_game SET tournament_id = NULL WHERE period_id = %s",
                       [period.pk])  # fmt: skip
        Tournament.objects.filter(pk__in=[t.pk for t in made]).delete()
    run_measure("first")  # rated as before again, for the steps after this one
    return spanning


def federation(args) -> None:
    started = time.perf_counter()
    extend(args.players, args.games, args.seed)
    print(f"\n== federation: 2 more periods of {args.games:,} games built in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    print("-- full recompute of the 3 periods")
    full = run_measure("federation")
    print("-- one result of 2026-01 corrected, recompute_from(2026-01, players={white, black})")
    one = run_measure("correction")
    print(f"-- correction {one:.2f} s against the full recompute's {full:.2f} s")


def lists(one_list: float, games: int, seed: int) -> None:
    """The first period's games split over the three lists, every player on each, rated anew;
    then as many games in a period of their own where each player keeps to one list."""
    split_over_lists(True)
    print(f"\n== the same {games:,} games split over standard, rapid and blitz "
          "(every player plays on each)")  # fmt: skip
    three = run_measure("lists")
    split_over_lists(False)  # back to one list for what follows
    print(f"-- one list {one_list:.2f} s; three lists {three:.2f} s "
          f"({three / one_list:.2f}x)")  # fmt: skip
    started = time.perf_counter()
    grouped(seed, games, build=True)
    print(f"\n== {games:,} games over the three lists, each player keeping to one (half on "
          f"standard, a quarter each on rapid and blitz), built in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    kept = run_measure("grouped")
    on_one_list(GROUPED[0])
    print(f"\n== the same {games:,} games of {GROUPED[0]}, all on the standard list")
    same = run_measure("grouped_one")
    grouped(seed, games, build=False)  # gone again before the federation case
    print(
        f"-- {GROUPED[0]}: one list {same:.2f} s; three lists, each player on one "
        f"{kept:.2f} s ({kept / same:.2f}x the same games on one list)"
    )
    print(f"-- against the first period's one list {one_list:.2f} s: each player on one "
          f"{kept / one_list:.2f}x, every player on each {three:.2f} s "
          f"({three / one_list:.2f}x)")  # fmt: skip


def on_one_list(label: str) -> None:
    """Put every game of the period ``label`` on the standard list and forget its rows, so
    that the same games are rated on one list as they were on three, from nothing."""
    import django

    django.setup()
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT id FROM ladder_ratingperiod WHERE label = %s", [label])
        (period,) = cursor.fetchone()
        cursor.execute("UPDATE ladder_game SET rating_list = 'standard' WHERE period_id = %s",
                       [period])  # fmt: skip
        cursor.execute("DELETE FROM ratings_ratingchange WHERE period_id = %s", [period])
        # Every player's fields back to their entry data, as before the three-list run: the
        # one-list run then writes every player's fields too, not only those it changes.
        cursor.execute(f"UPDATE ladder_player SET {DERIVED_FROM_ENTRY}")
    vacuum_players()


GROUPED = ("2026-06", date(2026, 6, 1), date(2026, 6, 30))


def grouped(seed: int, games: int, *, build: bool) -> None:
    """Add (or take away) a period whose players each play on one list only."""
    import django

    django.setup()
    from django.db import connection, transaction

    from ladder.records import Player, RatingPeriod
    from ratings.models import RatingChange

    if not build:
        with transaction.atomic(), connection.cursor() as cursor:
            period = RatingPeriod.objects.get(label=GROUPED[0])
            RatingChange.objects.filter(period=period).delete()
            cursor.execute("DELETE FROM ladder_game WHERE period_id = %s", [period.pk])
            period.delete()
        analyze()
        return
    rng = random.Random(seed + 7)
    ids = list(Player.objects.values_list("pk", flat=True))
    groups: dict[str, list[int]] = {"standard": [], "rapid": [], "blitz": []}
    for pk in ids:
        groups[rng.choices(list(groups), weights=(2, 1, 1))[0]].append(pk)
    entry = ", ".join(
        f"{prefix}entry_{name} = entry_{name}"
        for prefix in ("rapid_", "blitz_")
        for name in ("rating", "rated_games", "peak_rating")
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE ladder_player SET {entry}")
        period = RatingPeriod.objects.create(label=GROUPED[0], start=GROUPED[1], end=GROUPED[2])
        now = django.utils.timezone.now()
        controls = {"standard": "90+30", "rapid": "15+10", "blitz": "3+2"}
        names = list(groups)

        def rows():
            for _ in range(games):
                name = rng.choices(names, weights=(2, 1, 1))[0]
                white, black = rng.sample(groups[name], 2)
                day = GROUPED[1].replace(day=rng.randint(1, 30))
                yield (period.pk, day, white, black, rng.choice(RESULTS), "League", "", now,
                       now, name, controls[name])  # fmt: skip

        insert_games(rows())
    vacuum_players()  # the players' table as the one-list run will find it (on_one_list)


def split_over_lists(split: bool) -> None:
    """Put a third of the period's games on each list (or all back on the standard list), give
    every player the same entry data on each list, and forget every rating (so each list is
    rated first after a load)."""
    import django

    django.setup()
    from django.db import connection, transaction

    lists = (
        "CASE id % 3 WHEN 1 THEN 'rapid' WHEN 2 THEN 'blitz' ELSE 'standard' END"
        if split
        else "'standard'"
    )
    entry = ", ".join(
        f"{prefix}entry_{name} = entry_{name}"
        for prefix in ("rapid_", "blitz_")
        for name in ("rating", "rated_games", "peak_rating")
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE ladder_game SET rating_list = {lists}")
        cursor.execute(f"UPDATE ladder_player SET {entry}")
        cursor.execute(f"UPDATE ladder_player SET {DERIVED_FROM_ENTRY}")
        cursor.execute("DELETE FROM ratings_ratingchange")
    vacuum_players()


def build(players: int, games: int, seed: int) -> None:
    from django.db import transaction

    from ladder.records import Player

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
        ids = list(Player.objects.values_list("pk", flat=True))
        _load_period(PERIOD, rng, ids, games)
    analyze()


def extend(players: int, games: int, seed: int) -> None:
    """Add the federation's next two periods, of the same size, to the built one."""
    from django.db import transaction

    from ladder.records import Player

    rng = random.Random(seed + 1)
    with transaction.atomic():
        ids = list(Player.objects.values_list("pk", flat=True))
        for period in PERIODS[1:]:
            _load_period(period, rng, ids, games)
    analyze()


def _load_period(spec, rng, ids, games: int) -> None:

    from ladder.records import RatingPeriod

    label, start, end = spec
    period = RatingPeriod.objects.create(label=label, start=start, end=end)
    insert_games(_games(rng, ids, games, period))


def _games(rng, ids, count, period):
    from django.utils import timezone

    now = timezone.now()
    events = ["", "Winter Open", "League", "Rapidplay"]
    for _ in range(count):
        white, black = rng.sample(ids, 2)
        day = period.start.replace(day=rng.randint(1, period.end.day))
        yield (period.pk, day, white, black, rng.choice(RESULTS), rng.choice(events), "", now,
               now, "standard", "")  # fmt: skip


def _setup():
    import django

    django.setup()
    from ladder.records import RatingPeriod
    from ratings.recompute import services

    return RatingPeriod.objects.get(label=PERIOD[0]), services


def measure_first() -> None:
    period, services = _setup()
    measured(f"full recompute of {PERIOD[0]}", lambda: services.recompute_from(period))


def measure_federation() -> None:
    period, services = _setup()
    measured("full recompute of the 3 periods", lambda: services.recompute_from(period))


def measure_correction() -> None:
    """Correct one result of the first period (three periods back), then rate what it reaches."""
    period, services = _setup()
    from ladder.records import Game

    game = Game.objects.filter(period=period, result="1-0").order_by("pk").first()
    Game.objects.filter(pk=game.pk).update(result="0-1")  # no signal: the bench runs it below
    measured(
        f"result of game {game.pk} corrected 1-0 to 0-1",
        lambda: services.recompute_from(period, players={game.white_id, game.black_id}),
    )


def _all_three(period):
    """A full recompute of the three lists from ``period`` in one pass, as a rating run of
    recompute_ratings does, summed into one summary."""
    from ladder.records import RatingList
    from ratings.recompute import services

    done = services.recompute_lists(period, rating_lists=RatingList.values).values()
    return services.Recompute(
        periods=next(iter(done)).periods,
        rows=sum(r.rows for r in done),
        players_changed=sum(r.players_changed for r in done),
    )


def measure_lists() -> None:
    period, _ = _setup()
    measured(f"full recompute of the 3 lists of {PERIOD[0]}", lambda: _all_three(period))


def measure_grouped() -> None:
    """The three lists of a period whose players each keep to one list."""
    import django

    django.setup()
    from ladder.records import RatingPeriod

    period = RatingPeriod.objects.get(label=GROUPED[0])
    measured(f"full recompute of the 3 lists of {GROUPED[0]}", lambda: _all_three(period))


def measure_grouped_one() -> None:
    """The same period's games, all on the standard list (``on_one_list``)."""
    import django

    django.setup()
    from ladder.records import RatingList, RatingPeriod
    from ratings.recompute import services

    period = RatingPeriod.objects.get(label=GROUPED[0])
    measured(
        f"full recompute of the standard list of {GROUPED[0]}",
        lambda: services.recompute_lists(period, rating_lists=[RatingList.STANDARD])["standard"],
    )


MEASURES = {
    "grouped": measure_grouped,
    "grouped_one": measure_grouped_one,
    "lists": measure_lists,
    "first": measure_first,
    "federation": measure_federation,
    "correction": measure_correction,
}


if __name__ == "__main__":
    main()
