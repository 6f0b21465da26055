"""Three lists (FIDE.md 9): each rated alone, with K counted on that list, through the write
path and the rating runs."""

import contextlib
from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.records import LIST_FIELDS, Game, Player, RatingList, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.exceptions import UnknownRatingList
from ratings.models import RatingChange, RatingRun
from ratings.recompute import services, storage
from ratings.selectors import current_k, rating_list
from tests.factories import PlayerFactory, UnratedPlayerFactory
from tests.ratings.snapshots import snapshot

pytestmark = pytest.mark.django_db

LISTS = RatingList.values

# FIDE.md 8, example A: Ro 1850, K 20, nine games -> +14, 1864; the same on every list.
EXAMPLE_A = [(1420, "1-0"), (2310, "1/2-1/2"), (1790, "1-0"), (1905, "0-1"), (1880, "1/2-1/2"),
             (1600, "1-0"), (2000, "0-1"), (1845, "1/2-1/2"), (1700, "1-0")]  # fmt: skip


def entry(rating_list, rating, games=100, peak=None, **fields):
    """Player fields with entry data on one list."""
    prefix = "" if rating_list == RatingList.STANDARD else f"{rating_list}_"
    return {f"{prefix}entry_rating": rating, f"{prefix}entry_rated_games": games,
            f"{prefix}entry_peak_rating": peak, **fields}  # fmt: skip


def play(games, rating_list="", time_control=""):
    return actions.enter_games(
        games=[
            GameEntry(date=day, white=w, black=b, result=r, rating_list=rating_list,
                      time_control=time_control)
            for day, w, b, r in games
        ]
    )  # fmt: skip


@pytest.mark.parametrize("name", LISTS)
def test_worked_example_a_on_every_list(name, committed):
    me = PlayerFactory(**entry(name, 1850))
    with committed():
        games = []
        for day, (rating, result) in enumerate(EXAMPLE_A, start=1):
            opponent = PlayerFactory(**entry(name, rating))
            games.append((date(2026, 3, day), me, opponent, result))
        play(games, rating_list=name)
    change = RatingChange.objects.get(player=me)
    assert (change.rating_list, change.k, change.games, change.change) == (name, 20, 9, 14)
    assert me.__class__.objects.get(pk=me.pk).on_list(name).rating == 1864
    assert not RatingChange.objects.filter(player=me).exclude(rating_list=name).exists()


def test_k_is_counted_on_each_list_alone():
    player = PlayerFactory(
        birth_year=1980,
        **entry("standard", 2350, games=200, peak=2450),  # 2400 reached on standard: K 10
        **entry("rapid", 2300, games=200, peak=2350),  # never 2400 on rapid: K 20
        **entry("blitz", 2100, games=12, peak=2100),  # fewer than 30 blitz games: K 40
    )
    ks = {name: current_k(player, year=2026, rating_list=name) for name in LISTS}
    assert {name: k.value for name, k in ks.items()} == {"standard": 10, "rapid": 20, "blitz": 40}
    assert ks["blitz"].reason == "fewer than 30 rated games (12)"


def test_a_junior_has_k_40_on_every_list():
    player = PlayerFactory(
        birth_year=2012, **entry("standard", 1700, games=300), **entry("rapid", 1650, games=300),
        **entry("blitz", 1600, games=300),
    )  # fmt: skip
    assert {current_k(player, year=2026, rating_list=n).value for n in LISTS} == {40}


def test_a_period_with_games_on_three_lists_rates_each_alone(committed):
    a = PlayerFactory(**entry("standard", 1800), **entry("rapid", 1700), **entry("blitz", 1600))
    b = PlayerFactory(**entry("standard", 1800), **entry("rapid", 1700), **entry("blitz", 1600))
    with committed():
        play([(date(2026, 3, 2), a, b, "1-0")], time_control="90+30")  # standard
        play([(date(2026, 3, 3), a, b, "0-1")], time_control="15+10")  # rapid
        play([(date(2026, 3, 4), a, b, "1/2-1/2")], time_control="3+2")  # blitz
    a = Player.objects.get(pk=a.pk)
    assert a.on_list("standard").rating == 1810  # 20 x (1 - 0.5)
    assert a.on_list("rapid").rating == 1690  # 20 x (0 - 0.5)
    assert a.on_list("blitz").rating == 1600  # a draw at equal ratings
    assert RatingChange.objects.filter(player=a).count() == 3
    assert sorted(RatingRun.objects.values_list("rating_list", flat=True)) == sorted(LISTS)
    state = snapshot()
    for name in LISTS:
        services.recompute_from(None, rating_list=name)
    assert snapshot() == state
    lists = {name: [e.rating for e in rating_list(None, name) if e.player == a] for name in LISTS}
    assert lists == {"standard": [1810], "rapid": [1690], "blitz": [1600]}


def test_a_blitz_correction_never_recomputes_the_standard_list(committed):
    a = PlayerFactory(**entry("blitz", 1600))
    b = PlayerFactory(**entry("blitz", 1600))
    with committed():
        play([(date(2026, 3, 2), a, b, "1-0")])
        (blitz,) = play([(date(2026, 3, 3), a, b, "1-0")], time_control="3+2")
    standard_rows = list(RatingChange.objects.filter(rating_list="standard").values())
    RatingRun.objects.all().delete()
    with committed():
        actions.correct_game(game=blitz, changes={"result": "0-1"})
    (run,) = RatingRun.objects.all()
    assert (run.rating_list, run.status) == ("blitz", "done")
    assert list(RatingChange.objects.filter(rating_list="standard").values()) == standard_rows
    assert Player.objects.get(pk=a.pk).on_list("blitz").rating == 1590


def test_a_standard_game_too_fast_for_its_players_is_refused_for_the_standard_list():
    strong = PlayerFactory(entry_rating=1900)
    other = PlayerFactory(entry_rating=1750)
    with pytest.raises(ValidationError) as error:
        play([(date(2026, 3, 2), strong, other, "1-0")], time_control="60+0")
    assert error.value.message_dict["time_control"] == [
        "A 60+0 game is too fast for the standard list when a player is rated 1800 or more: "
        "FIDE asks for 90 minutes each for 60 moves, so it is rated on no list."
    ]
    play([(date(2026, 3, 2), strong, other, "1-0")], time_control="90+0")  # enough


def test_a_time_control_of_another_list_names_the_list_it_belongs_to():
    a, b = PlayerFactory(), PlayerFactory()
    with pytest.raises(ValidationError) as error:
        play([(date(2026, 3, 2), a, b, "1-0")], rating_list="standard", time_control="15+10")
    assert error.value.message_dict["rating_list"] == [
        "A 15+10 game is a rapid game (FIDE counts 25 minutes for 60 moves): it belongs to the "
        "rapid list, not the standard list."
    ]


@override_settings(LADDER_LISTS=["standard", "rapid"])
def test_a_list_the_club_does_not_keep_is_refused():
    a, b = PlayerFactory(), PlayerFactory()
    with pytest.raises(ValidationError) as error:
        play([(date(2026, 3, 2), a, b, "1-0")], time_control="3+2")
    assert error.value.message_dict["rating_list"] == [
        "The club keeps no blitz list (it keeps: standard, rapid)."
    ]


@override_settings(LADDER_LISTS=["blitz"])
def test_a_club_that_keeps_one_list_enters_its_games_there(committed):
    a = PlayerFactory(**entry("blitz", 1500))
    b = PlayerFactory(**entry("blitz", 1500))
    with committed():
        (game,) = play([(date(2026, 3, 2), a, b, "1-0")])
        actions.recompute()
    assert game.rating_list == "blitz"
    assert set(RatingRun.objects.values_list("rating_list", flat=True)) == {"blitz"}


def test_the_same_players_may_meet_on_two_lists_the_same_day():
    a, b = PlayerFactory(), PlayerFactory()
    play([(date(2026, 3, 2), a, b, "1-0")], time_control="3+2")
    play([(date(2026, 3, 2), a, b, "1-0")], time_control="15+10")
    with pytest.raises(ValidationError, match="already recorded"):
        play([(date(2026, 3, 2), a, b, "0-1")], time_control="5+0")


def test_an_entry_change_on_one_list_requests_a_run_for_that_list_only(committed):
    a = PlayerFactory(**entry("rapid", 1700))
    b = PlayerFactory(**entry("rapid", 1700))
    with committed():
        play([(date(2026, 3, 2), a, b, "1-0")], time_control="15+10")
    RatingRun.objects.all().delete()
    with committed():
        player = Player.objects.get(pk=a.pk)
        player.rapid_entry_rating = 1500
        actions.save_player(player=player)
    (run,) = RatingRun.objects.all()
    assert (run.rating_list, run.players) == ("rapid", [a.pk])
    assert Player.objects.get(pk=a.pk).rapid_rating == 1500 + 15  # K 20: 20 x (1 - 0.24) = 15.2


# --- any edits on the three lists end where a full replay of each list does ----------------

edits = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 5), st.integers(0, 5),
                  st.sampled_from(["1-0", "0-1", "1/2-1/2", "+/-"]), st.integers(0, 2),
                  st.sampled_from(["90+30", "15+10", "3+2"])),
        st.tuples(st.just("correct"), st.integers(0, 30), st.integers(0, 5),
                  st.sampled_from(["1-0", "0-1", "1/2-1/2"]), st.integers(0, 2),
                  st.sampled_from(["90+30", "15+10", "3+2"])),  # may move it to another list
        st.tuples(st.just("delete"), st.integers(0, 30), st.just(0), st.just(""), st.just(0),
                  st.just("")),
        st.tuples(st.just("entry"), st.integers(0, 5), st.sampled_from(LISTS),
                  st.sampled_from([None, 1500, 2450]), st.just(0), st.just("")),
    ),
    min_size=1,
    max_size=10,
)  # fmt: skip


@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=edits)
def test_any_edits_on_three_lists_end_where_a_full_replay_of_each_does(ops, committed):
    with transaction.atomic():
        players = [
            PlayerFactory(**entry("standard", 1500), **entry("rapid", 1600)),
            PlayerFactory(birth_year=2011, **entry("blitz", 2410, peak=2410)),
            PlayerFactory(**entry("rapid", 1420, games=3)),
            UnratedPlayerFactory(), UnratedPlayerFactory(),
            PlayerFactory(**entry("standard", 2000), **entry("blitz", 1900)),
        ]  # fmt: skip
        for op in ops:
            with committed(), contextlib.suppress(ValidationError):  # refused edits: fine
                _edit(op, players)
        state = snapshot()
        RatingChange.objects.all().delete()
        for player in Player.objects.all():
            player.start_from_entry()
            player.save()  # no entry change: requests no run
        for name in LISTS:
            services.recompute_from(None, rating_list=name)
        assert snapshot() == state
        # The three lists replayed together, in one pass, over what is stored: the same again.
        summaries = services.recompute_lists(None, rating_lists=LISTS)
        assert snapshot() == state
        assert {name: s.players_changed for name, s in summaries.items()} == dict.fromkeys(LISTS, 0)
        # ... and from the second month, over rows of the first on some lists only.
        second = RatingPeriod.objects.filter(start__gte=date(2026, 2, 1)).first()
        if second is not None:
            services.recompute_lists(second, rating_lists=LISTS)
            assert snapshot() == state
        transaction.set_rollback(True)


def test_three_lists_replayed_together_equal_each_replayed_alone(committed):
    """``recompute_lists``: one pass over the three lists, the same rows and fields as three
    recomputes, a summary per list; a player whose games all left a list falls back to the
    state before."""
    a = PlayerFactory(**entry("standard", 1800), **entry("rapid", 1700), **entry("blitz", 1600))
    b = PlayerFactory(**entry("standard", 1900), **entry("blitz", 2000))
    c = UnratedPlayerFactory()
    with committed():
        play([(date(2026, 1, 5), a, b, "1-0")], "standard")
        play([(date(2026, 1, 6), b, a, "1/2-1/2"), (date(2026, 2, 6), a, b, "0-1")], "blitz")
        play([(date(2026, 2, 7), a, c, "1-0")], "rapid")
    state = snapshot()
    RatingChange.objects.all().delete()
    summaries = services.recompute_lists(None, rating_lists=LISTS)
    assert snapshot() == state
    assert summaries["blitz"].periods == ["2026-01", "2026-02"]
    assert (summaries["blitz"].rows, summaries["rapid"].rows) == (4, 2)
    # Every player's fields back to their entry data: the summaries count, per list, the
    # players whose rating the replay then changes.
    final = {name: dict(Player.objects.values_list("pk", LIST_FIELDS[name].rating))
             for name in LISTS}  # fmt: skip
    for player in Player.objects.all():
        player.start_from_entry()
        player.save()  # no entry change: requests no run
    reset = {name: dict(Player.objects.values_list("pk", LIST_FIELDS[name].rating))
             for name in LISTS}  # fmt: skip
    summaries = services.recompute_lists(None, rating_lists=LISTS)
    assert snapshot() == state
    assert {name: s.players_changed for name, s in summaries.items()} == {
        name: sum(final[name][pk] != reset[name][pk] for pk in final[name]) for name in LISTS
    }
    assert summaries["standard"].players_changed == 2  # a and b; c has no standard game
    with pytest.raises(ValueError, match="Unknown rating lists: bullet"):
        services.recompute_lists(None, rating_lists=["bullet"])
    with pytest.raises(UnknownRatingList) as caught:  # checked where it is written into SQL too
        storage.players_from_rows(list(RatingPeriod.objects.all()), ["standard", "bullet"])
    assert str(caught.value) == (
        "Unknown rating lists: bullet. The club keeps these lists: standard, rapid, blitz."
    )
    # A game leaves the blitz list in February: a full replay from February finds a's and b's
    # February blitz rows stale, and each player falls back to the January blitz list.
    Game.objects.filter(date=date(2026, 2, 6)).update(rating_list="rapid", time_control="15+10")
    together = services.recompute_lists(
        RatingPeriod.objects.get(label="2026-02"), rating_lists=LISTS
    )
    moved = snapshot()
    RatingChange.objects.all().delete()
    for name in LISTS:
        services.recompute_from(None, rating_list=name)
    assert snapshot() == moved
    a.refresh_from_db()
    january = RatingChange.objects.get(player=a, rating_list="blitz", period__label="2026-01")
    assert a.blitz_rating == january.rating_after
    assert together["blitz"].players_changed == 2


def _edit(op, players):
    kind, a, b, result, month, control = op
    games = list(Game.objects.order_by("pk"))
    day = date(2026, 1 + month, 1 + (a * 7 + (b if isinstance(b, int) else 0)) % 27)
    if kind == "add" and a != b:
        play([(day, players[a], players[b], result)], time_control=control)
    elif kind == "correct" and games:
        changes = {"result": result, "date": day, "time_control": control}
        actions.correct_game(game=games[a % len(games)], changes=changes)
    elif kind == "delete" and games:
        actions.delete_games(games=[games[a % len(games)]])
    elif kind == "entry":
        player = Player.objects.get(pk=players[a].pk)
        fields = LIST_FIELDS[b]
        setattr(player, fields.entry_rating, result)
        setattr(player, fields.entry_peak_rating, None)
        actions.save_player(player=player)


def test_one_period_of_players_keeping_to_one_list_each_or_not(committed, monkeypatch):
    """One period's players each on one list (their fields written from a row each), then
    one of them on a second list too (the lists' rows joined per player): either way the
    fields and rows equal each list replayed alone."""
    apart = []
    write = storage.players_from_rows

    def players_from_rows(periods, rating_lists):
        apart.append(len(rating_lists) == 1)  # a statement per list
        return write(periods, rating_lists)

    monkeypatch.setattr(storage, "players_from_rows", players_from_rows)
    players = [
        PlayerFactory(**entry("standard", 1800 + 10 * i), **entry("rapid", 1700 + 10 * i),
                      **entry("blitz", 1600 + 10 * i))
        for i in range(6)
    ]  # fmt: skip
    a, b, c, d, e, f = players
    with committed():
        play([(date(2026, 1, 5), a, b, "1-0")], "standard")
        play([(date(2026, 1, 6), c, d, "1/2-1/2")], "rapid")
        play([(date(2026, 1, 7), e, f, "0-1")], "blitz")
    period = RatingPeriod.objects.get(label="2026-01")
    for overlap in (False, True):
        if overlap:
            with committed():
                play([(date(2026, 1, 8), a, f, "1-0")], "blitz")
        RatingChange.objects.all().delete()
        for name in LISTS:
            services.recompute_from(period, rating_list=name)
        alone = snapshot()
        RatingChange.objects.all().delete()
        for player in Player.objects.all():
            player.start_from_entry()
            player.save()
        services.recompute_lists(period, rating_lists=LISTS)
        assert snapshot() == alone
        a.refresh_from_db()
        assert (a.rating, a.blitz_rating is not None) == (
            RatingChange.objects.get(player=a, rating_list="standard").rating_after,
            True,
        )
        assert a.rapid_rating == a.rapid_entry_rating  # no rapid game: as entered
        assert apart[-1] is not overlap
