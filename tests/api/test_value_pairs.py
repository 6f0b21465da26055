"""Rules between two values, beyond OpenAPI: each operation states its pairs as ``x-distinct``
(must differ) or ``x-ordered`` (a date not after another), ``ladder.api.schema``; the API
refuses a pair that breaks one with a 400 naming a field of it, and Schemathesis's hooks
(scripts/schemathesis_hooks.py) send no such pair as valid data."""

from __future__ import annotations

import sys
from http import HTTPStatus
from pathlib import Path

import pytest
import schemathesis
from django.utils import timezone

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import schemathesis_hooks  # noqa: E402  (a script's module, on the path above)

pytestmark = pytest.mark.django_db


def stated(client, rule: str = "x-distinct") -> dict[tuple[str, str], list[list[str]]]:
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    return {
        (method.upper(), path): operation[rule]
        for path, operations in paths.items()
        for method, operation in operations.items()
        if isinstance(operation, dict) and rule in operation
    }


def test_the_schema_states_which_values_must_differ(anon):
    assert stated(anon) == {
        ("POST", "/api/v1/games/"): [["body.white", "body.black"]],
        ("PUT", "/api/v1/games/{id}/"): [["body.white", "body.black"]],
        ("PATCH", "/api/v1/games/{id}/"): [["body.white", "body.black"]],
        ("POST", "/api/v1/players/{id}/merge/"): [["path.id", "body.other"]],
    }


def test_every_pair_the_schema_states_is_refused_with_a_400_naming_the_second(superuser, club):
    game = {"date": "2026-03-11", "white": club.anna.pk, "black": club.anna.pk, "result": "1-0"}
    game_url = f"/api/v1/games/{club.draw.pk}/"
    both = {"white": club.boris.pk, "black": club.boris.pk}
    merge = {"other": club.anna.pk, "reason": "Entered twice."}
    sent = {
        ("POST", "/api/v1/games/"): superuser.post("/api/v1/games/", game, format="json"),
        ("PUT", "/api/v1/games/{id}/"): superuser.put(game_url, game, format="json"),
        ("PATCH", "/api/v1/games/{id}/"): superuser.patch(game_url, both, format="json"),
        ("POST", "/api/v1/players/{id}/merge/"): superuser.post(
            f"/api/v1/players/{club.anna.pk}/merge/", merge, format="json"
        ),
    }

    pairs = stated(superuser)
    assert set(sent) == set(pairs)
    for operation, answer in sent.items():
        second = pairs[operation][0][1].split(".")[1]
        assert answer.status_code == HTTPStatus.BAD_REQUEST, (operation, answer.content)
        assert second in answer.json(), (operation, answer.json())


def test_a_tournament_ending_before_it_starts_is_stated_and_refused(superuser, club):
    tournaments = {
        (method, path): [["body.start", "body.end"]]
        for method, path in [
            ("POST", "/api/v1/tournaments/"),
            ("PUT", "/api/v1/tournaments/{id}/"),
            ("PATCH", "/api/v1/tournaments/{id}/"),
        ]
    }
    ordered = stated(superuser, "x-ordered")
    assert {key: ordered[key] for key in ordered if "tournaments" in key[1]} == tournaments
    assert all("players" in path for _, path in set(ordered) - set(tournaments))
    body = {"name": "Easter Open", "start": "2026-04-05", "end": "2026-04-03"}
    recorded = {**body, "name": "Spring Cup", "end": "2026-04-05"}
    made = superuser.post("/api/v1/tournaments/", recorded, format="json")
    url = f"/api/v1/tournaments/{made.json()['id']}/"
    for answer in (
        superuser.post("/api/v1/tournaments/", body, format="json"),
        superuser.put(url, body, format="json"),
        superuser.patch(url, {"start": body["start"], "end": body["end"]}, format="json"),
    ):
        assert answer.status_code == HTTPStatus.BAD_REQUEST, answer.content
        assert answer.json() == {"end": ["A tournament cannot end before it starts."]}


PEAKS = [
    ["body.entry_rating", "body.entry_peak_rating"],
    ["body.rapid_entry_rating", "body.rapid_entry_peak_rating"],
    ["body.blitz_entry_rating", "body.blitz_entry_peak_rating"],
]
PLAYER_WRITES = [
    ("POST", "/api/v1/players/"), ("PUT", "/api/v1/players/{id}/"),
    ("PATCH", "/api/v1/players/{id}/"),
]  # fmt: skip


def test_a_peak_below_the_entry_rating_or_without_it_is_stated_and_refused(superuser, club):
    ordered = stated(superuser, "x-ordered")
    found = {operation: ordered[operation] for operation in PLAYER_WRITES}
    assert found == dict.fromkeys(PLAYER_WRITES, PEAKS)
    needs = [list(reversed(pair)) for pair in PEAKS]
    needs.append(["body.national_id", "body.national_federation|body.federation"])
    assert stated(superuser, "x-requires") == dict.fromkeys(PLAYER_WRITES, needs)
    url = f"/api/v1/players/{club.anna.pk}/"
    for prefix in ("", "rapid_", "blitz_"):
        below = {"name": "Ada", f"{prefix}entry_rating": 1700, f"{prefix}entry_peak_rating": 1650}
        alone = {"name": "Ada", f"{prefix}entry_rating": None, f"{prefix}entry_peak_rating": 1650}
        for answer, sentence in (
            (superuser.post("/api/v1/players/", below, format="json"), "cannot be lower"),
            (superuser.put(url, alone, format="json"), "An unrated player has no peak"),
            (superuser.patch(url, below, format="json"), "cannot be lower"),
        ):
            assert answer.status_code == HTTPStatus.BAD_REQUEST, answer.content
            assert sentence in answer.json()[f"{prefix}entry_peak_rating"][0]
    national = superuser.post("/api/v1/players/", {"name": "Ada", "national_id": "12345"})
    assert national.status_code == HTTPStatus.BAD_REQUEST
    assert "national_federation" in national.json()
    with_federation = {"name": "Ada", "national_id": "12345", "federation": "ENG"}
    assert superuser.post("/api/v1/players/", with_federation).status_code == HTTPStatus.CREATED


def test_the_fuzzer_sends_no_pair_that_breaks_a_rule_as_valid(anon):
    schema = schemathesis.openapi.from_dict(anon.get("/api/v1/schema/?format=json").json())
    games = schema["/api/v1/games/"]["POST"]
    merge = schema["/api/v1/players/{id}/merge/"]["POST"]
    tournaments = schema["/api/v1/tournaments/"]["POST"]

    assert schemathesis_hooks.breaks_pair_rule(games.Case(body={"white": 3, "black": 3}))
    assert not schemathesis_hooks.breaks_pair_rule(games.Case(body={"white": 3, "black": 4}))
    assert not schemathesis_hooks.breaks_pair_rule(games.Case(body={"white": 3}))
    assert schemathesis_hooks.breaks_pair_rule(
        merge.Case(path_parameters={"id": "5"}, body={"other": 5, "reason": "Twice."})
    )
    assert not schemathesis_hooks.breaks_pair_rule(
        merge.Case(path_parameters={"id": 5}, body={"other": 6, "reason": "Twice."})
    )
    later = {"name": "Cup", "start": "2026-04-05", "end": "2026-04-03"}
    assert schemathesis_hooks.breaks_pair_rule(tournaments.Case(body=later))
    one_day = {**later, "end": "2026-04-05"}
    assert not schemathesis_hooks.breaks_pair_rule(tournaments.Case(body=one_day))
    players = schema["/api/v1/players/"]["POST"]
    assert schemathesis_hooks.breaks_pair_rule(
        players.Case(body={"name": "Ada", "entry_rating": 1702, "entry_peak_rating": 1650})
    )
    assert schemathesis_hooks.breaks_pair_rule(
        players.Case(body={"name": "Ada", "rapid_entry_peak_rating": 1650})
    )
    assert schemathesis_hooks.breaks_pair_rule(
        players.Case(body={"name": "Ada", "blitz_entry_rating": None, "blitz_entry_peak_rating": 1})
    )
    national = {"name": "Ada", "national_id": "12345"}
    assert schemathesis_hooks.breaks_pair_rule(players.Case(body=national))
    assert schemathesis_hooks.breaks_pair_rule(
        players.Case(body={**national, "national_federation": " ", "federation": ""})
    )
    assert not schemathesis_hooks.breaks_pair_rule(
        players.Case(body={**national, "federation": "ENG"})
    )
    # Numbers compare as numbers: 900 is below 1200.
    fine = {"name": "Ada", "entry_rating": 900, "entry_peak_rating": 1200}
    assert not schemathesis_hooks.breaks_pair_rule(players.Case(body=fine))


def test_a_birth_year_is_bounded_by_this_year_in_the_schema_as_in_the_api(superuser):
    schema = superuser.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    birth_year = schema["components"]["schemas"]["PlayerRequest"]["properties"]["birth_year"]
    this_year = timezone.localdate().year
    assert (birth_year["minimum"], birth_year["maximum"]) == (1900, this_year)
    later = superuser.post("/api/v1/players/", {"name": "Ada", "birth_year": this_year + 1})
    assert later.status_code == HTTPStatus.BAD_REQUEST
    assert later.json() == {
        "birth_year": [f"The birth year {this_year + 1} is in the future (this is {this_year})."]
    }
