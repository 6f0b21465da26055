"""FIDE.md 9: the list a time control belongs to, and the standard list's minimum by rating."""

import pytest

from ratings.rules import fide


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3+2", "blitz"),  # 3 + 2 = 5 minutes for 60 moves
        ("10", "blitz"),  # exactly 10: blitz
        ("5+5", "blitz"),  # 5 + 5 = 10
        ("10+1", "rapid"),  # 11
        ("15+10", "rapid"),
        ("59", "rapid"),  # less than 60
        ("45+14", "rapid"),  # 59
        ("60", "standard"),  # exactly 60: standard
        ("45+15", "standard"),  # 60
        ("90+30", "standard"),
    ],
)
def test_the_list_of_a_time_control_at_every_boundary(text, expected):
    assert fide.list_of(fide.parse_time_control(text)) == expected


@pytest.mark.parametrize("text", ["", "abc", "90+", "+30", "0", "0+5", "90/40", "1000+0", "²"])
def test_a_time_control_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError, match="is not a time control"):
        fide.parse_time_control(text)


def test_time_controls_read_spaces_and_print_plainly():
    assert str(fide.parse_time_control(" 90 + 30 ")) == "90+30"
    assert fide.parse_time_control("60").minutes_for_60_moves == 60


@pytest.mark.parametrize(
    ("ratings", "minutes"),
    [
        ((None, None), 60),
        ((1799, 1500), 60),
        ((1800, None), 90),
        ((2399, 1000), 90),
        ((2400, 1400), 120),
        ((1500, 2700), 120),
    ],
)
def test_standard_games_need_more_time_as_ratings_rise(ratings, minutes):
    assert fide.standard_minutes_needed(ratings)[0] == minutes
