"""Idempotency-Key: a retried POST gets the first answer and writes nothing more."""

from __future__ import annotations

import pytest

from ladder.records import Game, IdempotentRequest, Player, RatingPeriod
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

GAMES, PLAYERS = "/api/v1/games/", "/api/v1/players/"


@pytest.fixture
def pair(db):
    return PlayerFactory(), PlayerFactory()


def game(pair, **extra):
    white, black = pair
    return {"date": "2026-03-04", "white": white.pk, "black": black.pk, "result": "1-0", **extra}


def test_a_retry_with_the_same_key_gets_the_first_answer_and_writes_nothing(editor, pair):
    first = editor.post(GAMES, game(pair), format="json", headers={"Idempotency-Key": "k-1"})
    retry = editor.post(GAMES, game(pair), format="json", headers={"Idempotency-Key": "k-1"})
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry["Idempotent-Replayed"] == "true"
    assert Game.objects.count() == 1


def test_without_a_key_a_resent_game_is_a_duplicate(editor, pair):
    assert editor.post(GAMES, game(pair), format="json").status_code == 201
    again = editor.post(GAMES, game(pair), format="json")
    assert again.status_code == 409  # a conflict with what is recorded, not a bad request
    assert "already recorded" in str(again.json())


def test_a_player_posted_twice_with_one_key_is_added_once(editor):
    body = {"name": "Ada Lovelace", "entry_rating": 1650}
    for _ in range(3):
        response = editor.post(PLAYERS, body, format="json", headers={"Idempotency-Key": "ada"})
        assert response.status_code == 201
    assert Player.objects.filter(name="Ada Lovelace").count() == 1


def test_the_same_key_for_another_request_is_refused(editor, pair):
    editor.post(GAMES, game(pair), format="json", headers={"Idempotency-Key": "k-2"})
    other = editor.post(GAMES, game(pair, round="2"), format="json",
                        headers={"Idempotency-Key": "k-2"})  # fmt: skip
    assert other.status_code == 422
    assert "use a new key" in other.json()["Idempotency-Key"][0]
    assert Game.objects.count() == 1


def test_a_refused_request_is_not_stored_and_its_retry_is_checked_again(editor, pair):
    bad = game(pair, result="2-0")
    headers = {"Idempotency-Key": "k-3"}
    assert editor.post(GAMES, bad, format="json", headers=headers).status_code == 400
    assert not IdempotentRequest.objects.exists()
    assert editor.post(GAMES, bad, format="json", headers=headers).status_code == 400


def test_keys_are_per_user(editor, admin_user, pair):
    from rest_framework.test import APIClient

    other = APIClient()
    other.force_authenticate(admin_user)
    headers = {"Idempotency-Key": "same"}
    assert editor.post(GAMES, game(pair), format="json", headers=headers).status_code == 201
    second = other.post(GAMES, game(pair, round="2"), format="json", headers=headers)
    assert second.status_code == 201
    assert Game.objects.count() == 2


def test_a_close_retried_with_its_key_answers_the_same(editor):
    period = GameFactory().period
    headers = {"Idempotency-Key": "close-march"}
    url = f"/api/v1/periods/{period.pk}/close/"
    first = editor.post(url, format="json", headers=headers)
    retry = editor.post(url, format="json", headers=headers)
    assert first.status_code == retry.status_code == 200
    assert RatingPeriod.objects.get(pk=period.pk).log.count() == 1


@pytest.mark.parametrize("key", ["", "x" * 201, "bad\x01key"])
def test_a_key_that_is_no_key_is_refused(editor, pair, key):
    response = editor.post(GAMES, game(pair), format="json", headers={"Idempotency-Key": key})
    assert response.status_code == 400
    assert not Game.objects.exists()
