#!/usr/bin/env python
"""Time the import of FIDE's whole combined list: about 1.93 million lines, 317 MB.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python scripts/bench_fide_list.py [--lines 1930000] [--club 2000] [--file PATH]
        [--database NAME]

Generates a combined TXT (``players_list_foa.txt``) of the real shape -- FIDE's header, 162
characters a line and CRLF, three in five players unrated on every list, a few titles longer
than their column -- unless ``--file`` names one, then imports it with ``manage.py
import_fide_list --federation NOR`` into a database of its own (``bench_fide_list`` on
DATABASE_URL's PostgreSQL server, else a SQLite file), whose club holds ``--club`` players on
the list, every tenth with a name, federation or title FIDE corrects. Develop with
``--lines 100000``. The line before the last gives the CPU seconds of this process and of the
database server's process for the connection (the machine may be shared: judge the wall time
by them and the load average). The last line is ``seconds=<x> peak_mib=<y>``: the import's
wall time and this process's peak resident memory (the target: 60 s and 1 GiB on two cores).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  "
    "WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
FEDERATIONS = ("IND", "GER", "FRA", "ESP", "RUS", "USA", "ITA", "POL", "TUR", "IRI", "ENG")
SURNAMES = (
    "Hansen",
    "Johansen",
    "Olsen",
    "Larsen",
    "Andersen",
    "Pedersen",
    "Nilsen",
    "Kumar",
    "Singh",
    "Muller",
    "Schmidt",
    "Garcia",
    "Martin",
    "Rossi",
    "Nowak",
    "Yilmaz",
)
GIVEN = ("Ola", "Kari", "Magnus", "Anna", "Arjun", "Priya", "Jonas", "Lena", "Pablo", "Marie")
TITLES = ("", "", "", "", "", "", "", "", "", "CM", "FM", "IM", "GM")


def generate(path: Path, lines: int, seed: int) -> None:
    """A combined list of ``lines`` players, written 20,000 lines at a time."""
    rng = random.Random(seed)
    with path.open("w", encoding="ascii", newline="") as out:
        out.write(HEADER + "\r\n")
        batch = []
        for n in range(lines):
            fide_id = 1_000_000 + n * 7
            name = f"{rng.choice(SURNAMES)}{n % 997}, {rng.choice(GIVEN)}"
            sex = "F" if n % 3 == 0 else "M"
            title = rng.choice(TITLES)
            other = "SI,FI,LSI,SLI,NA" if n % 600_000 == 5 else ("FA" if n % 50 == 0 else "")
            foa = "AFM" if n % 400 == 0 else ""
            ratings = []
            for _ in range(3):
                if rng.random() < 0.6:
                    ratings.append((0, 0, 0))
                else:
                    ratings.append(
                        (rng.randint(1400, 2800), rng.randint(0, 12), rng.choice((40, 20, 10)))
                    )
            federation = "NOR" if n % 97 == 0 else FEDERATIONS[n % len(FEDERATIONS)]
            flag = ("w" if sex == "F" else "") + ("i" if n % 4 == 0 else "")
            line = (
                f"{fide_id:<15}{name:<61}{federation:<4}{sex:<4}"
                f"{title:<5}{'':<5}{other:<15}{foa:<4}"
                + "".join(f"{r:<6}{g:<4}{k:<3}" for r, g, k in ratings)
                + f"{rng.randint(1930, 2020):<6}{flag:<4}"
            )
            batch.append(line)
            if len(batch) == 20_000:
                out.write("\r\n".join(batch) + "\r\n")
                batch = []
        if batch:
            out.write("\r\n".join(batch) + "\r\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--lines", type=int, default=1_930_000)
    parser.add_argument("--club", type=int, default=2000, help="club players on the list")
    parser.add_argument(
        "--file", help="import this list (generated there first, and kept, if it is missing)"
    )
    parser.add_argument(
        "--database", default="bench_fide_list", help="the scratch database's name (PostgreSQL)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--add", default="NOR", help="--federation of the import ('': none)")
    options = parser.parse_args()
    options.args = ["--federation", options.add] if options.add else []

    import scratch_db

    url = scratch_db.url_for(options.database, "bench_fide_list.sqlite3")
    scratch_db.recreate(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    import django

    django.setup()
    from django.core.management import call_command

    from ladder.records import Player

    call_command("migrate", verbosity=0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(options.file) if options.file else Path(folder) / "players_list_foa.txt"
        if not path.exists():
            started = time.perf_counter()
            generate(path, options.lines, options.seed)
            size = path.stat().st_size / 2**20
            print(
                f"generated {options.lines:,} lines, {size:.0f} MiB, in "
                f"{time.perf_counter() - started:.1f} s"
            )
        step = max(1, options.lines // max(1, options.club))
        Player.objects.bulk_create(
            Player(
                name=f"Club player {n}" if n % 10 == 0 else f"Placeholder{n}",
                fide_id=1_000_000 + n * step * 7,
                federation="ENG" if n % 10 == 1 else "",
            )
            for n in range(min(options.club, options.lines))
        )
        server = _server_cpu()
        own = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        call_command(
            "import_fide_list", str(path), "--month", "2026-10", *options.args, stdout=io.StringIO()
        )
        seconds = time.perf_counter() - started
        done = resource.getrusage(resource.RUSAGE_SELF)
        server = _server_cpu() - server
    load = os.getloadavg()
    from ladder.records import FideListEntry

    print(f"stored {FideListEntry.objects.count():,} rows; club {Player.objects.count():,}")
    print(
        f"cpu: this process user {done.ru_utime - own.ru_utime:.1f} s + sys "
        f"{done.ru_stime - own.ru_stime:.1f} s; the database server's process "
        f"{server:.1f} s (user + sys); load average after {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"seconds={seconds:.1f} peak_mib={peak:.0f}")


def _server_cpu() -> float:
    """The user + sys CPU seconds of this connection's PostgreSQL backend so far (read from
    /proc: the server runs on this machine); 0 elsewhere."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
