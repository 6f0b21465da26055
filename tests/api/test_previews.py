"""``?dry_run=true`` on the game writes: the preview as JSON, the real request's errors, and
nothing written (not even an idempotent answer)."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus

import pytest
from rest_framework.test import APIClient

from ladder.records import Game, IdempotentRequest, Player
from ladder.records import versions as data_version
from ratings.models import RatingRun
from tests.factories import GameFactory
from tests.previews import reopened_october

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/games/"


@pytest.fixture
def club(committed):
    return reopened_october(committed)


@pytest.fixture
def api(club, editor_user) -> APIClient:
    client = APIClient()
    client.force_authenticate(editor_user)
    return client


def ratings() -> dict[str, int | None]:
    return dict(Player.objects.values_list("name", "rating"))


def state() -> tuple:
    """The games, runs, kept answers, ratings and data version."""
    games = list(Game.objects.values_list("pk", "result", "date"))
    kept = IdempotentRequest.objects.count()
    return games, RatingRun.objects.count(), kept, ratings(), data_version.current().value


def nothing_written(check):
    """Run ``check`` and assert that it left the games, runs, keys and version as they were."""
    before = state()
    answer = check()
    assert state() == before
    return answer


def test_a_dry_run_correction_answers_the_preview(api, club, committed):
    url = f"{GAMES}{club['game'].pk}/?dry_run=true"
    with committed():
        response = nothing_written(lambda: api.patch(url, {"result": "0-1"}, format="json"))

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["summary"] == (
        f"Correcting game #{club['game'].pk} would recompute 2026-10 to 2026-11: "
        "2 players' ratings would change."
    )
    assert body["periods"] == {"standard": ["2026-10", "2026-11"]}
    ann = {(line["period"], line["name"]): line for line in body["lines"]}[("2026-10", "Ann")]
    assert (ann["old_rating"], ann["new_rating"], ann["old_change"], ann["new_change"]) == (
        1807, 1787, 7, -13
    )  # fmt: skip
    # What the preview said is what the correction then does.
    before = ratings()
    with committed():
        assert api.patch(url.split("?")[0], {"result": "0-1"}, format="json").status_code == 200
    after = ratings()
    assert {p["name"]: (p["old_rating"], p["new_rating"]) for p in body["players"]} == {
        name: (before[name], after[name]) for name in after if before[name] != after[name]
    }


def test_a_dry_run_put_create_and_delete(api, club, committed):
    game = club["game"]
    whole = {"date": "2026-10-06", "white": game.black_id, "black": game.white_id, "result": "1-0"}
    with committed():
        put = nothing_written(
            lambda: api.put(f"{GAMES}{game.pk}/?dry_run=true", whole, format="json")
        )
        new = {**whole, "date": "2026-10-21"}
        create = nothing_written(
            lambda: api.post(
                f"{GAMES}?dry_run=true", new, format="json", headers={"Idempotency-Key": "k-1"}
            )
        )
        delete = nothing_written(lambda: api.delete(f"{GAMES}{game.pk}/?dry_run=1"))
    assert put.status_code == create.status_code == delete.status_code == HTTPStatus.OK
    assert put.json()["summary"].startswith(f"Correcting game #{game.pk} would recompute 2026-10")
    assert create.json()["summary"].startswith("Entering 1 game would recompute 2026-10")
    assert delete.json()["summary"].startswith(f"Deleting game #{game.pk} would recompute")
    # The key of the dry run was not kept: the real request with it is a first request.
    real = api.post(GAMES, new, format="json", headers={"Idempotency-Key": "k-1"})
    assert real.status_code == HTTPStatus.CREATED
    assert "Idempotent-Replayed" not in real


@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("patch", "{game}/", {"black": "{white}"}),
        ("patch", "{game}/", {"date": "1800-01-01"}),
        (
            "post",
            "",
            {"date": "2026-10-21", "white": "{white}", "black": "{white}", "result": "1-0"},
        ),  # fmt: skip
        ("post", "", {"date": "2026-10-21", "white": "{white}", "black": 999999, "result": "1-0"}),
        ("patch", "{november}/", {"result": "0-1"}),  # a closed period: 409
        ("delete", "{november}/", None),
    ],
)
def test_bad_input_gets_the_real_requests_errors(api, club, method, path, data):
    november = Game.objects.get(date__month=11)
    names = {"game": club["game"].pk, "white": club["game"].white_id, "november": november.pk}
    url = GAMES + path.format(**names)
    if data is not None:
        data = {k: int(v.format(**names)) if isinstance(v, str) and v.startswith("{") else v
                for k, v in data.items()}  # fmt: skip
    send = getattr(api, method)
    previewed = nothing_written(lambda: send(f"{url}?dry_run=true", data, format="json"))
    real = send(url, data, format="json")
    assert previewed.status_code == real.status_code
    assert previewed.status_code in (HTTPStatus.BAD_REQUEST, HTTPStatus.CONFLICT)
    assert previewed.json() == real.json()


def test_a_dry_run_value_that_is_no_boolean_is_refused(api, club):
    response = api.delete(f"{GAMES}{club['game'].pk}/?dry_run=perhaps")
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "dry_run" in response.json()
    assert Game.objects.filter(pk=club["game"].pk).exists()


def test_a_dry_run_needs_the_write_permission(viewer, club):
    response = viewer.delete(f"{GAMES}{club['game'].pk}/?dry_run=true")
    assert response.status_code == HTTPStatus.FORBIDDEN


def test_a_dry_run_costs_the_same_queries_whatever_the_number_of_games(
    api, club, committed, django_assert_max_num_queries
):
    url = f"{GAMES}{club['game'].pk}/?dry_run=true"
    with django_assert_max_num_queries(120) as few:
        api.patch(url, {"result": "0-1"}, format="json")
    with committed():
        GameFactory.create_batch(30, date=date(2026, 10, 12), white=club["cy"], black=club["ben"])
    with django_assert_max_num_queries(len(few)):
        api.patch(url, {"result": "0-1"}, format="json")
