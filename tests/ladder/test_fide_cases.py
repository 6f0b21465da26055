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


@pytest.mark.parametrize(
    ("month", "lev"),
    [
        # Before 1 July 2009: 2000 (40 games, K 15) beats 2400 (K 10). The gap of 400 counts
        # as 350 (PD .89 / .11): +15 x .89 = +13.35 -> +13; -10 x .89 = -8.9 -> -9.
        ("2009-03", (15, 13, 2013)),
        # Today: the gap counts as 400 (PD .92 / .08) and K is 20: +20 x .92 = +18.4 -> +18;
        # -10 x .92 = -9.2 -> -9.
        ("2026-03", (20, 18, 2018)),
    ],
)
def test_one_game_under_the_rules_of_its_day(committed, month, lev):
    low = PlayerFactory(name="Lev Low", entry_rating=2000, entry_rated_games=40)
    high = PlayerFactory(name="Hal High", entry_rating=2400, entry_rated_games=40)
    line = f"{month}-10,Lev Low,Hal High,1-0,Spring Open,{month}-10,{month}-11\n"
    with committed():
        csv_import.import_games(StringIO(HEADER + line))
    period = RatingPeriod.objects.get(label=month)
    won = RatingChange.objects.get(player=low, period=period)
    lost = RatingChange.objects.get(player=high, period=period)
    assert (won.k, won.change, won.rating_after) == lev
    assert (lost.k, lost.change, lost.rating_after) == (10, -9, 2391)
