"""The pure rules against FIDE.md, article by article, and its worked examples (no database)."""

from datetime import date
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.rules import fide
from ratings.rules.fide import UNIT

WIN, DRAW, LOSS = UNIT, UNIT // 2, 0


def units(score):
    return {1: WIN, 0.5: DRAW, 0: LOSS}[score]


# --- table 8.1.2 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("difference", "expected"),
    [
        (0, "0.50"), (3, "0.50"), (4, "0.51"), (10, "0.51"), (11, "0.52"), (76, "0.60"),
        (77, "0.61"), (400, "0.92"), (411, "0.92"), (412, "0.93"), (735, "0.99"),
        (736, "1.00"), (2000, "1.00"), (-3, "0.50"), (-4, "0.49"), (-400, "0.08"),
        (-736, "0.00"),
    ],
)  # fmt: skip
def test_expected_score_reads_table_8_1_2(difference, expected):
    assert fide.expected_score(difference) == Decimal(expected)


@settings(max_examples=100)  # pure and fast: not the profile's count
@given(st.integers(-3000, 3000))
def test_expected_scores_of_both_sides_add_to_one(difference):
    assert fide.expected_units(difference) + fide.expected_units(-difference) == UNIT


@settings(max_examples=100)  # pure and fast: not the profile's count
@given(st.integers(0, 3000), st.integers(0, 3000))
def test_expected_score_never_falls_as_the_difference_grows(a, b):
    low, high = sorted((a, b))
    assert fide.expected_units(low) <= fide.expected_units(high)


# --- 8.3.1 the 400-point rule --------------------------------------------------------------


def test_400_point_rule_caps_below_2650():
    assert fide.difference_used(2100, 1500, exemption=True) == 400
    assert fide.difference_used(1500, 2100, exemption=True) == -400


def test_players_rated_2650_use_the_real_difference_from_october_2025():
    assert fide.difference_used(2700, 2200, exemption=True) == 500
    assert fide.difference_used(2700, 2200, exemption=False) == 400
    # the opponent below 2650 still caps: one game, two different D values
    assert fide.difference_used(2200, 2700, exemption=True) == -400


def test_rule_set_is_chosen_by_the_period_start():
    assert not fide.cap_exemption_in_force(date(2025, 9, 1))
    assert fide.cap_exemption_in_force(date(2025, 10, 1))


# --- 8.3.3 K and the 700 rule --------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "value", "reason"),
    [
        ({"peak_rating": 2405, "rated_games": 5, "birth_year": 2012}, 10, "2400+"),
        ({"peak_rating": 1900, "rated_games": 300, "birth_year": 2011}, 40, "junior, born 2011"),
        ({"peak_rating": 2310, "rated_games": 10, "birth_year": 2011}, 40, "fewer than 30"),
        ({"peak_rating": 2310, "rated_games": 100, "birth_year": 2011}, 20, "never 2400+"),
        ({"peak_rating": 1900, "rated_games": 29, "birth_year": 1980}, 40, "fewer than 30"),
        ({"peak_rating": 1900, "rated_games": 30, "birth_year": 1980}, 20, "30 rated games"),
        ({"peak_rating": 1900, "rated_games": 300, "birth_year": 2008}, 40, "junior"),
        ({"peak_rating": 1900, "rated_games": 300, "birth_year": 2007}, 20, ""),
    ],
)
def test_k_factor_precedence(kwargs, value, reason):
    k = fide.k_factor(year=2026, **kwargs)
    assert k.value == value
    assert reason in k.reason


def test_club_k_replaces_eligibility():
    assert fide.k_factor(peak_rating=2500, rated_games=9, birth_year=None, year=2026, club_k=32)\
        .value == 32  # fmt: skip


@pytest.mark.parametrize(
    ("k", "games", "applied"),
    [(40, 17, 40), (40, 18, 38), (20, 35, 20), (20, 36, 19), (10, 70, 10), (10, 71, 9),
     (40, 0, 40)],
)  # fmt: skip
def test_700_rule(k, games, applied):
    assert fide.k_applied(k, games) == applied


# --- rounding ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "rounded"),
    [(25000, 3), (-25000, -3), (24999, 2), (-24999, -2), (144000, 14), (5000, 1), (-5000, -1),
     (0, 0), (4999, 0)],
)  # fmt: skip
def test_one_rounding_half_away_from_zero(amount, rounded):
    assert fide.round_units(amount) == rounded


# --- worked examples -----------------------------------------------------------------------


def test_example_a_400_point_rule_both_ways_k20():
    games = [(1420, 1), (2310, 0.5), (1790, 1), (1905, 0), (1880, 0.5), (1600, 1), (2000, 0),
             (1845, 0.5), (1700, 1)]  # fmt: skip
    result = fide.event_calculation(1850, [(r, units(s)) for r, s in games], k=20)
    assert [line.difference_used for line in result.lines] == [
        400,
        -400,
        60,
        -55,
        -30,
        250,
        -150,
        5,
        150,
    ]
    assert [str(line.expected) for line in result.lines] == [
        "0.92", "0.08", "0.58", "0.42", "0.46", "0.81", "0.30", "0.51", "0.70"
    ]  # fmt: skip
    assert result.delta == Decimal("0.72")
    assert result.change_exact == Decimal("14.40")
    assert result.change == 14
    assert result.rating_after == 1864


def test_example_b_junior_700_rule_negative_half():
    games = [(1550, 1), (1720, 0), (1480, 1), (1670, 0), (1610, 0), (1905, 0), (1530, 1),
             (1575, 0.5), (1640, 0), (1400, 1), (1660, 0.5), (1700, 0), (1590, 1), (1620, 0),
             (1555, 0.5), (1810, 0), (1500, 1), (1680, 0), (1610, 0.5), (1450, 1)]  # fmt: skip
    k = fide.k_factor(peak_rating=1600, rated_games=100, birth_year=2010, year=2026)
    assert k.value == 40
    result = fide.event_calculation(1600, [(r, units(s)) for r, s in games], k=k.value)
    assert result.k_applied == 35
    assert result.delta == Decimal("-0.70")
    assert result.change_exact == Decimal("-24.50")
    assert result.change == -25
    assert result.rating_after == 1575


def test_example_c_k10_for_good_half_away_from_zero():
    k = fide.k_factor(peak_rating=2401, rated_games=400, birth_year=1970, year=2026)
    assert k.value == 10
    games = [(2385, 0.5), (2450, 0.5), (2310, 0.5), (2600, 0), (2255, 1), (2420, 0)]
    result = fide.event_calculation(2395, [(r, units(s)) for r, s in games], k=k.value)
    assert result.delta == Decimal("-0.45")
    assert result.change_exact == Decimal("-4.50")
    assert result.change == -5
    assert result.rating_after == 2390


def test_example_d_first_rating_pool():
    result = fide.first_rating([1650, 1720, 1580, 1810, 1500, 1690, 1755], Fraction(4))
    assert result.average == Decimal("1700.56")
    assert (result.p, result.dp, result.rating, result.published) == (56, 43, 1744, True)


def test_example_e_the_2200_maximum():
    result = fide.first_rating([2050, 2150, 2100, 2080, 2120], Fraction(5))
    assert result.average == Decimal("2014.29")
    assert (result.p, result.dp, result.rating) == (86, 309, 2200)


def test_first_rating_needs_five_games_and_1400():
    assert fide.first_rating([1500] * 4, Fraction(4)) is None
    low = fide.first_rating([1400] * 5, Fraction(0))
    assert not low.published
    assert low.rating < 1400


def test_example_f_classic_elo():
    assert fide.elo_expected_units(1500, 1600) == 3599
    k20 = fide.outcomes(1500, 1600, k=20, method=fide.METHOD_ELO, apply_cap=False)
    assert [k20[o].change_exact for o in ("win", "draw", "loss")] == [
        Decimal("12.8020"), Decimal("2.8020"), Decimal("-7.1980")
    ]  # fmt: skip
    assert [k20[o].change for o in ("win", "draw", "loss")] == [13, 3, -7]
    k32 = fide.outcomes(1500, 1600, k=32, method=fide.METHOD_ELO, apply_cap=False)
    assert [round(k32[o].change_exact, 2) for o in ("win", "draw", "loss")] == [
        Decimal("20.48"), Decimal("4.48"), Decimal("-11.52")
    ]  # fmt: skip


# --- dp, performance, levels, inactivity ---------------------------------------------------


def test_dp_is_symmetric():
    assert fide.dp(100) == 800
    assert fide.dp(0) == -800
    assert fide.dp(44) == -43
    with pytest.raises(ValueError, match="between 0 and 100"):
        fide.dp(101)


def test_performance_rating():
    assert fide.performance_rating(4 * 1800, 4, 2 * UNIT) == 1800
    assert fide.performance_rating(2 * 2000, 2, 2 * UNIT) == 2800
    # 3 of 4 against 1800: p .75 -> dp 193; 2.5 of 3 against 2000: p .83 -> dp 273
    assert fide.performance_rating(4 * 1800, 4, 3 * UNIT) == 1993
    assert fide.performance_rating(3 * 2000, 3, 5 * UNIT // 2) == 2273
    assert fide.performance_rating(0, 0, 0) is None


@pytest.mark.parametrize(
    ("rating", "level"),
    [(2199, ""), (2200, "CM level"), (2300, "FM level"), (2400, "IM level"),
     (2500, "GM level"), (None, "")],
)  # fmt: skip
def test_levels_are_never_titles(rating, level):
    assert fide.rating_level(rating) == level


def test_inactive_after_twelve_months():
    assert not fide.is_inactive(date(2025, 12, 1), date(2026, 11, 30))
    assert fide.is_inactive(date(2025, 11, 30), date(2026, 11, 30))
    assert not fide.is_inactive(None, date(2026, 11, 30))


def test_add_months_clamps_to_month_end():
    assert fide.add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)
    assert fide.add_months(date(2026, 1, 15), -26) == date(2023, 11, 15)


@settings(max_examples=100)  # pure and fast: not the profile's count
@given(
    st.lists(st.integers(0, 3500), min_size=5, max_size=40),
    st.data(),
)
def test_first_rating_in_whole_numbers_equals_the_exact_formula(opponents, data):
    points = Fraction(data.draw(st.integers(0, 2 * len(opponents))), 2)
    found = fide.first_rating(opponents, points)
    n = len(opponents)
    ra = Fraction(sum(opponents) + 3600, n + 2)
    p = fide.percentage_hundredths((points + 1) / (n + 2))
    assert found.p == p
    assert found.rating == min(fide.round_half_away(ra + fide.dp(p)), 2200)
    assert found.average == (Decimal(ra.numerator) / Decimal(ra.denominator)).quantize(
        Decimal("0.01")
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(1000, 2900)),
            st.integers(0, 200),
            st.one_of(st.none(), st.integers(1940, 2020)),
        ),
        max_size=30,
    ),
    st.integers(2000, 2040),
    st.one_of(st.none(), st.integers(1, 100)),
)
def test_k_factors_over_columns_are_k_factor_for_each_player(players, year, club_k):
    """The columns' K and reasons (a full recompute's) equal each player's ``k_factor``."""
    peak, games, born = (
        np.array([-1 if v is None else v for v in column], np.int64).reshape(len(players))
        for column in (zip(*players, strict=True) if players else ((), (), ()))
    )
    values, reasons = fide.k_factors(
        peak_rating=peak, rated_games=games, birth_year=born, year=year, club_k=club_k
    )
    expected = [
        fide.k_factor(peak_rating=p, rated_games=g, birth_year=b, year=year, club_k=club_k)
        for p, g, b in players
    ]
    assert [fide.KFactor(v, r) for v, r in zip(values.tolist(), reasons, strict=True)] == expected
