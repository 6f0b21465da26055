"""Closing a period while an administrator changes a player's entry data, with real concurrent
connections on PostgreSQL: the change either waits for the close and is refused (409), or the
close waits for it and publishes it; the list just published always matches the ratings."""

from __future__ import annotations

import threading
import time
from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from ladder.records import Player, RatingPeriod
from ladder.writes import actions
from ratings import selectors
from ratings.models import Publication
from tests.factories import GameFactory, PeriodFactory, PlayerFactory
from tests.ladder.test_races import at_once, equals_a_full_recompute

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="races are run on PostgreSQL"),
]


def administrator() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="boss"))
    return client


@pytest.fixture
def march_club():
    """March open with a round of games between 40 players (closing it takes a moment)."""
    get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    players = [PlayerFactory(entry_rating=1500 + 10 * i) for i in range(40)]
    PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    for i in range(0, 40, 2):
        GameFactory(date=date(2026, 3, 3), white=players[i], black=players[i + 1], result="1-0")
    actions.recompute()
    return players


def published_lines(period: RatingPeriod) -> dict[int, tuple[int | None, int]]:
    latest = Publication.objects.filter(period=period, rating_list="standard").latest("revision")
    return {line.player_id: (line.rating, line.change) for line in latest.lines.all()}


def rated_lines(period: RatingPeriod) -> dict[int, tuple[int | None, int]]:
    return {e.player.pk: (e.rating, e.change) for e in selectors.rating_list(period, "standard")}


@pytest.mark.parametrize("attempt", range(3))
def test_closing_while_an_entry_rating_changes_never_lets_the_published_list_drift(
    march_club, attempt
):
    march = RatingPeriod.objects.get(label="2026-03")
    player = march_club[0]
    answers: dict[str, object] = {}

    def close() -> int:
        response = administrator().post(f"/api/v1/periods/{march.pk}/close/", format="json")
        return response.status_code

    def change_entry_rating() -> int:
        url = f"/api/v1/players/{player.pk}/"
        response = administrator().patch(url, {"entry_rating": 2222}, format="json")
        answers["patch"] = response.json()
        return response.status_code

    closed, changed = at_once(close, change_entry_rating)

    assert closed == HTTPStatus.OK
    assert changed in (HTTPStatus.OK, HTTPStatus.CONFLICT)
    stored = Player.objects.get(pk=player.pk).entry_rating
    if changed == HTTPStatus.CONFLICT:
        # The close came first: the change is refused, saying how to make it, and not stored.
        message = (
            f"{player.name} has standard games in the published list of 2026-03, which their "
            "entry data shape; reopen it first (admin action 'Reopen', or: manage.py "
            "reopen_period 2026-03 --reason '...') to change them."
        )
        assert answers["patch"] == {"entry_rating": [message]}
        assert stored == 1500
    else:
        assert stored == 2222  # the close waited for it and published it
    assert equals_a_full_recompute()
    assert published_lines(march) == rated_lines(march)
    assert Publication.objects.filter(period=march, rating_list="standard").count() == 1


def test_closing_after_the_change_publishes_it(march_club):
    """The serial baseline: a change committed before the close is on the published list."""
    march = RatingPeriod.objects.get(label="2026-03")
    player = march_club[0]
    url = f"/api/v1/players/{player.pk}/"
    assert administrator().patch(url, {"entry_rating": 2222}, format="json").status_code == 200
    actions.close_period(period=march)
    assert published_lines(march)[player.pk][0] == rated_lines(march)[player.pk][0]
    assert published_lines(march) == rated_lines(march)


def test_a_close_waits_for_an_entry_change_in_flight_and_publishes_it(march_club):
    """The other order, made certain: the change holds its transaction open while the close
    starts; the close waits for its commit, then rates and publishes it."""
    march = RatingPeriod.objects.get(label="2026-03")
    player = march_club[0]
    saved, release = threading.Event(), threading.Event()

    def change() -> None:
        try:
            with transaction.atomic():
                stored = Player.objects.get(pk=player.pk)
                stored.entry_rating = 2222
                actions.save_player(player=stored)
                saved.set()
                release.wait(30)
        finally:
            connections.close_all()

    def close() -> None:
        try:
            saved.wait(30)
            actions.close_period(period=march)
        finally:
            connections.close_all()

    changing, closing = threading.Thread(target=change), threading.Thread(target=close)
    changing.start()
    closing.start()
    assert saved.wait(30)
    time.sleep(1)
    assert closing.is_alive()  # waiting for the change to commit
    release.set()
    changing.join(60)
    closing.join(60)

    assert Player.objects.get(pk=player.pk).entry_rating == 2222
    assert RatingPeriod.objects.get(pk=march.pk).is_closed
    assert equals_a_full_recompute()
    assert published_lines(march) == rated_lines(march)
