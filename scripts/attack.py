#!/usr/bin/env python
"""Attack Ladder as an outsider would and print what held: bad input through every door,
concurrent writers (PostgreSQL), and the API's abuse limits.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x scripts/attack.py [--trials 12]

Works in its own database (``ladder_attack`` on the server of DATABASE_URL, dropped and created
afresh; SQLite: ``attack.sqlite3``, where the races are skipped). Prints, per group, the
requests tried and their statuses, then the totals the issue asks for: 500s seen, games lost or
resurrected, and lists differing from a full replay (each target 0).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from collections import Counter
from functools import partial
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scratch_db  # noqa: E402 - beside this script

totals: Counter[str] = Counter()


def report(group: str, statuses: list[int]) -> None:
    counts = Counter(statuses)
    totals["requests"] += len(statuses)
    totals["500s"] += sum(n for code, n in counts.items() if code >= 500)
    shown = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
    print(f"{group}: {len(statuses)} requests ({shown})")


def snapshot():
    from ladder.records import Player
    from ratings.models import RatingChange

    rows = RatingChange.objects.order_by("player_id", "period_id", "rating_list").values_list(
        "player_id", "period_id", "rating_list", "rating_after", "change"
    )
    return list(rows), list(Player.objects.order_by("pk").values_list("pk", "rating"))


def differs_from_replay() -> int:
    from ratings.recompute import services

    state = snapshot()
    services.recompute_from(None)
    return int(snapshot() != state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=12, help="runs of each race")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = scratch_db.url_for("ladder_attack", "attack.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    scratch_db.recreate(os.environ["DATABASE_URL"])
    import django

    django.setup()
    import logging

    from django.core.management import call_command

    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # the 4xx are the point

    call_command("migrate", verbosity=0)
    club = seed()
    bad_input(club)
    if os.environ["DATABASE_URL"].startswith("postgres"):
        races(club, args.trials)
    else:
        print("races: skipped (SQLite serializes writers whole)")
    totals["lists differing from a full replay"] += differs_from_replay()
    print(
        f"TOTAL: {totals['requests']} requests and races, {totals['500s']} answered 500, "
        f"{totals['lost or resurrected']} games lost or resurrected, "
        f"{totals['lists differing from a full replay']} lists differing from a full replay"
    )


def seed():
    from datetime import date

    from django.contrib.auth import get_user_model

    from ladder.records import Player, RatingPeriod
    from ladder.writes import actions
    from ladder.writes.validation import GameEntry

    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    players = [
        Player.objects.create(name=f"Player {i:02d}", fide_id=1000 + i, entry_rating=1500 + 20 * i,
                              entry_rated_games=40, birth_year=1980)
        for i in range(24)
    ]  # fmt: skip
    for month in (6, 7, 8, 9, 10):
        entries = [
            GameEntry(date=date(2026, month, 1 + i), white=players[i],
                      black=players[(i + month) % 24], result="1-0")
            for i in range(12)
        ]  # fmt: skip
        actions.enter_games(games=entries)
    for label in ("2026-06", "2026-07", "2026-08", "2026-09"):
        actions.close_period(period=RatingPeriod.objects.get(label=label))
    return {"user": user, "players": players}


def client(club):
    from rest_framework.test import APIClient

    api = APIClient(raise_request_exception=False)
    api.force_authenticate(club["user"])
    return api


def bad_input(club) -> None:
    from django.test import Client

    from ladder.records import Game

    a, b = (p.pk for p in club["players"][:2])
    before = Game.objects.count()
    api = client(club)
    games = [
        {"date": "2025-01-15", "white": a, "black": b, "result": "1-0"},  # before a published list
        {"date": "2999-12-31", "white": a, "black": b, "result": "1-0"},
        {"date": "2026-06-10", "white": a, "black": b, "result": "1-0"},  # closed period
        {"date": "2026-11-10", "white": a, "black": a, "result": "1-0"},
        {"date": "2026-11-10", "white": a, "black": b, "result": "2-0"},
        {"date": "2026-11-10", "white": a, "black": b, "result": "1-0", "event": "\x1b[2J"},
        {"date": "2026-11-10", "white": 10**30, "black": b, "result": "1-0"},
        {"date": "not a date", "white": a, "black": b, "result": "1-0"},
        {"date": "2026-11-10", "white": "x\x00", "black": b, "result": "1-0"},
        [1, 2, 3],
        "null",
        {"date": None},
    ]
    report("API games, bad", [api.post("/api/v1/games/", g, format="json").status_code
                              for g in games])  # fmt: skip
    players = [
        {"name": "A\x07"}, {"name": "B\nC"}, {"name": "Z", "fide_id": 0},
        {"name": "Z", "entry_rating": 0}, {"name": "Z", "entry_rating": 1399},
        {"name": "Z", "fide_id": 1000}, {"name": "Z", "fide_id": 2**64}, {"name": ""},
    ]  # fmt: skip
    report("API players, bad", [api.post("/api/v1/players/", p, format="json").status_code
                                for p in players])  # fmt: skip
    entry = {"entry_rating": 1900}
    report("API entry data behind a published list",
           [api.patch(f"/api/v1/players/{a}/", entry, format="json").status_code])  # fmt: skip
    bombs = ["[" * 100_000 + "]" * 100_000, '{"rating": NaN}', '{"a":' * 50 + "1" + "}" * 50]
    anon = Client(raise_request_exception=False)
    report("calculator JSON bombs (anonymous)", [
        anon.post("/api/v1/calculator/", body, content_type="application/json").status_code
        for body in bombs
    ])  # fmt: skip
    admin = Client(raise_request_exception=False)
    admin.force_login(club["user"])
    urls = ["/admin/ladder/game/?result=%00", "/admin/ladder/game/?q=%00",
            "/admin/ladder/game/?period__id__exact=x", "/admin/ladder/player/?q=%00"]  # fmt: skip
    statuses = [admin.get(url).status_code for url in urls]
    statuses.append(admin.post("/admin/ladder/ratingperiod/add/",
                               {"label": "2027/01", "start": "2027-01-01", "end": "2027-01-31"}
                               ).status_code)  # fmt: skip
    statuses.append(anon.get("/periods/").status_code)
    report("admin, bad", statuses)
    report("CSV, bad", csv_attacks())
    after = Game.objects.count()
    totals["lost or resurrected"] += abs(after - before)


def csv_attacks() -> list[int]:
    from django.core.management import CommandError, call_command

    folder = Path(tempfile.mkdtemp(prefix="ladder-attack-"))
    files = {
        "players": ['name,fide_id\n"Big' + "x" * 140_000 + '",5\n', "name,fide_id\nSmith, John,5\n",
                    "name,rating,rating\nA,1500,1600\n", "name,fide_id\nA,0\n",
                    "name,rating\nA,0\n", "name\nA\x1b]0;x\x07\n"],
        "games": ["date,white,black,result\n2999-12-31,1000,1001,1-0\n",
                  "date,white,black,result,result\n2026-11-02,1000,1001,1-0,0-1\n"],
    }  # fmt: skip
    codes = []
    for kind, texts in files.items():
        for i, text in enumerate(texts):
            path = folder / f"{kind}{i}.csv"
            path.write_text(text, encoding="utf-8")
            try:
                call_command(f"import_{kind}", str(path), stdout=StringIO())
                codes.append(200)  # imported: a bad file got through
            except CommandError:
                codes.append(400)
            except Exception:  # noqa: BLE001 - a crash is what we count
                codes.append(500)
    return codes


def at_once(*calls):
    from django.db import connections

    barrier = threading.Barrier(len(calls))
    results = [0] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception:  # noqa: BLE001 - a crash is what we count
            results[i] = 599
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def races(club, trials: int) -> None:
    from datetime import date

    from ladder.records import Game, Player, RatingPeriod
    from ladder.writes import actions

    players = club["players"]

    def patch(url: str) -> int:
        return client(club).patch(url, {"result": "0-1"}, format="json").status_code

    def delete(url: str) -> int:
        return client(club).delete(url).status_code

    def post(path: str, body: dict) -> int:
        return client(club).post(path, body, format="json").status_code

    statuses: list[int] = []
    for trial in range(trials):
        game = Game.objects.create(
            date=date(2026, 11, 1 + trial % 28), white=players[trial % 24],
            black=players[(trial + 5) % 24], result="1-0", round=f"r{trial}",
        )  # fmt: skip
        url = f"/api/v1/games/{game.pk}/"
        codes = at_once(partial(patch, url), partial(delete, url))
        statuses += codes
        if codes[1] == 204 and Game.objects.filter(pk=game.pk).exists():
            totals["lost or resurrected"] += 1
    report(f"PATCH racing DELETE, {trials} trials", statuses)
    statuses = []
    for trial in range(trials):
        body = {"name": "Twin", "fide_id": 900_000 + trial, "entry_rating": 1800}
        statuses += at_once(*[partial(post, "/api/v1/players/", body)] * 4)
        found = Player.objects.filter(fide_id=900_000 + trial).count()
        totals["lost or resurrected"] += abs(found - 1)
    report(f"4 players with one FIDE id, {trials} trials", statuses)
    statuses = []
    for trial in range(trials):
        month = "2026-12" if trial % 2 else "2026-11"
        pairs = [(players[(2 * i + trial) % 24], players[(2 * i + trial + 1) % 24])
                 for i in range(6)]  # fmt: skip
        bodies = [
            {"date": f"{month}-{10 + i:02d}", "white": w.pk, "black": b.pk, "result": "1-0",
             "round": f"m{trial}-{i}"}
            for i, (w, b) in enumerate(pairs)
        ]  # fmt: skip
        statuses += at_once(*(partial(post, "/api/v1/games/", body) for body in bodies))
    report(f"six games of a month at once, {trials} trials", statuses)
    statuses = []
    october = RatingPeriod.objects.get(label="2026-10")
    for trial in range(trials):
        body = {"date": "2026-10-20", "white": players[0].pk, "black": players[1].pk,
                "result": "1-0", "round": f"c{trial}"}  # fmt: skip
        close = partial(post, f"/api/v1/periods/{october.pk}/close/", {})
        statuses += at_once(partial(post, "/api/v1/games/", body), close)
        october.refresh_from_db()
        late = Game.objects.filter(period=october, created__gt=october.closed_at)
        totals["lost or resurrected"] += late.count()  # written into a closed period
        actions.reopen_period(period=october, reason="attack.py: the next trial")
    report(f"an entry racing the close of its period, {trials} trials", statuses)


if __name__ == "__main__":
    main()
