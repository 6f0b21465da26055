"""409 Conflict: a well-formed request refused for what is recorded (a duplicate, games in the
way), as against 400 for a request wrong in itself. Both answer messages by field."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.api.exceptions import exception_handler
from ladder.api.tournaments import EXAMPLE_TRF
from ladder.records import BaseCorrection, Game, Player, Tournament
from tests.factories import PlayerFactory

TOURNAMENTS = "/api/v1/tournaments/"
CORRECTIONS = "/api/v1/base-corrections/"


def test_a_tournament_recorded_twice_is_a_conflict_and_a_bad_date_is_not(superuser, club):
    body = {"name": "Easter Open", "start": "2026-04-03", "end": "2026-04-05"}
    assert superuser.post(TOURNAMENTS, body, format="json").status_code == HTTPStatus.CREATED
    again = superuser.post(TOURNAMENTS, body, format="json")
    assert again.status_code == HTTPStatus.CONFLICT, again.content
    assert again.json() == {
        "non_field_errors": ["A tournament of this name, list and start is already recorded."]
    }
    backwards = superuser.post(TOURNAMENTS, {**body, "end": "2026-04-01"}, format="json")
    assert backwards.status_code == HTTPStatus.BAD_REQUEST
    assert Tournament.objects.filter(name="Easter Open").count() == 1


def test_a_tournament_with_games_keeps_its_list_with_a_conflict(superuser, club):
    body = {"name": "Easter Open", "start": "2026-04-03", "end": "2026-04-05"}
    cup = superuser.post(TOURNAMENTS, body, format="json").json()
    game = {"date": "2026-04-04", "white": club.anna.pk, "black": club.boris.pk, "result": "1-0"}
    made = superuser.post("/api/v1/games/", {**game, "tournament": cup["id"]}, format="json")
    assert made.status_code == HTTPStatus.CREATED, made.content
    cup = Tournament.objects.get(pk=cup["id"])
    answer = superuser.patch(f"{TOURNAMENTS}{cup.pk}/", {"rating_list": "blitz"}, format="json")
    assert answer.status_code == HTTPStatus.CONFLICT, answer.content
    assert "rating_list" in answer.json()
    cup.refresh_from_db()
    assert cup.rating_list == "standard"


def test_a_game_outside_a_recorded_tournament_is_a_conflict_and_with_a_bad_value_is_not(
    superuser, club
):
    body = {"name": "Easter Open", "start": "2026-04-03", "end": "2026-04-05"}
    cup = superuser.post(TOURNAMENTS, body, format="json").json()
    game = {"date": "2026-04-09", "white": club.anna.pk, "black": club.boris.pk, "result": "1-0",
            "tournament": cup["id"]}  # fmt: skip
    late = superuser.post("/api/v1/games/", game, format="json")
    assert late.status_code == HTTPStatus.CONFLICT, late.content
    assert late.json() == {
        "date": ["2026-04-09 lies outside the tournament Easter Open (2026-04-03 to 2026-04-05)."]
    }
    rapid = superuser.post(
        "/api/v1/games/", {**game, "date": "2026-04-04", "rating_list": "rapid"}, format="json"
    )
    assert rapid.status_code == HTTPStatus.CONFLICT, rapid.content
    assert list(rapid.json()) == ["rating_list"]
    themselves = superuser.post("/api/v1/games/", {**game, "black": club.anna.pk}, format="json")
    assert themselves.status_code == HTTPStatus.BAD_REQUEST  # the request's own fault as well
    assert not Game.objects.filter(tournament_id=cup["id"]).exists()


def test_a_second_correction_of_one_rating_is_a_conflict(superuser, club):
    body = {"player": club.anna.pk, "period": "2026-04", "rating": 2010, "reason": "FIDE's Ro"}
    first = superuser.post(CORRECTIONS, body, format="json")
    assert first.status_code == HTTPStatus.CREATED, first.content
    again = superuser.post(CORRECTIONS, {**body, "rating": 2020}, format="json")
    assert again.status_code == HTTPStatus.CONFLICT, again.content
    assert "corrected already" in str(again.json())
    assert BaseCorrection.objects.get().rating == 2010


def test_a_tournament_file_imported_twice_is_a_conflict(superuser, club):
    def send():
        return superuser.post(
            "/api/v1/tournaments/import/",
            {"file": SimpleUploadedFile("spring.trf", EXAMPLE_TRF.encode())},
            format="multipart",
        )

    first = send()
    assert first.status_code == HTTPStatus.CREATED, first.content
    games = Game.objects.count()
    again = send()
    assert again.status_code == HTTPStatus.CONFLICT, again.content
    assert "already imported" in str(again.json()["file"])
    assert Game.objects.count() == games


def test_a_tournament_file_whose_games_are_all_recorded_is_a_conflict(superuser, club):
    def send(event: str):
        return superuser.post(
            "/api/v1/tournaments/import/",
            {"file": SimpleUploadedFile("spring.trf", EXAMPLE_TRF.encode()), "event": event},
            format="multipart",
        )

    assert send("Spring Round Robin").status_code == HTTPStatus.CREATED
    games = Game.objects.count()
    # The same games under another event's name: every one of them is recorded already.
    again = send("Spring RR (resent)")
    assert again.status_code == HTTPStatus.CONFLICT, again.content
    assert "This game is already recorded" in str(again.json()["file"])
    assert Game.objects.count() == games


def test_a_tournament_file_naming_a_player_the_ladder_holds_twice_is_a_conflict(superuser, club):
    PlayerFactory.create_batch(2, name="Ben Example")  # the file's "Example, Ben"
    answer = superuser.post(
        "/api/v1/tournaments/import/",
        {"file": SimpleUploadedFile("spring.trf", EXAMPLE_TRF.encode())},
        format="multipart",
    )
    assert answer.status_code == HTTPStatus.CONFLICT, answer.content
    assert answer.json() == {
        "file": [
            "Line 7, column 15: 2 players of the ladder are named 'Ben Example'; add the FIDE id "
            "to the file."
        ]
    }


def test_the_schema_says_what_a_conflict_is(anon):
    schema = anon.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    close = schema["paths"]["/api/v1/periods/{id}/close/"]["post"]["responses"]
    assert "conflicts with what is recorded" in close["409"]["description"]
    delete = schema["paths"]["/api/v1/tournaments/{id}/"]["delete"]["responses"]
    assert "409" in delete


def test_a_fide_id_another_player_holds_is_a_conflict_and_a_bad_one_is_not(superuser, club):
    taken = superuser.post(
        "/api/v1/players/", {"name": "Ann Other", "fide_id": 4100001}, format="json"
    )
    assert taken.status_code == HTTPStatus.CONFLICT, taken.content
    # The model's sentence, as the database's refusal says it to the loser of a race
    # (tests/ladder/test_races.py).
    assert taken.json() == {"fide_id": ["Player with this FIDE id already exists."]}
    both = superuser.post(
        "/api/v1/players/", {"name": "", "fide_id": 4100001}, format="json"
    )  # a blank name as well: the request's own fault
    assert both.status_code == HTTPStatus.BAD_REQUEST


def test_a_national_id_another_player_holds_is_a_conflict(superuser, club):
    body = {"name": "Ann Other", "national_federation": "NOR", "national_id": "12345"}
    first = superuser.post("/api/v1/players/", body, format="json")
    assert first.status_code == HTTPStatus.CREATED, first.content
    again = superuser.post("/api/v1/players/", {**body, "name": "Anne Other"}, format="json")
    assert again.status_code == HTTPStatus.CONFLICT, again.content
    assert again.json() == {"non_field_errors": ["Another player has this national id."]}


def test_a_national_id_taken_after_the_serializer_checked_it_is_still_a_conflict(db):
    # The loser of a race whose rival commits between the serializer's check and the write
    # path's full_clean: the model's constraint finds it, and the answer is the same 409 (it
    # was 400, seen once under load in tests/ladder/test_races.py).
    PlayerFactory(national_federation="NOR", national_id="54321")
    late = Player(name="Late Comer", national_federation="NOR", national_id="54321")
    with pytest.raises(ValidationError) as refused:
        late.full_clean()

    answer = exception_handler(refused.value, {})

    assert answer is not None
    assert answer.status_code == HTTPStatus.CONFLICT
    assert answer.data == {"non_field_errors": ["Another player has this national id."]}
