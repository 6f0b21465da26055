"""A small club for the preview tests of every door (action, admin, round entry, API).

Ann 1800, Ben 1700, Cy 1600 (K 20). October 2026: Ann beat Ben, Ben drew Cy; November: Ann
beat Cy. Both periods closed, then October reopened: its first game was entered reversed.
Hand-checked: 1800 v 1700 is D = 100, PD 0.64 / 0.36. As entered Ann won, 20 x 0.36 = +7.2,
so +7 (1807); reversed she loses 20 x (0 - 0.64) = -12.8, so -13 (1787); Ben's change moves
by 20 the other way.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth import get_user_model

from ladder.records import Game, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory


def reopened_october(committed: Any) -> dict[str, Any]:
    """Make the club; return its players, October's first game and a superuser."""
    ann, ben, cy = (PlayerFactory(name=n, entry_rating=r) for n, r in
                    (("Ann", 1800), ("Ben", 1700), ("Cy", 1600)))  # fmt: skip
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 10, 6), white=ann, black=ben, result="1-0"),
                GameEntry(date=date(2026, 10, 8), white=ben, black=cy, result="1/2-1/2"),
                GameEntry(date=date(2026, 11, 3), white=ann, black=cy, result="1-0"),
            ]
        )
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    october, november = RatingPeriod.objects.order_by("start")
    with committed():
        actions.close_period(period=october, user=user)
        actions.close_period(period=november, user=user)
        actions.reopen_period(period=october, reason="Round 1 was entered reversed.", user=user)
    game = Game.objects.get(date=date(2026, 10, 6))
    return {"ann": ann, "ben": ben, "cy": cy, "game": game, "user": user, "october": october}
