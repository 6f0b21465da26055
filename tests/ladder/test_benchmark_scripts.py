"""The benchmark scripts still build their federations and measure against today's models.

Each runs at a tiny size on SQLite (its own file, as a newcomer's ``make bench`` would): a column
made NOT NULL, a field renamed or a changed action breaks the COPY or the run here, not on the
day someone needs the figures (``make bench-history`` failed for a month on a new NOT NULL
column of the players).
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(script: str, *args: str) -> list[str]:
    env = {**os.environ, "DATABASE_URL": "", "DJANGO_SETTINGS_MODULE": "ladder.settings_local"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_bench_history_builds_replays_and_corrects_a_small_federation():
    lines = run("bench_history.py", "--scale", "0.0005", "--months", "4")

    assert any(line.startswith("built 250 players and ") for line in lines)
    assert any(line.startswith("its rating run: done") for line in lines)
    last = dict(pair.split("=") for pair in lines[-1].split())
    assert set(last) == {"history_ratio_to_floor", "correction_10y_s", "latest_s", "peak_mib"}
    assert last["history_ratio_to_floor"] == "n/a"  # the floor needs PostgreSQL
    assert float(last["peak_mib"]) > 0


def test_bench_recomputes_a_small_federation():
    lines = run("bench.py", "--players", "300", "--games", "2000", "--no-spanning")

    assert any(line.startswith("rows written: 300 rating changes") for line in lines)
    assert lines[-1] == "ratio_to_floor=n/a"
