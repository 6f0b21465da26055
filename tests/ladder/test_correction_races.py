"""Two administrators correcting one closed period at once, with real concurrent connections on
PostgreSQL: both corrections are rated, the revision lists both, nothing is lost, never a 500."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from ladder.records import Game, PeriodLog, PeriodStatus, RatingPeriod
from ladder.writes import actions
from ratings.models import Publication
from tests.factories import GameFactory, PeriodFactory, PlayerFactory
from tests.ladder.test_races import at_once, equals_a_full_recompute

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="races are run on PostgreSQL"),
]


def administrator(name: str) -> APIClient:
    client = APIClient()
    user = get_user_model().objects.filter(username=name).first()
    client.force_authenticate(user or get_user_model().objects.create_superuser(name))
    return client


@pytest.fixture
def closed_club():
    """March and April closed (published); March's two games are about to be corrected."""
    ann, ben, cy, dee, eve = (PlayerFactory(entry_rating=r) for r in (1900, 1800, 1700, 1600, 1500))
    march = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    april = PeriodFactory(start=date(2026, 4, 1), end=date(2026, 4, 30))
    first = GameFactory(date=date(2026, 3, 3), white=ann, black=ben, result="1-0")
    second = GameFactory(date=date(2026, 3, 4), white=cy, black=dee, result="1-0")
    GameFactory(date=date(2026, 4, 5), white=ann, black=eve, result="1/2-1/2")
    GameFactory(date=date(2026, 4, 6), white=dee, black=eve, result="1/2-1/2")
    for name in ("ann_admin", "bob_admin"):
        administrator(name)
    for period in (march, april):
        actions.close_period(period=period)
    return {"march": march, "april": april, "games": (first, second),
            "players": (ann, ben, cy, dee, eve)}  # fmt: skip


@pytest.mark.parametrize("attempt", range(2))
def test_two_corrections_of_one_reopened_period_at_once_are_both_rated_and_published(
    closed_club, attempt
):
    march = closed_club["march"]
    actions.reopen_period(period=march, reason="Two results were entered reversed.")
    first, second = closed_club["games"]

    def correct(name: str, game: Game) -> Callable[[], int]:
        url = f"/api/v1/games/{game.pk}/"
        return lambda: administrator(name).patch(url, {"result": "0-1"}, format="json").status_code

    assert at_once(correct("ann_admin", first), correct("bob_admin", second)) == [200, 200]
    actions.close_period(period=RatingPeriod.objects.get(pk=march.pk))

    assert set(
        Game.objects.filter(pk__in=[first.pk, second.pk]).values_list("result", flat=True)
    ) == {"0-1"}
    assert equals_a_full_recompute()
    revision = Publication.objects.get(period=march, rating_list="standard", revision=2)
    ann, ben, cy, dee, _eve = closed_club["players"]
    assert {row[0] for row in revision.differences} == {ann.pk, ben.pk, cy.pk, dee.pk}
    assert revision.reason == "Two results were entered reversed."
    later = Publication.objects.get(period=closed_club["april"], rating_list="standard", revision=2)
    assert later.corrected_in == march
    # April's list carries both corrections forward (and may move Eve, who met Ann and Dee).
    assert {ann.pk, ben.pk, cy.pk, dee.pk} <= {row[0] for row in later.differences}


@pytest.mark.parametrize("attempt", range(3))
def test_two_administrators_reopening_one_period_at_once_get_one_reopen_and_a_clear_error(
    closed_club, attempt
):
    url = f"/api/v1/periods/{closed_club['march'].pk}/reopen/"
    answers: list = [None, None]

    def reopen(index: int, name: str) -> Callable[[], int]:
        def call() -> int:
            response = administrator(name).post(url, {"reason": f"By {name}."}, format="json")
            answers[index] = response.json()
            return response.status_code

        return call

    statuses = at_once(reopen(0, "ann_admin"), reopen(1, "bob_admin"))

    assert sorted(statuses) == [HTTPStatus.OK, HTTPStatus.CONFLICT]  # already open: a conflict
    refused = answers[statuses.index(HTTPStatus.CONFLICT)]
    assert refused == {"non_field_errors": ["The period 2026-03 is already open."]}
    assert PeriodLog.objects.filter(action=PeriodLog.Action.REOPENED).count() == 1
    assert RatingPeriod.objects.get(label="2026-03").status == PeriodStatus.OPEN
