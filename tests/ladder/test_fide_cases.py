"""FIDE's calculations as they were, reproduced through an ordinary door (a CSV file with
tournament dates), under ``LADDER_RULES=by-date`` (the default): the rule set in force when a
tournament started rates it (FIDE.md 10.2), not today's."""

from __future__ import annotations

from io import StringIO

import pytest

from ladder.files import csv_import
from ladder.records import RatingPeriod
from ratings.models import RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

HEADER = "date,white,black,result,tournament,start,end\n"


def test_march_2009_the_350_point_cap_and_k_15(committed):
    """Before 1 July 2009: 2000 (40 games, K 15) beats 2400 (K 10). The gap of 400 counts as
    350 (PD .89 / .11): +15 x .89 = +13.35 -> +13 and -10 x .89 = -8.9 -> -9. Today's rules
    would give +18 (400 cap: PD .92, K 20) and -9."""
    low = PlayerFactory(name="Lev Low", entry_rating=2000, entry_rated_games=40)
    high = PlayerFactory(name="Hal High", entry_rating=2400, entry_rated_games=40)
    with committed():
        csv_import.import_games(
            StringIO(HEADER + "2009-03-10,Lev Low,Hal High,1-0,Spring Open,2009-03-10,2009-03-11\n")
        )
    march = RatingPeriod.objects.get(label="2009-03")
    lev = RatingChange.objects.get(player=low, period=march)
    hal = RatingChange.objects.get(player=high, period=march)
    assert (lev.k, lev.change, lev.rating_after) == (15, 13, 2013)
    assert (hal.k, hal.change, hal.rating_after) == (10, -9, 2391)


def test_the_same_game_in_march_2026_with_todays_rules(committed):
    low = PlayerFactory(name="Lev Low", entry_rating=2000, entry_rated_games=40)
    high = PlayerFactory(name="Hal High", entry_rating=2400, entry_rated_games=40)
    with committed():
        csv_import.import_games(
            StringIO(HEADER + "2026-03-10,Lev Low,Hal High,1-0,Spring Open,2026-03-10,2026-03-11\n")
        )
    march = RatingPeriod.objects.get(label="2026-03")
    lev = RatingChange.objects.get(player=low, period=march)
    hal = RatingChange.objects.get(player=high, period=march)
    assert (lev.k, lev.change, lev.rating_after) == (20, 18, 2018)
    assert (hal.k, hal.change, hal.rating_after) == (10, -9, 2391)
