"""Recompute services and signals against a real database."""

import contextlib
import gc
from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.exceptions import PeriodClosedError
from ladder.records import Game, PeriodLog, Player, RatingPeriod
from ladder.writes import actions
from ladder.writes.actions import close_period, reopen_period
from ladder.writes.validation import GameEntry
from ratings.models import RatingChange, RatingRun, Status
from ratings.recompute.services import recompute_from
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory
from tests.ratings.snapshots import snapshot

pytestmark = pytest.mark.django_db


def build_period(size: int, day=date(2026, 3, 5)):
    players = [PlayerFactory(entry_rating=1500 + 10 * i) for i in range(size)]
    newcomers = [UnratedPlayerFactory() for _ in range(3)]
    period = RatingPeriod.objects.for_date(day)
    Game.objects.bulk_create(
        Game(date=day, white=players[i], black=players[(i + 1) % size], result="1-0",
             period=period)
        for i in range(size)
    )  # fmt: skip
    Game.objects.bulk_create(
        Game(date=day, white=n, black=players[i], result="1/2-1/2", period=period)
        for i, n in enumerate(newcomers)
    )
    return period


def test_a_period_is_recomputed_in_the_same_number_of_queries_at_any_size():
    counts = []
    for size, day in ((8, date(2026, 3, 5)), (150, date(2026, 3, 6))):
        Game.objects.all().delete()
        RatingChange.objects.all().delete()
        period = build_period(size, day)
        with CaptureQueriesContext(connection) as queries:
            summary = recompute_from(period)
        assert summary.rows == size + 3  # the rated players and the newcomers
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_recompute_writes_the_worked_example_a(committed):
    me = PlayerFactory(entry_rating=1850, entry_rated_games=100)
    games = [(1420, "1-0"), (2310, "1/2-1/2"), (1790, "1-0"), (1905, "0-1"), (1880, "1/2-1/2"),
             (1600, "1-0"), (2000, "0-1"), (1845, "1/2-1/2"), (1700, "1-0")]  # fmt: skip
    with committed():
        for day, (rating, result) in enumerate(games, start=1):
            opponent = PlayerFactory(entry_rating=rating)
            record(date=date(2026, 3, day), white=me, black=opponent, result=result)
    change = RatingChange.objects.get(player=me)
    assert (change.k, change.games, change.change, change.rating_after) == (20, 9, 14, 1864)
    assert str(change.expected) == "4.78"
    assert str(change.change_exact) == "14.40"
    me.refresh_from_db()
    assert me.rating == 1864
    assert me.last_change == 14
    assert me.rated_games == 109


def test_a_correction_five_periods_back_flows_into_every_later_period(committed):
    a, b = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1800)
    with committed():
        first = GameFactory(date=date(2026, 1, 10), white=a, black=b, result="1-0")
        for month in range(2, 7):
            GameFactory(date=date(2026, month, 10), white=a, black=b, result="1/2-1/2")
    before = a.rating_changes.order_by("period__start").values_list("rating_after", flat=True)
    before = list(before)
    with committed():
        actions.correct_game(game=first, changes={"result": "0-1"})
    after = list(a.rating_changes.order_by("period__start").values_list("rating_after", flat=True))
    assert len(after) == 6
    assert all(x < y for x, y in zip(after, before, strict=True))
    state = snapshot()
    recompute_from(None)
    assert snapshot() == state


def test_moving_a_game_to_another_period_and_players_recomputes_both(committed):
    a, b, c = PlayerFactory(), PlayerFactory(), PlayerFactory()
    with committed():
        game = GameFactory(date=date(2026, 4, 10), white=a, black=b)
        GameFactory(date=date(2026, 2, 10), white=b, black=c, result="0-1")
    with committed():
        actions.correct_game(game=game, changes={"date": date(2026, 1, 5), "black": c})
    assert not RatingChange.objects.filter(period__label="2026-04").exists()
    assert RatingChange.objects.filter(period__label="2026-01", player=c).exists()
    b.refresh_from_db()
    assert b.rating == RatingChange.objects.get(player=b, period__label="2026-02").rating_after


def test_deleting_the_only_game_restores_the_entry_state(committed):
    a, b = PlayerFactory(entry_rating=1700), PlayerFactory(entry_rating=1900)
    with committed():
        game = GameFactory(white=a, black=b)
    a.refresh_from_db()
    assert a.rating != 1700
    with committed():
        actions.delete_games(games=[game])
    a.refresh_from_db()
    assert (a.rating, a.rated_games, a.last_change) == (1700, 50, None)
    assert not RatingChange.objects.exists()


def test_changing_birth_year_recomputes_from_the_first_game(committed):
    young = PlayerFactory(entry_rating=1700, entry_rated_games=200, birth_year=1990)
    with committed():
        GameFactory(white=young, black=PlayerFactory(entry_rating=1700))
    assert RatingChange.objects.get(player=young).k == 20
    with committed():
        young.birth_year = 2012
        young.save()
    assert RatingChange.objects.get(player=young).k == 40


def test_entry_rating_change_without_games_updates_the_player(committed):
    player = PlayerFactory(entry_rating=1700)
    with committed():
        player.entry_rating = 1750
        player.save()
    player.refresh_from_db()
    assert player.rating == 1750


def test_dry_run_changes_nothing():
    period = build_period(5)
    summary = recompute_from(period, dry_run=True)
    assert summary.dry_run
    assert "would change" in str(summary)
    assert not RatingChange.objects.exists()


# --- closing and reopening -----------------------------------------------------------------


def test_periods_close_in_order_and_a_reopen_needs_a_reason(committed):
    with committed():
        GameFactory(date=date(2026, 1, 5))
        GameFactory(date=date(2026, 2, 5))
    jan, feb = RatingPeriod.objects.order_by("start")
    with pytest.raises(ValidationError, match="close 2026-01 first"):
        close_period(period=feb)
    close_period(period=jan)
    with pytest.raises(ValidationError, match="already closed"):
        close_period(period=jan)
    with pytest.raises(ValidationError, match="Give a reason"):
        reopen_period(period=jan, reason="  ")
    reopen_period(period=jan, reason="Wrong result in round 3")
    assert PeriodLog.objects.filter(period=jan, action="reopened").get().reason == (
        "Wrong result in round 3"
    )


def test_games_of_a_closed_period_are_frozen(committed):
    with committed():
        game = GameFactory(date=date(2026, 1, 5))
    close_period(period=game.period)
    message = "The period 2026-01 is closed"
    with pytest.raises(PeriodClosedError, match=message):
        record(date=date(2026, 1, 9), white=game.white, black=game.black, result="1-0")
    with pytest.raises(PeriodClosedError, match=message):
        actions.correct_game(game=game, changes={"result": "0-1"})
    with pytest.raises(PeriodClosedError, match=message):
        actions.correct_game(game=Game.objects.get(), changes={"date": date(2026, 1, 1)})
    with pytest.raises(PeriodClosedError, match=message):
        actions.delete_games(games=[game])
    assert Game.objects.get().result == "1-0"


# --- the property: any history ends where a full recompute from scratch does ---------------

operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 5), st.integers(0, 5),
                  st.sampled_from(["1-0", "0-1", "1/2-1/2", "+/-"]), st.integers(0, 3)),
        st.tuples(st.just("correct"), st.integers(0, 30), st.integers(0, 5),
                  st.sampled_from(["1-0", "0-1", "1/2-1/2"]), st.integers(0, 3)),
        st.tuples(st.just("delete"), st.integers(0, 30), st.just(0), st.just(""), st.just(0)),
        st.tuples(st.just("birth"), st.integers(0, 5), st.sampled_from([1970, 2012]),
                  st.just(""), st.just(0)),
    ),
    min_size=1,
    max_size=12,
)  # fmt: skip


@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations)
def test_any_sequence_of_edits_ends_in_the_state_of_a_full_recompute(ops, committed):
    with transaction.atomic():
        players = [
            PlayerFactory(entry_rating=1500), PlayerFactory(entry_rating=2410, birth_year=2011),
            PlayerFactory(entry_rating=1420, entry_rated_games=3), UnratedPlayerFactory(),
            UnratedPlayerFactory(), PlayerFactory(entry_rating=2000),
        ]  # fmt: skip
        for op, a, b, result, month in ops:
            with committed():
                _apply(op, a, b, result, month, players)
        state = snapshot()
        RatingChange.objects.all().delete()
        recompute_from(None)
        assert snapshot() == state
        transaction.set_rollback(True)


def record(**fields):
    """Enter one game through the write path."""
    return actions.enter_games(games=[GameEntry(**fields)])[0]


def _apply(op, a, b, result, month, players):
    games = list(Game.objects.order_by("pk"))
    day = date(2026, 1 + month, 1 + (a * 5 + b) % 27)
    if op == "add" and a != b:
        with contextlib.suppress(ValidationError):  # the same game twice a day: a duplicate
            record(date=day, white=players[a], black=players[b], result=result)
    elif op == "correct" and games:
        game = games[a % len(games)]
        black = players[b] if players[b].pk != game.white_id else game.black
        with contextlib.suppress(ValidationError):  # would duplicate another game
            actions.correct_game(game=game, changes={"result": result, "date": day, "black": black})
    elif op == "delete" and games:
        actions.delete_games(games=[games[a % len(games)]])
    elif op == "birth":
        player = Player.objects.get(pk=players[a].pk)
        player.birth_year = b
        player.save()


def test_first_ratings_reach_the_status_column(committed):
    newcomer = UnratedPlayerFactory()
    with committed():
        for day in range(1, 6):
            GameFactory(date=date(2026, 3, day), white=newcomer, black=PlayerFactory(
                entry_rating=1700), result="1/2-1/2")  # fmt: skip
    change = RatingChange.objects.get(player=newcomer)
    # Ra = (5 x 1700 + 3600) / 7 = 1728.57, p = .50 -> dp 0
    assert change.status == Status.FIRST_RATING
    assert change.rating_after == 1729


def test_a_full_recompute_of_one_period_writes_the_newcomers_fields_too(committed):
    """A month's full recompute writes the rated players' fields while it rates the newcomers,
    then the newcomers' own from their rows: every player's fields say what their row says."""
    newcomer, pooling = UnratedPlayerFactory(), UnratedPlayerFactory()
    opponents = PlayerFactory.create_batch(5, entry_rating=1700)
    with committed():
        for day, opponent in enumerate(opponents, 1):
            GameFactory(date=date(2026, 3, day), white=newcomer, black=opponent,
                        result="1/2-1/2")  # fmt: skip
        GameFactory(date=date(2026, 3, 9), white=pooling, black=opponents[0], result="1-0")
    for player in Player.objects.all():  # the fields as entered: the recompute writes them all
        player.start_from_entry()
        player.save()
    recompute_from(RatingPeriod.objects.get(label="2026-03"))
    rows = RatingChange.objects.filter(rating_list="standard").values_list(
        "player_id", "status", "rating_after", "rated_games_after", "peak_after", "last_rated_on"
    )
    statuses = {status for _, status, *_ in rows}
    assert {Status.RATED, Status.FIRST_RATING, Status.UNRATED} <= statuses
    fields = {
        p.pk: (p.rating, p.rated_games, p.peak_rating, p.last_rated_on)
        for p in Player.objects.all()
    }
    assert {pid: tuple(row) for pid, _, *row in rows} == {pid: fields[pid] for pid, *_ in rows}


def test_a_round_of_games_is_rated_by_one_run(committed):
    players = PlayerFactory.create_batch(4)
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 3, 2), white=players[0], black=players[1], result="1-0"),
                GameEntry(date=date(2026, 3, 2), white=players[2], black=players[3], result="0-1"),
            ]
        )
    (run,) = RatingRun.objects.all()
    assert (run.status, run.summary) == ("done", "2026-03 recomputed: 4 players' ratings changed.")


def test_a_recompute_gives_the_garbage_collector_back_even_when_it_fails(monkeypatch):
    # The recompute pauses Python's cycle collector for speed; it must never leave it off.
    GameFactory()
    assert gc.isenabled()
    recompute_from()
    assert gc.isenabled()

    def fail(*args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr("ratings.recompute.replay._rate", fail)
    with pytest.raises(RuntimeError):
        recompute_from()
    assert gc.isenabled()
