"""A small club that plays on the three lists every month, for the replay's tests that compare
two ways of writing the same ratings (read ahead or not, with the index by player or not)."""

from __future__ import annotations

from datetime import date

from ladder.records import Game, Player, RatingPeriod
from tests.factories import PlayerFactory, UnratedPlayerFactory

MONTHS = [date(2026, month, 1) for month in (1, 2, 3, 4)]


def three_list_club(rated: int, step: int) -> list[Player]:
    """``rated`` players rated from 1500 by ``step`` and four newcomers, each of whom plays a
    game on each list in each of ``MONTHS``: four periods of games on three lists."""
    players = [PlayerFactory(entry_rating=1500 + step * i) for i in range(rated)]
    players += [UnratedPlayerFactory() for _ in range(4)]
    games = []
    for m, start in enumerate(MONTHS):
        period = RatingPeriod.objects.for_date(start)
        for i, white in enumerate(players):
            for shift, rating_list in ((1, "standard"), (3, "rapid"), (5, "blitz")):
                black = players[(i + shift + m) % len(players)]
                result = ("1-0", "0-1", "1/2-1/2")[(i + m + shift) % 3]
                games.append(
                    Game(date=start.replace(day=1 + i), white=white, black=black, result=result,
                         period=period, rating_list=rating_list, event=f"Open {shift}")
                )  # fmt: skip
    Game.objects.bulk_create(games)
    return players
