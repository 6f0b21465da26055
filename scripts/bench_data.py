"""What the recompute benchmarks share: the scratch database, the bulk loads and the measuring.

``scripts/bench.py`` (one big period) and ``scripts/bench_history.py`` (ten years of monthly
periods) build their federations with these: games and players go in with COPY on PostgreSQL,
each measurement runs in a fresh process of the calling script (``run_measure``) and prints its
wall time, queries and peak memory (``measured``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import scratch_db

ROOT = Path(__file__).resolve().parent.parent
# The shared floor script: ``shared/bench/floor.py`` beside the project (or beside a folder of
# worktrees holding it).
FLOOR = next(
    (
        place / "shared" / "bench" / "floor.py"
        for place in ROOT.parents
        if (place / "shared" / "bench" / "floor.py").exists()
    ),
    ROOT.parent / "shared" / "bench" / "floor.py",
)

# A federation's mix of results: decisive games, draws, a forfeit, a double forfeit.
RESULTS = ["1-0"] * 38 + ["0-1"] * 32 + ["1/2-1/2"] * 28 + ["+/-", "0-0"]

GAME_COLUMNS = (
    "period_id, date, white_id, black_id, result, event, round, created, updated, "
    "rating_list, time_control"
)

# Every list's derived fields as a player's entry data leaves them (no rating run yet).
DERIVED_FROM_ENTRY = ", ".join(
    f"{prefix}rating = {prefix}entry_rating, {prefix}rated_games = {prefix}entry_rated_games, "
    f"{prefix}peak_rating = coalesce({prefix}entry_peak_rating, {prefix}entry_rating), "
    f"{prefix}last_rated_on = NULL, {prefix}last_change = NULL"
    for prefix in ("", "rapid_", "blitz_")
)


def use_scratch_database(name: str, sqlite_file: str) -> str:
    """Point DATABASE_URL at the script's own database (``scratch_db``); return the server's
    URL as the caller gave it (the floor runs on the same server)."""
    server_url = os.environ.get("DATABASE_URL", "")
    os.environ["DATABASE_URL"] = scratch_db.url_for(name, sqlite_file)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    return server_url


def recreate_database() -> None:
    """Drop and make the scratch database again, then migrate it."""
    scratch_db.recreate(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def engine_name() -> str:
    """The database's vendor and name, for the report."""
    import django

    django.setup()
    from django.db import connection

    return f"{connection.vendor} ({connection.settings_dict['NAME']})"


def insert_games(rows: Iterable[Sequence[Any]]) -> None:
    """Insert game rows (``GAME_COLUMNS`` order): COPY on PostgreSQL."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with (
            connection.cursor() as cursor,
            cursor.copy(f"COPY ladder_game ({GAME_COLUMNS}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO ladder_game ({GAME_COLUMNS}) VALUES ({', '.join(['%s'] * 11)})", rows
        )


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Insert rows into ``table``: COPY on PostgreSQL, one executemany elsewhere."""
    from django.db import connection

    names = ", ".join(columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)


def analyze() -> None:
    """VACUUM ANALYZE on PostgreSQL, as after any bulk load."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def vacuum_players() -> None:
    """Rewrite the players' table (as a fresh load leaves it), then VACUUM ANALYZE."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM FULL ANALYZE ladder_player")
            cursor.execute("VACUUM ANALYZE")


def checkpoint() -> None:
    """CHECKPOINT on PostgreSQL (a superuser's right: skipped, with a word, without it)."""
    import django

    django.setup()
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("CHECKPOINT")
    except DatabaseError as error:
        print(f"(no CHECKPOINT before the measurement: {error})".strip())


def run_measure(script: str, name: str, *args: str) -> dict[str, float]:
    """Run the measurement ``name`` of ``script`` in a fresh process (``--measure name``) and
    echo what it prints; return its wall time (``seconds``) and peak memory (``peak_mib``).

    The server first writes out what the previous steps left dirty (CHECKPOINT), so that a
    measurement does not pay for the bulk load or the measurement before it.
    """
    checkpoint()
    out = subprocess.run(
        [sys.executable, script, "--measure", name, *args],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    print(out, end="")
    return {
        "seconds": float(out.split("wall time: ")[1].split(" s")[0]),
        "peak_mib": float(out.split("peak memory: ")[1].split(" MiB")[0]),
    }


def measured(label: str, run: Callable[[], Any]) -> Any:
    """Run ``run()`` (a recompute), then print its wall time, queries and peak memory (the
    process's, from getrusage: what the operating system had to give it); return its result."""
    from django.db import connection

    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with connection.execute_wrapper(count):
        started, cpu = time.perf_counter(), time.process_time()
        summary = run()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{label}: {summary}")
    if hasattr(summary, "rows"):
        print(f"rows written: {summary.rows:,} rating changes")
    print(f"wall time: {elapsed:.2f} s")
    # The Python process's own CPU time (its threads included): the rest of the wall time is
    # waiting for the server (or, on a busy machine, for a core).
    print(f"cpu time of the process: {cpu:.2f} s")
    print(f"queries: {queries}")
    print(f"peak memory: {peak / 1024:.0f} MiB (process; {baseline / 1024:.0f} MiB before)")
    return summary
