"""The what-if preview never hands a missing rating or K to the event calculation."""

from datetime import date

import pytest

from ratings import selectors
from ratings.models import RatingChange, Status
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_this_period(committed):
    me = PlayerFactory(entry_rating=1850, entry_rated_games=100)
    with committed():
        GameFactory(date=date(2026, 3, 1), white=me, black=PlayerFactory(), result="1-0")
    me.refresh_from_db()
    return me


def test_what_if_starts_from_the_rated_row_of_the_open_period(rated_this_period):
    row = RatingChange.objects.get(player=rated_this_period)
    assert (row.status, row.rating_before, row.k) == (Status.RATED, 1850, 20)
    outcomes = selectors.what_if(rated_this_period, 1850)
    assert outcomes is not None
    assert outcomes["draw"].k == 20
    assert len(outcomes["draw"].lines) == 2  # the game already played and the one previewed


@pytest.mark.parametrize("blank", ["k", "rating_before"])
def test_what_if_gives_no_preview_from_a_rated_row_with_a_blank(rated_this_period, blank):
    # The engine never writes such a row; the nullable columns allow one, and the preview must
    # not turn it into a TypeError inside fide.event_calculation.
    RatingChange.objects.filter(player=rated_this_period).update(**{blank: None})
    assert selectors.what_if(rated_this_period, 1850) is None
