"""The doors of a merge: the commands, the API and the pages of a merged player's old ids."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus
from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.records import Game, Player, PlayerMerge
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(committed):
    ann = PlayerFactory(name="Ann Able", fide_id=101)
    dup = PlayerFactory(name="Able, Ann")
    bob = PlayerFactory(name="Bob Best", fide_id=102)
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 3, 2), white=dup, black=bob, result="1-0"),
                GameEntry(date=date(2026, 3, 9), white=bob, black=ann, result="0-1"),
            ]
        )
    return ann, dup, bob


@pytest.fixture
def editor(db) -> APIClient:
    user = User.objects.create_user("editor")
    user.user_permissions.set(Permission.objects.filter(codename="change_player"))
    client = APIClient()
    client.force_authenticate(user)
    return client


def run(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def test_the_commands_merge_and_unmerge(pair, committed):
    ann, dup, bob = pair
    with committed():
        said = run("merge_players", str(ann.pk), str(dup.pk), "--reason", "Entered twice")
    assert "Merged Able, Ann into Ann Able (101): 1 game moved, rated again from 2026-03." in said
    assert Game.objects.filter(white=ann).count() == 1
    with committed():
        said = run("unmerge_players", str(dup.pk))
    assert "Unmerged Able, Ann from Ann Able (101): 1 game moved back" in said
    assert Game.objects.filter(white=dup).count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1", "1"], "OTHER_ID: A player cannot be merged with themselves."),
        (["{ann}", "999999"], "OTHER_ID: There is no player #999999."),
        (["abc", "{dup}"], "KEEP_ID: “abc” is not a player id (a whole number)."),
        (["{ann}", "{dup}", "--user", "nobody"], "--user: No active user is called 'nobody'."),
    ],
)
def test_the_command_refuses_bad_input_and_changes_nothing(pair, args, message):
    ann, dup, bob = pair
    args = [a.format(ann=ann.pk, dup=dup.pk) for a in args]
    with pytest.raises(CommandError) as error:
        run("merge_players", *args, "--reason", "r")
    assert str(error.value) == message
    assert PlayerMerge.objects.count() == 0
    assert Player.objects.get(pk=dup.pk).merged_into_id is None


def test_the_command_needs_a_reason(pair):
    ann, dup, bob = pair
    with pytest.raises(CommandError) as error:
        run("merge_players", str(ann.pk), str(dup.pk), "--reason", " ")
    assert str(error.value) == "--reason: Give a reason for the merge; it is recorded."


def test_unmerge_of_a_player_not_merged_is_an_error(pair):
    with pytest.raises(CommandError, match="is not merged into anyone"):
        run("unmerge_players", str(pair[2].pk))


def test_the_api_merges_answers_301_and_410_for_the_old_id_and_unmerges(pair, editor, committed):
    ann, dup, bob = pair
    with committed():
        answer = editor.post(
            f"/api/v1/players/{ann.pk}/merge/", {"other": dup.pk, "reason": "Twice"}, format="json"
        )
    assert answer.status_code == HTTPStatus.OK, answer.content
    body = answer.json()
    assert (body["kept"], body["merged"], body["games"]) == (ann.pk, dup.pk, 1)
    read = APIClient().get(f"/api/v1/players/{dup.pk}/history/?list=standard")
    assert read.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert read["Location"].endswith(f"/api/v1/players/{ann.pk}/history/?list=standard")
    assert read.json()["merged_into"] == ann.pk
    write = editor.patch(f"/api/v1/players/{dup.pk}/", {"name": "X"}, format="json")
    assert write.status_code == HTTPStatus.GONE
    assert write.json() == {
        "detail": f"Player #{dup.pk} was merged into player #{ann.pk}.",
        "merged_into": ann.pk,
    }
    listed = APIClient().get("/api/v1/players/").json()
    assert dup.pk not in {p["id"] for p in listed["results"]}
    with committed():
        undone = editor.post(f"/api/v1/players/{dup.pk}/unmerge/", {}, format="json")
    assert undone.status_code == HTTPStatus.OK, undone.content
    assert APIClient().get(f"/api/v1/players/{dup.pk}/").status_code == HTTPStatus.OK


def test_the_api_gives_field_errors_and_needs_the_permission(pair, editor):
    ann, dup, bob = pair
    url = f"/api/v1/players/{ann.pk}/merge/"
    answer = editor.post(url, {"other": ann.pk, "reason": "r"}, format="json")
    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert answer.json() == {"other": ["A player cannot be merged with themselves."]}
    answer = editor.post(url, {"other": 999999, "reason": "r"}, format="json")
    assert answer.json() == {"other": ["There is no player #999999."]}
    answer = editor.post(url, {"other": dup.pk}, format="json")
    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert "reason" in answer.json()
    assert editor.post("/api/v1/players/999999/merge/", {"other": 1, "reason": "r"},
                       format="json").status_code == HTTPStatus.NOT_FOUND  # fmt: skip
    anonymous = APIClient().post(url, {"other": dup.pk, "reason": "r"}, format="json")
    assert anonymous.status_code == HTTPStatus.UNAUTHORIZED
    viewer = APIClient()
    viewer.force_authenticate(User.objects.create_user("viewer"))
    refused = viewer.post(url, {"other": dup.pk, "reason": "r"}, format="json")
    assert refused.status_code == HTTPStatus.FORBIDDEN
    assert PlayerMerge.objects.count() == 0


def test_the_old_pages_redirect_to_the_kept_player(pair, client, committed):
    ann, dup, bob = pair
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    page = client.get(f"/players/{dup.pk}/?list=standard")
    assert page.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert page["Location"] == f"/players/{ann.pk}/?list=standard"
    versus = client.get(f"/players/{dup.pk}/vs/{bob.pk}/")
    assert versus["Location"] == f"/players/{ann.pk}/vs/{bob.pk}/"
    assert client.get(f"/players/{ann.pk}/").status_code == HTTPStatus.OK


def test_the_schema_documents_the_merge_answers(client):
    schema = client.get("/api/v1/schema/?format=json").json()
    player = schema["paths"]["/api/v1/players/{id}/"]
    assert {"301"} <= set(player["get"]["responses"])
    assert {"410"} <= set(player["patch"]["responses"])
    assert "post" in schema["paths"]["/api/v1/players/{id}/merge/"]


def test_the_other_player_endpoints_send_a_merged_id_on(pair, committed):
    ann, dup, bob = pair
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    versus = APIClient().get(f"/api/v1/players/{bob.pk}/head-to-head/{dup.pk}/")
    assert versus.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert versus["Location"].endswith(f"/api/v1/players/{bob.pk}/head-to-head/{ann.pk}/")
    rating = APIClient().get(f"/api/v1/players/{dup.pk}/rating/?date=2026-03-31")
    assert rating.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert rating["Location"].endswith(f"/api/v1/players/{ann.pk}/rating/?date=2026-03-31")
    assert rating.json() == {
        "detail": f"Player #{dup.pk} was merged into player #{ann.pk}.",
        "merged_into": ann.pk,
    }
    stream = APIClient().get(f"/api/v1/bulk/players/{dup.pk}/history/?format=csv")
    assert stream.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert stream["Location"].endswith(f"/api/v1/bulk/players/{ann.pk}/history/?format=csv")


def test_a_game_for_a_merged_record_is_refused_at_the_api(pair, committed):
    ann, dup, bob = pair
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    client = APIClient()
    client.force_authenticate(User.objects.create_superuser("boss", "b@example.org", "pw"))
    answer = client.post(
        "/api/v1/games/",
        {"date": "2026-03-20", "white": dup.pk, "black": bob.pk, "result": "1-0"},
        format="json",
    )
    assert answer.status_code == HTTPStatus.CONFLICT  # the record's state, not the request
    assert answer.json() == {
        "white": [f"Able, Ann was merged into player #{ann.pk}; enter the game for that player."]
    }


def test_an_id_too_large_for_any_player_is_a_field_error(pair, editor):
    ann, _, _ = pair
    answer = editor.post(
        f"/api/v1/players/{ann.pk}/merge/", {"other": 2**64, "reason": "r"}, format="json"
    )
    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert "other" in answer.json()
