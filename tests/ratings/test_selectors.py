"""Reads shared by the admin, the API and the pages."""

from datetime import date
from decimal import Decimal

import pytest
from django.db import connection

from ladder.records import RatingPeriod
from ladder.writes.actions import close_period
from ratings import selectors
from ratings.models import RatingChange
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db

EXAMPLE_A = [(1420, "1-0"), (2310, "1/2-1/2"), (1790, "1-0"), (1905, "0-1"),
             (1880, "1/2-1/2"), (1600, "1-0"), (2000, "0-1"), (1845, "1/2-1/2"),
             (1700, "1-0")]  # fmt: skip


@pytest.fixture
def example_a(committed):
    me = PlayerFactory(name="Me", entry_rating=1850, entry_rated_games=100)
    with committed():
        for day, (rating, result) in enumerate(EXAMPLE_A, start=1):
            GameFactory(date=date(2026, 3, day), white=me, result=result,
                        black=PlayerFactory(entry_rating=rating))  # fmt: skip
    me.refresh_from_db()
    return me


def test_game_lines_explain_every_game_of_example_a(example_a, django_assert_num_queries):
    with django_assert_num_queries(3):  # the games, their players, the opening ratings
        lines = selectors.game_lines(example_a)
    (period_lines,) = lines.values()
    assert [line.calculation.difference_used for line in period_lines] == [
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
    assert sum(line.calculation.delta for line in period_lines) == Decimal("0.72")
    assert {line.note for line in period_lines} == {"rated"}


class Recording:
    """A router that sends reads to the primary and notes the models it is asked for."""

    asked: list = []

    def db_for_read(self, model, **hints):
        Recording.asked.append(model)
        return "default"


def test_game_lines_read_the_opening_ratings_where_the_router_says(example_a, settings):
    # A replica, a client pinned to the primary: the router decides, as for the ORM's reads.
    settings.DATABASE_ROUTERS = [f"{__name__}.Recording"]
    Recording.asked = []
    lines = selectors.game_lines(example_a)
    assert RatingChange in Recording.asked
    assert [line.opponent_rating for line in next(iter(lines.values()))] == [
        rating for rating, _ in EXAMPLE_A
    ]


def test_game_lines_say_why_a_game_was_not_rated(committed):
    me, newcomer, other = PlayerFactory(), UnratedPlayerFactory(), PlayerFactory()
    with committed():
        GameFactory(white=me, black=newcomer)
        GameFactory(white=me, black=other, result="+/-")
    notes = {line.note for line in selectors.game_lines(me)[me.games_as_white.first().period_id]}
    assert notes == {"opponent unrated: not rated for you", "unplayed: not rated"}
    (line,) = next(iter(selectors.game_lines(newcomer).values()))
    assert line.note == "counts toward a first rating"
    assert line.opponent_rating == 1800


def _shown(lines):
    """What a line shows, its opponent by value (one statement or three make other objects)."""
    return {
        period: [(line.game, vars(line.opponent), *line[2:]) for line in period_lines]
        for period, period_lines in lines.items()
    }


def test_a_history_pages_lines_read_in_one_statement_are_those_read_in_three(
    example_a, committed, monkeypatch, django_assert_num_queries, django_assert_max_num_queries
):
    if connection.vendor != "postgresql":
        pytest.skip("one statement on PostgreSQL only")
    newcomer, rapid = UnratedPlayerFactory(), PlayerFactory(rapid_entry_rating=1700)
    with committed():
        GameFactory(white=newcomer, black=example_a, date=date(2026, 3, 20))
        GameFactory(white=example_a, black=PlayerFactory(), result="+/-", date=date(2026, 3, 21))
        GameFactory(white=rapid, black=example_a, rating_list="rapid", date=date(2026, 3, 22))
    periods = list(RatingPeriod.objects.all())
    for player in [example_a, newcomer, rapid]:
        for rating_list in ["standard", "rapid"]:
            with django_assert_num_queries(1):
                joined = selectors.game_lines(player, periods, rating_list)
            with monkeypatch.context() as patched:
                patched.setattr(selectors, "_joined", lambda *args: None)
                with django_assert_max_num_queries(3):  # none for opening rows of no games
                    apart = selectors.game_lines(player, periods, rating_list)
            assert _shown(joined) == _shown(apart)
    notes = [line.note for line in selectors.game_lines(example_a, periods)[periods[0].pk]]
    assert len(notes) == 11
    assert set(notes) == {"rated", "opponent unrated: not rated for you", "unplayed: not rated"}


def test_what_if_counts_the_games_already_played_this_period(example_a):
    outcomes = selectors.what_if(example_a, 1850)
    # Ten games at K 20: ΣdR 0.72 + (1 - .50) for a win -> 20 x 1.22 = 24.4 -> +24.
    assert outcomes["win"].change == 24
    assert outcomes["loss"].change == 4  # 20 x (0.72 - 0.50)
    assert outcomes["win"].rating_after == 1850 + 24


def test_what_if_is_none_for_unrated_players_or_without_an_open_period(example_a):
    assert selectors.what_if(UnratedPlayerFactory(), 1800) is None
    close_period(period=RatingPeriod.objects.get())
    assert selectors.what_if(example_a, 1800) is None


def test_rating_list_carries_players_who_did_not_play(example_a, committed):
    idle = PlayerFactory(name="Idle", entry_rating=2000)
    with committed():
        GameFactory(date=date(2026, 4, 2), white=example_a, black=PlayerFactory())
    march = {e.player.name: e for e in selectors.rating_list(RatingPeriod.objects.get(
        label="2026-03"))}  # fmt: skip
    april = {e.player.name: e for e in selectors.rating_list()}
    assert march["Me"].rating == 1864
    assert march["Me"].change == 14
    assert april["Me"].rating_before == 1864
    assert april["Idle"].rating == idle.entry_rating
    assert april["Idle"].games == 0
    assert april["Idle"].k is None
    ratings = [e.rating for e in selectors.rating_list() if e.rating is not None]
    assert ratings == sorted(ratings, reverse=True)


def test_rating_list_reads_in_a_fixed_number_of_queries(example_a, django_assert_num_queries):
    with django_assert_num_queries(3):
        selectors.rating_list()
    PlayerFactory.create_batch(20)
    with django_assert_num_queries(3):
        selectors.rating_list()


def test_current_k_gives_the_reason():
    junior = PlayerFactory(birth_year=2011, entry_rating=1700, entry_rated_games=100)
    assert str(selectors.current_k(junior, year=2026)) == "40: junior, born 2011, never 2300+"
    assert selectors.current_k(UnratedPlayerFactory(), year=2026) is None


def test_inactive_after_twelve_months_without_a_rated_game(committed):
    player = PlayerFactory()
    with committed():
        GameFactory(date=date(2025, 1, 10), white=player)
    player.refresh_from_db()
    assert selectors.is_inactive(player, on=date(2026, 1, 10))
    assert not selectors.is_inactive(player, on=date(2025, 12, 31))
