"""Fixtures for the pages' tests: the FIDE worked example A and ladders of any size."""

from datetime import date

import pytest

from ladder.records import Result
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

# FIDE.md 8 A: Ro 1850, K 20, nine games (opponent, score).
EXAMPLE_A = [
    (1420, "1"), (2310, "½"), (1790, "1"), (1905, "0"), (1880, "½"),
    (1600, "1"), (2000, "0"), (1845, "½"), (1700, "1"),
]  # fmt: skip
RESULT = {"1": Result.WHITE_WIN, "½": Result.DRAW, "0": Result.BLACK_WIN}


@pytest.fixture
def example_a(committed):
    """Return the player of worked example A after the on-commit recompute has run."""
    with committed():
        hero = PlayerFactory(
            name="Ada Example", entry_rating=1850, entry_rated_games=50, birth_year=1980
        )
        for number, (rating, score) in enumerate(EXAMPLE_A):
            opponent = PlayerFactory(name=f"Opponent {rating}", entry_rating=rating)
            GameFactory(
                white=hero, black=opponent, result=RESULT[score], date=date(2026, 3, 2 + number)
            )
    hero.refresh_from_db()
    return hero


@pytest.fixture
def build_ladder(committed):
    """Return a function making a ladder of ``size`` rated players with games, plus unrated."""

    def build(size: int):
        with committed():
            players = [
                PlayerFactory(entry_rating=1500 + 10 * i, fide_id=100_000 + i) for i in range(size)
            ]
            for i in range(size):
                GameFactory(
                    white=players[i],
                    black=players[(i + 1) % size],
                    result=Result.DRAW if i % 3 else Result.WHITE_WIN,
                    date=date(2026, 2 + i % 2, 5),
                )
            UnratedPlayerFactory.create_batch(size // 2 + 1)
        return players

    return build
