"""FIDE's rules through the years (FIDE.md 9, 9a, 10.2) as data: eras, adjustments (no database)."""

from datetime import date, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.rules import eras, fide

STANDARD, RAPID, BLITZ = fide.LIST_STANDARD, fide.LIST_RAPID, fide.LIST_BLITZ
DAY = timedelta(days=1)


def k_of(rules, **state):
    player = {"peak_rating": 1800, "rated_games": 100, "birth_year": 1980, "year": 2020}
    return rules.k_factor(**(player | state)).value


# --- each era: its first day, and the day before it ----------------------------------------

# (first day, list, the rule, its value from that day, its value the day before)
BOUNDARIES = [
    (date(2009, 7, 1), STANDARD, "difference_cap", 400, 350),
    (date(2009, 7, 1), STANDARD, "floor", 1200, 1400),
    (date(2011, 7, 1), STANDARD, "k_new", 30, 25),
    (date(2012, 7, 1), STANDARD, "floor", 1000, 1200),
    (date(2014, 7, 1), STANDARD, "k_new", 40, 30),
    (date(2014, 7, 1), STANDARD, "k_established", 20, 15),
    (date(2014, 7, 1), STANDARD, "seven_hundred", True, False),
    (date(2014, 7, 1), STANDARD, "k_junior", 40, 15),
    (date(2022, 1, 1), STANDARD, "once_per_tournament", True, False),
    (date(2022, 1, 1), STANDARD, "k_junior_turning_18", 40, 20),
    (date(2022, 1, 1), STANDARD, "first_rating", "average_plus_20", "performance"),
    (date(2022, 10, 1), RAPID, "k_new", 40, 20),
    (date(2022, 10, 1), BLITZ, "k_established", 20, 20),
    (date(2022, 10, 1), BLITZ, "k_for_good", 10, 20),
    (date(2022, 10, 1), RAPID, "once_per_tournament", True, False),
    (date(2024, 3, 1), STANDARD, "floor", 1400, 1000),
    (date(2024, 3, 1), BLITZ, "floor", 1400, 1000),
    (date(2024, 3, 1), STANDARD, "first_rating", "hypothetical_1800", "average_plus_20"),
    (date(2024, 3, 1), STANDARD, "once_per_tournament", False, True),
    (date(2024, 3, 1), RAPID, "once_per_tournament", False, True),
    (date(2024, 12, 1), RAPID, "six_hundred", True, False),
    (date(2024, 12, 1), BLITZ, "six_hundred", True, False),
    (date(2025, 10, 1), STANDARD, "cap_exemption", True, False),
]

READ = {
    "difference_cap": lambda r: r.difference_cap,
    "floor": lambda r: r.floor.value,
    "k_new": lambda r: k_of(r, rated_games=10),
    "k_established": lambda r: k_of(r),
    "k_for_good": lambda r: k_of(r, peak_rating=2450),
    "k_junior": lambda r: k_of(r, birth_year=2004, year=2020),  # 16 in 2020
    "k_junior_turning_18": lambda r: k_of(r, birth_year=2004, year=2022),
    "seven_hundred": lambda r: r.seven_hundred.value,
    "once_per_tournament": lambda r: r.cap_once_per_tournament,
    "first_rating": lambda r: r.first_rating.value,
    "six_hundred": lambda r: r.six_hundred.value is not None,
    "cap_exemption": lambda r: r.cap_exemption,
}


@pytest.mark.parametrize(("first_day", "rating_list", "rule", "value", "before"), BOUNDARIES)
def test_each_rule_changes_on_its_day(first_day, rating_list, rule, value, before):
    assert READ[rule](eras.rule_set(first_day, rating_list)) == value
    assert READ[rule](eras.rule_set(first_day - DAY, rating_list)) == before


@pytest.mark.parametrize("rating_list", fide.LISTS)
def test_each_set_begins_on_an_effective_date_and_changes_there(rating_list):
    days = eras.effective_dates(rating_list)
    for first_day in days:
        rules = eras.rule_set(first_day, rating_list)
        assert rules.effective_from == first_day
        if first_day > days[0]:
            assert eras.rule_set(first_day - DAY, rating_list) != rules


def test_the_dates_of_the_eras():
    assert eras.effective_dates(STANDARD) == (
        eras.OLDEST,
        date(2009, 7, 1),
        date(2011, 7, 1),
        date(2012, 7, 1),
        date(2014, 7, 1),
        date(2022, 1, 1),
        date(2024, 3, 1),
        date(2025, 10, 1),
    )
    assert (
        eras.effective_dates(RAPID)
        == eras.effective_dates(BLITZ)
        == (
            date(2012, 1, 1),
            date(2022, 1, 1),
            date(2022, 10, 1),
            date(2024, 3, 1),
            date(2024, 12, 1),
        )
    )


# --- each era's values ---------------------------------------------------------------------

# (day, list, K new player / established / once 2400, cap, floor, 700 rule, first rating)
ERAS = [
    (date(2005, 1, 1), STANDARD, (25, 15, 10), 350, 1400, False, "performance"),
    (date(2010, 1, 1), STANDARD, (25, 15, 10), 400, 1200, False, "performance"),
    (date(2012, 1, 1), STANDARD, (30, 15, 10), 400, 1200, False, "performance"),
    (date(2013, 1, 1), STANDARD, (30, 15, 10), 400, 1000, False, "performance"),
    (date(2018, 1, 1), STANDARD, (40, 20, 10), 400, 1000, True, "performance"),
    (date(2023, 1, 1), STANDARD, (40, 20, 10), 400, 1000, True, "average_plus_20"),
    (date(2025, 1, 1), STANDARD, (40, 20, 10), 400, 1400, True, "hypothetical_1800"),
    (date(2026, 1, 1), STANDARD, (40, 20, 10), 400, 1400, True, "hypothetical_1800"),
    (date(2013, 1, 1), RAPID, (20, 20, 20), 400, 1000, True, "performance"),
    (date(2022, 5, 1), BLITZ, (20, 20, 20), 400, 1000, True, "average_plus_20"),
    (date(2023, 1, 1), BLITZ, (40, 20, 10), 400, 1000, True, "average_plus_20"),
    (date(2026, 1, 1), RAPID, (40, 20, 10), 400, 1400, True, "hypothetical_1800"),
]


@pytest.mark.parametrize(("on", "rating_list", "ks", "cap", "floor", "rule_700", "first"), ERAS)
def test_each_era_holds_its_values(on, rating_list, ks, cap, floor, rule_700, first):
    rules = eras.rule_set(on, rating_list)
    new, established, for_good = ks
    assert k_of(rules, rated_games=29) == new
    assert k_of(rules, rated_games=30) == established
    assert k_of(rules, peak_rating=2400) == for_good
    assert rules.difference_cap == cap
    assert rules.floor.value == floor
    assert rules.seven_hundred.value is rule_700
    assert rules.first_rating.value == first
    assert rules.seeded_from_standard.value is (rating_list != STANDARD)


def test_the_350_point_rule_before_july_2009():
    rules = eras.rule_set(date(2009, 6, 30), STANDARD)
    assert rules.difference_used(2100, 1600) == 350
    assert rules.difference_used(1600, 2100) == -350
    assert rules.difference_used(2700, 2200) == 350  # no exemption then
    assert rules.difference_used(1800, 1500) == 300


def test_before_2014_fewer_than_30_games_wins_over_a_2400_peak():
    assert k_of(eras.rule_set(date(2013, 1, 1), STANDARD), peak_rating=2410, rated_games=12) == 30
    assert k_of(eras.rule_set(date(2015, 1, 1), STANDARD), peak_rating=2410, rated_games=12) == 10


@pytest.mark.parametrize(
    ("on", "age", "k"),
    [
        (date(2018, 1, 1), 17, 40), (date(2018, 1, 1), 18, 20),  # 2014-21: under 18 (choice)
        (date(2023, 1, 1), 18, 40), (date(2023, 1, 1), 19, 20),  # 2022: to the year they turn 18
    ],
)  # fmt: skip
def test_juniors(on, age, k):
    rules = eras.rule_set(on, STANDARD)
    assert k_of(rules, birth_year=on.year - age, year=on.year) == k
    assert k_of(rules, birth_year=on.year - age, year=on.year, peak_rating=2300) == 20


@pytest.mark.parametrize(("games", "applied"), [(35, 20), (36, 19), (50, 14)])
def test_rapid_and_blitz_k_20_for_everyone_cut_from_36_games(games, applied):
    rules = eras.rule_set(date(2015, 6, 1), BLITZ)
    assert k_of(rules, rated_games=3, birth_year=2005, year=2015) == 20
    assert rules.k_applied(20, games) == applied


def test_no_700_rule_on_the_standard_list_before_2014():
    assert eras.rule_set(date(2013, 1, 1), STANDARD).k_applied(30, 40) == 30


def test_a_club_k_replaces_eligibility_in_every_era():
    for on in (date(2005, 1, 1), date(2015, 1, 1), date(2026, 1, 1)):
        for rating_list in (STANDARD, RAPID) if on.year > 2012 else (STANDARD,):
            assert k_of(eras.rule_set(on, rating_list), club_k=32) == 32


def test_the_600_point_rule_and_no_2650_exemption_in_rapid_and_blitz():
    rules = eras.rule_set(date(2025, 11, 1), RAPID)
    assert not rules.game_rated(2650, 2050)  # 600 apart, one above 2600
    assert rules.game_rated(2650, 2051)
    assert rules.game_rated(2600, 1900)  # nobody above 2600
    assert rules.difference_used(2700, 2200) == 400  # the cap applies to everyone
    assert eras.rule_set(date(2024, 11, 30), RAPID).game_rated(2650, 2050)
    assert eras.rule_set(date(2025, 11, 1), STANDARD).game_rated(2650, 2050)


def test_no_rapid_or_blitz_list_before_2012():
    with pytest.raises(
        eras.NoRuleSet,
        match="FIDE's blitz list rates games from 1 January 2012; "
        "there are no blitz rules for 31 December 2011.",
    ):
        eras.rule_set(date(2011, 12, 31), BLITZ)
    with pytest.raises(eras.NoRuleSet, match="'bullet' is not a rating list"):
        eras.rule_set(date(2020, 1, 1), "bullet")


# --- the settings FIDE.md leaves open ------------------------------------------------------


def test_the_uncertain_dates_and_the_old_floor_are_settings():
    settings = eras.EraSettings(
        k30_from=date(2011, 1, 1), standard_700_from=date(2013, 7, 1), floor_before_2009=1600
    )
    assert k_of(eras.rule_set(date(2011, 1, 1), STANDARD, settings), rated_games=3) == 30
    assert k_of(eras.rule_set(date(2010, 12, 31), STANDARD, settings), rated_games=3) == 25
    assert eras.rule_set(date(2013, 7, 1), STANDARD, settings).k_applied(30, 40) == 17
    assert eras.rule_set(date(2000, 1, 1), STANDARD, settings).floor.value == 1600
    with pytest.raises(ValueError, match="between 1 July 2009 and 1 July 2014"):
        eras.EraSettings(k30_from=date(2015, 1, 1))


def test_describe_names_each_rule_with_article_and_date():
    lines = {line.name: line for line in eras.rule_set(date(2026, 3, 1), STANDARD).describe()}
    assert set(lines) == {
        "k",
        "seven_hundred",
        "cap",
        "six_hundred",
        "floor",
        "first_rating",
        "seeded_from_standard",
    }
    assert (lines["cap"].article, lines["cap"].since) == ("8.3.1", "1 Oct 2025")
    assert "2650" in lines["cap"].text
    assert (lines["floor"].since, lines["floor"].text[:10]) == ("1 Mar 2024", "floor 1400")
    assert not lines["seven_hundred"].established  # its date is Ladder's choice
    old = {line.name: line for line in eras.rule_set(date(2001, 1, 1), STANDARD).describe()}
    assert old["cap"].since == "before 1 Jul 2009"
    assert not old["floor"].established


# --- the newest set is today's fide.py -----------------------------------------------------

GRID = [
    {"peak_rating": peak, "rated_games": games, "birth_year": born, "year": year}
    for peak in (None, 1500, 2299, 2300, 2399, 2400, 2700)
    for games in (0, 29, 30, 500)
    for born in (None, 1970, 2006, 2007, 2008, 2012)
    for year in (2025, 2026)
]


@pytest.mark.parametrize("rating_list", fide.LISTS)
def test_the_newest_rule_set_is_todays_fide_py(rating_list):
    rules = eras.rule_set(date(2026, 6, 1), rating_list)
    for state in GRID:
        assert rules.k_factor(**state) == fide.k_factor(**state)
    for k, games in ((40, 18), (20, 36), (10, 71), (40, 17)):
        assert rules.k_applied(k, games) == fide.k_applied(k, games)
    assert rules.difference_cap == fide.DIFFERENCE_CAP
    assert rules.floor.value == fide.FLOOR
    assert rules.seven_hundred.value
    assert rules.first_rating.value == eras.FIRST_RATING_HYPOTHETICAL_1800
    exemption = rating_list == STANDARD
    assert rules.cap_exemption is exemption
    for own, opponent in ((2700, 2200), (2649, 2100), (2100, 2700), (1500, 1950), (2000, 2100)):
        used = fide.difference_used(own, opponent, exemption=exemption)
        assert rules.difference_used(own, opponent) == used
    if exemption:
        assert rules.cap.since == fide.CAP_EXEMPTION_FROM


# --- one-off adjustments -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [(1000, 1400), (1600, 1760), (1999, 1999), (1998, 1999), (1997, 1998), (2000, 2000),
     (2500, 2500), (1401, 1641), (1234, 1540)],
)  # fmt: skip
def test_march_2024_raises_ratings_below_2000(before, after):
    (adjustment,) = eras.adjustments_between(date(2024, 3, 1), date(2024, 3, 31), STANDARD)
    assert adjustment.on == date(2024, 3, 1)
    assert adjustment.new_rating(before) == after


@pytest.mark.parametrize(
    ("rating", "standard", "after"),
    [(1500, 1800, 1700), (1700, 1800, 1700), (1699, 1800, 1700), (1750, 1800, 1750),
     (2000, 1800, 2000), (1500, None, 1500)],
)  # fmt: skip
def test_october_2022_raises_rapid_and_blitz_to_standard_less_100(rating, standard, after):
    (adjustment,) = eras.adjustments_between(date(2022, 10, 1), date(2022, 10, 1), BLITZ)
    assert adjustment.uses_standard
    assert adjustment.new_rating(rating, standard=standard) == after


def test_adjustments_between_takes_both_ends_and_the_list():
    every = eras.adjustments_between(date(2000, 1, 1), date(2030, 1, 1), RAPID)
    assert [a.on for a in every] == [date(2022, 10, 1), date(2024, 3, 1)]
    standard = eras.adjustments_between(date(2000, 1, 1), date(2030, 1, 1), STANDARD)
    assert [a.on for a in standard] == [date(2024, 3, 1)]  # the 2022 one is rapid and blitz's
    assert not eras.adjustments_between(date(2024, 2, 1), date(2024, 2, 29), RAPID)
    assert not eras.adjustments_between(date(2024, 3, 2), date(2024, 3, 31), RAPID)
    for adjustment in every:
        assert adjustment.article
        assert adjustment.reason.endswith(".")


@given(st.integers(1000, 1999))
def test_the_2024_rise_keeps_the_order_and_stays_below_2000(rating):
    new = eras.raise_below_2000(rating)
    assert rating <= new < 2000
    assert new >= 1400
    assert eras.raise_below_2000(rating + 1) >= new


# --- properties: one rule set a day, a step function of the date --------------------------

DAYS = st.dates(date(1990, 1, 1), date(2030, 12, 31))


@given(DAYS)
def test_every_day_has_one_standard_set_from_its_last_effective_date(on):
    days = eras.effective_dates(STANDARD)
    begun = max(d for d in days if d <= on)
    rules = eras.rule_set(on, STANDARD)
    assert rules.effective_from == begun
    assert rules == eras.rule_set(begun, STANDARD)


@given(DAYS, st.sampled_from([RAPID, BLITZ]))
def test_rapid_and_blitz_have_one_set_a_day_from_2012(on, rating_list):
    if on < eras.RAPID_BLITZ_FROM:
        with pytest.raises(eras.NoRuleSet):
            eras.rule_set(on, rating_list)
        return
    begun = max(d for d in eras.effective_dates(rating_list) if d <= on)
    assert eras.rule_set(on, rating_list) == eras.rule_set(begun, rating_list)


@given(DAYS, DAYS, st.sampled_from(fide.LISTS))
def test_rule_set_is_constant_between_effective_dates(a, b, rating_list):
    a, b = sorted((a, b))
    days = eras.effective_dates(rating_list)
    if a < days[0] or any(a < d <= b for d in days):
        return
    assert eras.rule_set(a, rating_list) == eras.rule_set(b, rating_list)


def test_rapid_and_blitz_first_ratings_follow_the_standard_rules_known_from_october_2022():
    lines = {}
    for on in (date(2013, 1, 1), date(2022, 5, 1), date(2024, 5, 1)):
        (line,) = [x for x in eras.rule_set(on, RAPID).describe() if x.name == "first_rating"]
        lines[on.year] = line
    assert lines[2013].since == "1 Jan 2012"
    assert not lines[2013].established
    assert not lines[2022].established  # applying it to rapid in 2022 is Ladder's choice
    assert lines[2024].established


@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(1000, 2900)),
            st.integers(0, 200),
            st.one_of(st.none(), st.integers(1940, 2020)),
        ),
        max_size=30,
    ),
    st.integers(1995, 2040),
    st.one_of(st.none(), st.integers(1, 100)),
    st.sampled_from([
        eras.TieredK(25, 15, 10, new_player_first=True),
        eras.TieredK(30, 15, 10, new_player_first=True),
        eras.TieredK(40, 20, 10, junior_max_age=17),
        eras.FlatK(20),
        eras.TodaysK(),
    ]),
)  # fmt: skip
def test_every_k_scheme_over_columns_is_its_k_factor_for_each_player(players, year, club_k, rule):
    """A replay rates old periods with older K schemes over whole columns: each player's K
    and reason are the scheme's ``k_factor``."""
    peak, games, born = (
        np.array([-1 if v is None else v for v in column], np.int64).reshape(len(players))
        for column in (zip(*players, strict=True) if players else ((), (), ()))
    )
    values, reasons = rule.k_factors(
        peak_rating=peak, rated_games=games, birth_year=born, year=year, club_k=club_k
    )
    expected = [
        rule.k_factor(peak_rating=p, rated_games=g, birth_year=b, year=year, club_k=club_k)
        for p, g, b in players
    ]
    assert [fide.KFactor(v, r) for v, r in zip(values.tolist(), reasons, strict=True)] == expected
