"""The period's admin pages list its published lists and every revision, player by player."""

import re
from datetime import date
from html import unescape

import pytest

from ladder.records import Game, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    html = response.content.decode()
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


@pytest.fixture
def revised(committed, club_admin):
    """March published, then revised after a result entered reversed."""
    ann = PlayerFactory(name="Ann Able", entry_rating=1800, entry_rated_games=50)
    ben = PlayerFactory(name="Ben Best", entry_rating=1700, entry_rated_games=50)
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 3, 2), white=ann, black=ben, result="1-0")]
        )
    march = RatingPeriod.objects.get(label="2026-03")
    actions.close_period(period=march, user=club_admin)
    actions.reopen_period(period=march, reason="Round 1 was entered reversed.", user=club_admin)
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=march, user=club_admin)
    return march


@pytest.mark.parametrize("path", ["change", "history"])
def test_period_pages_list_publications_and_revisions(admin_client, revised, path):
    response = admin_client.get(f"/admin/ladder/ratingperiod/{revised.pk}/{path}/")
    assert response.status_code == 200
    text = text_of(response)
    assert "Published lists of 2026-03" in text
    assert "Standard list" in text
    assert "1 (as first published)" in text
    assert "clubadmin closed 0" in text
    assert "clubadmin Round 1 was entered reversed. 2" in text
    assert "Ann Able : 1807 → 1787; +7 → -13" in text
    assert "Ben Best : 1693 → 1713; -7 → +13" in text


def test_an_open_period_never_published_says_so(admin_client, committed):
    ann, ben = PlayerFactory(), PlayerFactory()
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 5, 2), white=ann, black=ben, result="1-0")]
        )
    may = RatingPeriod.objects.get(label="2026-05")
    text = text_of(admin_client.get(f"/admin/ladder/ratingperiod/{may.pk}/change/"))
    assert "Not published yet: a period's lists are published when it closes." in text
