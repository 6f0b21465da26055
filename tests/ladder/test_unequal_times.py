"""Time controls for each player (FIDE.md 9a, 10.1): a rapid or blitz game whose players had
different times is not rated (R&B 1.2); a standard game needs the minimum for each player."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import ValidationError

from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair():
    return PlayerFactory(entry_rating=1700), PlayerFactory(entry_rating=1750)


def enter(pair, control: str):
    white, black = pair
    entry = GameEntry(date=date(2026, 3, 4), white=white, black=black, result="1-0",
                      time_control=control)  # fmt: skip
    return actions.enter_games(games=[entry])[0]


@pytest.mark.parametrize("control", ["15+10/10+10", "5+3/3+3"])
def test_a_rapid_or_blitz_game_with_different_times_is_refused_with_the_rule(pair, control):
    white, black = control.split("/")
    with pytest.raises(ValidationError) as error:
        enter(pair, control)
    assert error.value.message_dict["time_control"] == [
        f"White had {white} and Black {black}: FIDE does not rate a rapid or blitz game whose "
        "players have different times (Rapid and Blitz regulations 1.2)."
    ]


def test_equal_times_written_twice_are_one_time_control(pair):
    game = enter(pair, "3+2/3+2")
    assert (game.rating_list, game.time_control) == ("blitz", "3+2")


def test_a_standard_odds_game_is_kept_with_both_times_when_each_has_the_minimum(pair):
    game = enter(pair, "120+30/60+30")  # the faster side has 90 minutes for 60 moves
    assert (game.rating_list, game.time_control) == ("standard", "120+30/60+30")


def test_a_standard_odds_game_too_fast_for_one_player_is_refused(pair):
    with pytest.raises(ValidationError) as error:
        enter(pair, "120+30/45+0")
    assert "45+0" in error.value.message_dict["time_control"][0]
