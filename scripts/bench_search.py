#!/usr/bin/env python
"""Benchmark the name search of every door over a million players on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres make bench-search
    make bench-search BENCH_SEARCH_ARGS="--players 100000 --searches 200"

The benchmark works in its own database (``ladder_bench_search`` on the server of DATABASE_URL,
dropped and created afresh; a SQLite file ``bench_search.sqlite3`` without PostgreSQL, for a
smaller run). It writes ``--players`` players with COPY, names drawn from first and last names
of several countries (accented, Cyrillic and plain) and their search keys, builds the trigram
index, then times ``Player.objects.closest(text, limit=10)`` (what the pages and the admin's
autocomplete call) and the API's filter ``Player.objects.search(text)[:25]`` for a mix of
queries made from stored names: exact, a typo (a letter changed, dropped or two swapped),
the words reversed ("Last, First"), without accents, transliterated (Cyrillic typed in Latin).

It prints p50 and p95 per kind and overall; the last line is
``p50_ms=<x> p95_ms=<y> players=<n>``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script


def _words(text: str) -> list[str]:
    return text.split()


# Names as a federation's list has them: last names of two or three syllables drawn from about
# 4,000 (about a million distinct), Latin with some accented letters, a tenth wholly Cyrillic,
# first names from a list (the common ones more often).
ONSETS = ["", "b", "br", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n"]
ONSETS += ["p", "pr", "r", "s", "sch", "sh", "st", "t", "tr", "v", "w", "z", "ł", "ş", "ž"]
VOWELS = ["a", "e", "i", "o", "u", "y", "ä", "é", "ö", "ü", "ia", "ou"]
CODAS = ["", "", "n", "r", "s", "k", "l", "m", "v", "nd", "rt", "sk"]
SYLLABLES = [o + v + c for o in ONSETS for v in VOWELS for c in CODAS if o + v + c]
CYRILLIC_ONSETS = ["", "б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п", "р", "с", "т"]
CYRILLIC_ONSETS += ["ф", "х", "ч", "ш", "щ"]
CYRILLIC_VOWELS = ["а", "е", "и", "о", "у", "ы", "я", "ю"]
CYRILLIC_SYLLABLES = [o + v + c for o in CYRILLIC_ONSETS for v in CYRILLIC_VOWELS
                      for c in ("", "", "н", "р", "к", "в", "й")]  # fmt: skip
FIRST = [
    *_words(
        "Magnus Hikaru Fabiano Ian Alireza Wesley Levon Anish Maxime Richard Teimour Sergey Peter"
        " Vladimir Judit Aleksandra Kateryna Mariya Alexandra Nana Jan Shakhriyar Dmitrij Nodirbek"
        " Arjun Vincent Javokhir Nikita Daniil Andrey Bogdan Anna Maria Elena Olga Sofia Lucas"
        " Noah Emma Mia Leon Paul Ella Ida Nora Oskar Hugo Liam Eva Raj Wei Chen Ahmed Fatima"
        " Mohammed Ali Omar Yusuf Aisha Juan Carlos Pedro Diego Lucia Carmen Giorgi Nino Levan"
        " Arman Davit Tigran Ashot Bence Lajos Zoltan Piotr Tomasz Jakub Kacper Ole Lars Nils"
    ),
    *_words("Étienne Søren Jürgen Zoë Ángel Łukasz Ömer Radosław Gökhan Thérèse Inés Björn"),
]
CYRILLIC_FIRST = _words("Василий Сергей Александр Пётр Владимир Ян Даниил Никита Андрей Борис")
KINDS = ("exact", "typo", "reversed", "accent-less", "transliterated")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--searches", type=int, default=100, help="searches of each kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="ladder_bench_search")
    parser.add_argument(
        "--reuse", action="store_true", help="search the players of the last run again"
    )
    args = parser.parse_args()
    url = scratch_db.url_for(args.database, "bench_search.sqlite3")
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    if not args.reuse:
        scratch_db.recreate(url)
    import django

    django.setup()
    from django.core.management import call_command

    from ladder.records import Player

    rng = random.Random(args.seed)
    if args.reuse:
        names = list(Player.objects.order_by("pk").values_list("name", flat=True))
    else:
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        names = load(args.players, rng)
        print(f"loaded {len(names):,} players in {time.perf_counter() - started:.1f} s")
    queries = make_queries(names, args.searches, rng)
    overall: list[float] = []
    api: list[float] = []
    for kind in KINDS:
        times = [timed(text) for text in queries[kind]]
        overall += [closest for closest, _ in times]
        api += [filtered for _, filtered in times]
        for label, column in (("closest", 0), ("api search", 1)):
            part = [t[column] for t in times]
            print(f"{kind:15} {label:10} p50_ms={_p(part, 50):7.1f} p95_ms={_p(part, 95):7.1f}")
    print(f"api search (filter, first page): p50_ms={_p(api, 50):.1f} p95_ms={_p(api, 95):.1f}")
    print(f"p50_ms={_p(overall, 50):.1f} p95_ms={_p(overall, 95):.1f} players={len(names)}")


def full_name(rng: random.Random) -> str:
    """A player's name, "Last, First" as FIDE writes it: mostly Latin, a tenth Cyrillic."""
    if rng.random() < 0.1:
        last = "".join(rng.choices(CYRILLIC_SYLLABLES, k=rng.randint(2, 3)))
        return f"{last.capitalize()}, {_zipf(rng, CYRILLIC_FIRST)}"
    last = "".join(rng.choices(SYLLABLES, k=rng.randint(2, 3)))
    return f"{last.capitalize()}, {_zipf(rng, FIRST)}"


def _zipf(rng: random.Random, choices: list[str]) -> str:
    """One of ``choices``, the first ones more often (as common names are)."""
    # The most common about 4% (FIDE's lists have tens of thousands of first names; these
    # hundred make every one far more common than in a real list, which only slows a search).
    weights = [1 / (rank + 10) for rank in range(len(choices))]
    return rng.choices(choices, weights=weights)[0]


def load(count: int, rng: random.Random) -> list[str]:
    """Write ``count`` players (COPY on PostgreSQL) and return their names."""
    from django.db import connection
    from django.utils import timezone

    from ladder.records import Player
    from ladder.records.names import search_key

    names = [full_name(rng) for _ in range(count)]
    if connection.vendor != "postgresql":
        Player.objects.bulk_create((Player(name=n) for n in names), batch_size=5000)
        return names
    # Every column as a new player with no entry data has it; the name and its search key.
    fields = [f for f in Player._meta.concrete_fields if not f.primary_key]
    now = timezone.now()
    template = [now if f.name in ("created", "updated") else f.get_default() for f in fields]
    at = {f.name: i for i, f in enumerate(fields)}
    columns = ", ".join(connection.ops.quote_name(str(f.column)) for f in fields)
    with connection.cursor() as cursor:
        # The one index a search reads, built after the load (as a big import would be).
        cursor.execute("DROP INDEX IF EXISTS ladder_player_search_key_trgm")
        with cursor.copy(f"COPY ladder_player ({columns}) FROM STDIN") as copy:
            for name in names:
                row = list(template)
                row[at["name"]], row[at["search_key"]] = name, search_key(name)
                copy.write_row(row)
        cursor.execute(
            "CREATE INDEX ladder_player_search_key_trgm ON ladder_player "
            "USING gin (search_key gin_trgm_ops)"
        )
        cursor.execute("ANALYZE ladder_player")
    return names


def make_queries(names: list[str], count: int, rng: random.Random) -> dict[str, list[str]]:
    """Queries of each kind, made from stored names."""
    from anyascii import anyascii

    latin = [n for n in names if n.isascii()]
    cyrillic = [n for n in names if n[0] in CYR]
    accented = [n for n in names if not n.isascii() and n[0] not in CYR]
    print(f"{len(set(names)):,} distinct names")
    queries: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for _ in range(count):
        queries["exact"].append(rng.choice(names))
        queries["typo"].append(typo(rng.choice(latin), rng))
        last, _, first = rng.choice(names).partition(", ")
        queries["reversed"].append(f"{first} {last}")
        queries["accent-less"].append(anyascii(rng.choice(accented)) if accented else "")
        queries["transliterated"].append(anyascii(rng.choice(cyrillic)) if cyrillic else "")
    return queries


CYR = set("АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ")


def typo(name: str, rng: random.Random) -> str:
    """The name with one letter of its last name changed, dropped, or swapped with the next."""
    i = rng.randrange(1, max(2, name.index(",") - 1)) if "," in name else 1
    kind = rng.choice(("change", "drop", "swap"))
    if kind == "change":
        return name[:i] + rng.choice("aeiourstln") + name[i + 1 :]
    if kind == "drop":
        return name[:i] + name[i + 1 :]
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def timed(text: str) -> tuple[float, float]:
    """Milliseconds for one search as the pages and the admin's autocomplete make it (the 10
    closest), and as the API's ``?search=`` filters (its first page, by name)."""
    from ladder.records import Player

    started = time.perf_counter()
    found = Player.objects.closest(text, limit=10)
    closest = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    list(Player.objects.search(text).order_by("name", "pk")[:25])
    filtered = (time.perf_counter() - started) * 1000
    if not found:
        print(f"  nothing found for {text!r}")
    return closest, filtered


def _p(times: list[float], percent: int) -> float:
    if len(times) < 2:
        return times[0] if times else 0.0
    return statistics.quantiles(times, n=100, method="inclusive")[percent - 1]


if __name__ == "__main__":
    main()
