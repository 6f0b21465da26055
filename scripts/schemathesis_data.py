"""Write Schemathesis's test data for the club scripts/schemathesis.sh loaded: what exists in it.

The schema states what a valid value looks like (bounds, lengths, patterns, choices); it cannot
say which ids exist, which events were played, which dates an open period takes or what a
tournament file holds. This writes them as Schemathesis dictionaries, so that generated
requests reach real records:

    DATABASE_URL=... .venv/bin/python scripts/schemathesis_data.py OUT.toml
"""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
django.setup()

from ladder.api.tournaments import EXAMPLE_TRF  # noqa: E402  (after django.setup())
from ladder.records import BaseCorrection, Game, Player, RatingPeriod, Tournament  # noqa: E402
from ladder.writes.validation.games import latest_game_date  # noqa: E402
from ratings.models import RatingRun  # noqa: E402

# A value that names a record (an id, an open period's label, an open day) is drawn from what
# exists every time: one the club lacks is refused for what is recorded, which says nothing of
# the schema, and a few such refusals among the conflicts made Schemathesis warn. Other
# values (events in a query) are drawn from it nine times in ten.
RECORDS, OTHERS = 1.0, 0.9
# The import's request example (four players the club does not know yet, created on import),
# under another event and with its rounds undated: the import dates them with the request's
# `date`, so that each import records games that are not recorded yet.
TRF = "\n".join(
    line
    for line in EXAMPLE_TRF.replace("012 Spring Round Robin", "012 Fuzzing Round Robin").split("\n")
    if not line.startswith(("042 ", "052 ", "132 "))
)
# Operations on one record, and the dictionary of the ids that exist.
BY_ID = {
    "players": "players",
    "games": "games",
    "periods": "periods",
    "rating-runs": "runs",
    "tournaments": "tournaments",
    "base-corrections": "corrections",
}

# What a DELETE takes instead of the dictionary the other operations on the record use.
SPARES = {"corrections": "spare_corrections", "games": "spare_games"}


def dictionaries() -> dict[str, list]:
    first = RatingPeriod.objects.filter(status="closed").latest("end").end + timedelta(days=1)
    days = [first + timedelta(days=n) for n in range(0, (latest_game_date() - first).days, 5)]
    players = _ids(Player.objects.all())
    return {
        "players": players,
        # White and Black from apart halves: a player never plays themselves (a rule between
        # two fields, which a schema cannot state).
        "whites": players[::2],
        "blacks": players[1::2],
        # Games of open periods (a closed period's are frozen, 409, until it is reopened), and
        # none of the Club Cup's: its export names it (scripts/schemathesis.sh).
        "games": _ids(Game.objects.filter(period__status="open", event="Open games")),
        "spare_games": _ids(Game.objects.filter(period__status="open", event="Spare games")),
        "periods": _ids(RatingPeriod.objects.all()),
        "runs": _ids(RatingRun.objects.all()),
        # Tournaments rated in open periods: a closed one's are frozen (409).
        "tournaments": _ids(Tournament.objects.filter(rated_in__status="open")),
        "corrections": _ids(BaseCorrection.objects.filter(rating_list="standard")),
        # What DELETE may take: the loader's rapid corrections, none that others name.
        "spare_corrections": _ids(BaseCorrection.objects.exclude(rating_list="standard")),
        "open_periods": list(
            RatingPeriod.objects.filter(status="open")
            .order_by("start")
            .values_list("label", flat=True)
        ),
        "days": [day.isoformat() for day in days],
        "events": sorted(set(Game.objects.exclude(event="").values_list("event", flat=True))),
    }


# Warnings about the schema itself or this setup, the same in every run: CI fails on them.
# Those that depend on the data a run happens to generate are printed (PRINTED); the goal is
# that a run warns of nothing at all. Every warning Schemathesis has is in one of the two.
FAIL_ON = [
    "missing_auth", "base_url_mismatch", "missing_deserializer", "unused_openapi_auth",
    "unsupported_regex", "unresolvable_reference", "dictionary_mismatch", "method_not_allowed",
    "unmatched_filter", "constants_extraction", "timeout_units", "rate_limited",
]  # fmt: skip
PRINTED = ["validation_mismatch", "missing_test_data", "low_valid_rate"]


def config() -> str:
    lines = ["[warnings]", f"fail-on = {json.dumps(FAIL_ON)}", ""]
    # Schemathesis refuses an empty dictionary: what the club has none of is left unbound.
    found = {name: values for name, values in dictionaries().items() if values}
    for name, values in found.items():
        lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}", ""]
    binds = {
        "body.white": "whites", "body.black": "blacks", "body.date": "days",
        "path.other": "players", "body.player": "players", "body.other": "players",
        "body.period": "open_periods",
        "body.rated_in": "open_periods", "body.tournament": "tournaments",
    }  # fmt: skip
    lines += [
        "[parameters]",
        *(_bind(key, name) for key, name in binds.items() if name in found),
        *([_bind("query.event", "events", OTHERS)] if "events" in found else []),
        f'"body.file" = {json.dumps(TRF)}',
        "",
    ]
    # The import dates the file's undated rounds with `date`: always give one.
    lines += [
        "[[operations]]",
        "include-name = 'POST /api/v1/tournaments/import/'",
        f'parameters = {{ "body.date" = "{found["days"][0]}" }}',
        "",
    ]
    # The export names an event exactly: the coverage phase's boundary values of a name ("0",
    # "00") never name one, and it ignores the dictionaries. The other phases send the
    # example's event and the ones that exist.
    lines += [
        "[[operations]]",
        "include-name = 'GET /api/v1/tournaments/export/'",
        "phases = { coverage = { enabled = false } }",
        "",
    ]
    # A deletion takes its record from the spares (where there are) and only in the phases that
    # draw from the dictionaries: the examples and coverage phases send the schema's example
    # id, and deleting record 1 left every later request naming it a 404.
    lines += [
        "[[operations]]",
        "include-method = 'DELETE'",
        "phases = { examples = { enabled = false }, coverage = { enabled = false } }",
        "",
    ]
    for path, name in BY_ID.items():
        if name not in found:
            continue
        spare = SPARES[name] if SPARES.get(name) in found else name
        lines += [
            "[[operations]]",
            f"include-path-regex = '^/api/v1/{path}/[{{]id[}}]/'",
            "exclude-method = 'DELETE'",
            f"parameters = {{ {_bind('path.id', name)} }}",
            "",
            "[[operations]]",
            f"include-path-regex = '^/api/v1/{path}/[{{]id[}}]/'",
            "include-method = 'DELETE'",
            f"parameters = {{ {_bind('path.id', spare)} }}",
            "",
        ]
    return "\n".join(lines)


def _bind(key: str, name: str, probability: float = RECORDS) -> str:
    return f'"{key}" = {{ dictionary = "{name}", probability = {probability} }}'


def _ids(queryset) -> list[int]:
    return list(queryset.order_by("pk").values_list("pk", flat=True))


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(config())
