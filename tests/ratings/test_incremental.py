"""Incremental recompute: ``recompute_from(period, players=...)`` equals a full replay.

Games are written through bulk paths (``bulk_create``, ``QuerySet.update``, ``.delete()``),
which send no signals, so each test decides exactly which recompute runs.
"""

import sys
from datetime import date

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ladder.records import Game, Player, RatingPeriod, Tournament
from ratings.models import RatingChange
from ratings.recompute.services import recompute_from, recompute_lists
from tests.factories import PlayerFactory, UnratedPlayerFactory
from tests.ratings.snapshots import snapshot

pytestmark = pytest.mark.django_db

RESULTS = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "+/-", "0-0"]
DERIVED = ("pk", "rating", "rated_games", "peak_rating", "last_rated_on", "last_change")


def replay_from_scratch():
    """Forget every derived value, then rate everything again."""
    RatingChange.objects.all().delete()
    players = list(Player.objects.all())
    for player in players:
        player.start_from_entry()
    Player.objects.bulk_update(players, DERIVED[1:])
    recompute_from(None)


# The first month the generated games fall in (a test may move it).
FIRST_MONTH = date(2026, 1, 1)


def day_in(month: int, day: int) -> date:
    """The day ``day`` (modulo 28) of the ``month``-th month from ``FIRST_MONTH``."""
    year, index = divmod(FIRST_MONTH.month - 1 + month, 12)
    return date(FIRST_MONTH.year + year, index + 1, 1 + day % 28)


def game(players, month, white, black, result, day=0, event=""):
    return Game(
        date=day_in(month, day), white=players[white], black=players[black], result=result,
        period=RatingPeriod.objects.for_date(day_in(month, day)), event=event,
    )  # fmt: skip


player_spec = st.tuples(
    st.sampled_from([None, None, 1450, 1600, 1800, 2050, 2390, 2660]),  # entry rating
    st.sampled_from([0, 12, 40]),  # rated games before entry
    st.sampled_from([1970, 2000, 2011]),  # birth year (2011: a junior)
)
pair = st.tuples(st.integers(0, 6), st.integers(0, 6)).filter(lambda p: p[0] != p[1])
game_spec = st.tuples(
    st.integers(0, 3),
    pair,
    st.sampled_from(RESULTS),
    st.integers(0, 27),
    st.sampled_from(["", "Open"]),
)
edit = st.one_of(
    st.tuples(st.just("add"), game_spec),
    st.tuples(st.just("correct"), st.integers(0, 99), st.sampled_from(RESULTS)),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("move"), st.integers(0, 99), st.integers(0, 4)),
    st.tuples(st.just("swap"), st.integers(0, 99), st.integers(0, 6)),
    st.tuples(st.just("entry"), st.integers(0, 6), player_spec),
)


def apply(step, players) -> tuple[set[int], date | None]:
    """Make one change through a bulk path; return the players it affects and the earliest
    date it affects (None: from the first period)."""
    kind, *args = step
    games = list(Game.objects.order_by("pk"))
    if kind == "add":
        month, (white, black), result, day, event = args[0]
        new = game(players, month, white, black, result, day, event)
        Game.objects.bulk_create([new])
        return {new.white_id, new.black_id}, new.date
    if kind == "entry":
        rating, rated_games, born = args[1]
        player = players[args[0]]
        Player.objects.filter(pk=player.pk).update(
            entry_rating=rating, entry_rated_games=rated_games if rating else 0,
            entry_peak_rating=rating, birth_year=born,
        )  # fmt: skip
        return {player.pk}, None
    if not games:
        return set(), None
    old = games[args[0] % len(games)]
    affected = {old.white_id, old.black_id}
    rows = Game.objects.filter(pk=old.pk)
    if kind == "correct":
        rows.update(result=args[1])
    elif kind == "delete":
        rows.delete()
    elif kind == "move":
        day = day_in(args[1], old.date.day)
        rows.update(date=day, period=RatingPeriod.objects.for_date(day))
        return affected, min(day, old.date)
    elif kind == "swap":  # another black player
        black = players[args[1]].pk
        if black == old.white_id:
            return set(), None
        rows.update(black_id=black)
        affected.add(black)
    return affected, old.date


@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    specs=st.lists(player_spec, min_size=7, max_size=7),
    games=st.lists(game_spec, min_size=8, max_size=40),
    edits=st.lists(edit, min_size=1, max_size=4),
)
def test_an_incremental_recompute_equals_a_full_replay(specs, games, edits):
    with transaction.atomic():
        assert_edits_rated_as_a_full_replay(specs, games, edits)
        transaction.set_rollback(True)


def assert_edits_rated_as_a_full_replay(specs, games, edits, *, make=game, first_of=None):
    """Rate ``games`` (each made by ``make``) between players made from ``specs``, make
    ``edits``, recompute the players they touch from the period of the earliest day they
    touch (``first_of`` that day, by default the period holding it): the same as a full
    replay. Returns the incremental recompute's snapshot."""
    players = [
        PlayerFactory(entry_rating=rating, entry_rated_games=rated if rating else 0,
                      entry_peak_rating=rating, birth_year=born)
        for rating, rated, born in specs
    ]  # fmt: skip
    Game.objects.bulk_create(
        make(players, month, white, black, result, day, last)
        for month, (white, black), result, day, last in games
    )
    recompute_from(None)
    affected, since = set(), date.max
    for step in edits:
        players_hit, day = apply(step, players)
        if players_hit:
            affected |= players_hit
            since = min(since, day or date.min)
    first = None
    if since != date.min:
        first = (first_of or RatingPeriod.objects.for_date)(since)
    recompute_from(first, players=affected)
    incremental = snapshot()
    replay_from_scratch()
    assert incremental == snapshot()
    return incremental


# A correction's reach: most players rated and playing several games a month, so that the
# changed players' opponents are rated again from their stored rows (``engine.rate_again``).
reach_player = st.tuples(
    st.sampled_from([None, 1450, 1600, 1700, 1800, 1800, 2050, 2390, 2660]),  # entry rating
    st.sampled_from([12, 40]),
    st.sampled_from([1970, 2000, 2011]),
)
reach_pair = st.tuples(st.integers(0, 13), st.integers(0, 13)).filter(lambda p: p[0] != p[1])
reach_game = st.tuples(
    st.integers(0, 5), reach_pair, st.sampled_from(RESULTS[:6] + ["+/-"]), st.integers(0, 27),
    st.sampled_from(["", "Open"]),
)  # fmt: skip
reach_edit = st.one_of(
    st.tuples(st.just("correct"), st.integers(0, 99), st.sampled_from(RESULTS)),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("swap"), st.integers(0, 99), st.integers(0, 13)),
    st.tuples(st.just("entry"), st.integers(0, 13), reach_player),
)


@pytest.mark.parametrize(
    ("rules", "first_month"),
    [
        (None, FIRST_MONTH),
        (date(2015, 1, 1), FIRST_MONTH),
        (date(2023, 1, 1), FIRST_MONTH),
        # December 2023 to May 2024 by each date's rules: the list closing February 2024
        # carries the rise of 1 March 2024 (ratings below 2000 raised), made again for every
        # player a correction reaches there.
        (None, date(2023, 12, 1)),
    ],
    ids=["by-date", "400-cap-no-600-rule", "cap-once-per-tournament", "across-the-2024-rise"],
)
@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    specs=st.lists(reach_player, min_size=14, max_size=14),
    games=st.lists(reach_game, min_size=30, max_size=80),
    edits=st.lists(reach_edit, min_size=1, max_size=2),
)
def test_a_correction_reaching_far_equals_a_full_replay(
    monkeypatch, rules, first_month, specs, games, edits
):
    """Fourteen players over six months: a correction in the first months reaches players
    through their opponents month after month, most rated again from their stored rows."""
    monkeypatch.setattr(sys.modules[__name__], "FIRST_MONTH", first_month)
    with override_settings(LADDER_RULES_FIXED=rules), transaction.atomic():
        assert_edits_rated_as_a_full_replay(specs, games, edits)
        transaction.set_rollback(True)


def test_rows_written_before_the_opponents_total_was_kept_are_rated_in_full():
    """Rows from before migration ratings 0014 hold no opponents' total: an opponent of a moved
    player with such a row is rated on all their games, with the same result a full replay
    gives, and the rows the correction rewrites hold the total again."""
    people = [PlayerFactory(entry_rating=r) for r in (1800, 1750, 1900, 1600, 2000, 1500)]
    # a-b corrected in January; b (given) meets c six times in February, which moves c (not
    # given); c meets d in March, who also meets e and f there.
    Game.objects.bulk_create(
        [game(people, 0, 0, 1, "1/2-1/2"), *(game(people, 1, 1, 2, "1/2-1/2") for _ in range(6)),
         game(people, 2, 2, 3, "1-0"), game(people, 2, 3, 4, "1/2-1/2"),
         game(people, 2, 5, 3, "0-1")]
    )  # fmt: skip
    march = RatingChange.objects.filter(period__label="2026-03")
    recompute_from(None)
    RatingChange.objects.update(opponents_total=None)
    Game.objects.filter(white=people[0]).update(result="1-0")

    recompute_from(None, players={people[0].pk, people[1].pk})

    columns = ("player_id", "period_id", "rating_before", "expected_units", "change_exact_units",
               "change", "rating_after", "performance", "peak_after")  # fmt: skip
    incremental = sorted(RatingChange.objects.values_list(*columns))
    # d, rated again on all three games of March (c's rating moved), holds the total again
    c_in_march = march.get(player=people[2]).rating_before
    assert march.get(player=people[3]).opponents_total == c_in_march + 2000 + 1500
    replay_from_scratch()
    assert sorted(RatingChange.objects.values_list(*columns)) == incremental


def build_chain(months: int = 5):
    """A league where a and b meet every month, and c and d (who never meet a or b) too."""
    a, b, c, d = (PlayerFactory(entry_rating=r) for r in (1800, 1750, 1900, 1600))
    newcomer = UnratedPlayerFactory()
    Game.objects.bulk_create(
        game([a, b, c, d, newcomer], month, white, black, "1/2-1/2", day=5)
        for month in range(months)
        for white, black in ((0, 1), (2, 3))
    )
    recompute_from(None)
    return a, b, c, d, newcomer


def test_a_correction_three_periods_back_rewrites_only_the_rows_it_reaches():
    a, b, c, d, newcomer = build_chain()
    untouched = list(RatingChange.objects.filter(player__in=[c, d]).values_list("pk", flat=True))
    corrected = Game.objects.get(white=a, date=day_in(1, 5))
    Game.objects.filter(pk=corrected.pk).update(result="1-0")

    summary = recompute_from(corrected.period, players={a.pk, b.pk})

    assert summary.rows == 8  # a and b in each of the four periods from the correction on
    assert summary.players_changed == 2
    assert sorted(RatingChange.objects.filter(player__in=[c, d]).values_list("pk", flat=True)) == (
        sorted(untouched)
    )
    state = snapshot()
    replay_from_scratch()
    assert snapshot() == state


def test_an_incremental_recompute_that_changes_nothing_writes_nothing():
    a, b, *_ = build_chain(3)
    summary = recompute_from(None, players={a.pk, b.pk})
    assert (summary.rows, summary.players_changed) == (0, 0)
    assert str(summary) == "2026-01 to 2026-03 recomputed: 0 players' ratings changed."


def test_a_change_stops_at_a_player_whose_state_comes_out_as_stored():
    a, b, c, d = (PlayerFactory(entry_rating=r) for r in (1800, 1750, 1900, 1600))
    people = [a, b, c, d]
    Game.objects.bulk_create(
        [game(people, 0, 0, 1, "1-0"), game(people, 1, 1, 2, "1-0"), game(people, 2, 2, 3, "1-0")]
    )
    recompute_from(None)
    march = list(RatingChange.objects.filter(period__label="2026-03").values_list("pk", flat=True))
    Game.objects.filter(white=a).update(result="0-1")

    summary = recompute_from(None, players={a.pk, b.pk})

    # a and b in January; b and c in February, where c's PD moves (.71 to .69) but c's change
    # still rounds to -14: c opens March as stored, so c and d's March rows stay.
    assert summary.rows == 4
    assert (
        list(RatingChange.objects.filter(period__label="2026-03").values_list("pk", flat=True))
        == march
    )
    state = snapshot()
    replay_from_scratch()
    assert snapshot() == state


def test_a_player_without_games_gets_the_entry_data():
    player = PlayerFactory(entry_rating=1800)
    Player.objects.filter(pk=player.pk).update(entry_rating=1900, entry_peak_rating=1950)
    summary = recompute_from(None, players={player.pk})
    player.refresh_from_db()
    assert (player.rating, player.peak_rating, summary.players_changed) == (1900, 1950, 1)


@pytest.mark.parametrize("size", [10, 120])
def test_an_incremental_recompute_issues_the_same_queries_at_any_size(
    size, django_assert_max_num_queries
):
    players = [PlayerFactory(entry_rating=1500 + 5 * i) for i in range(size)]
    Game.objects.bulk_create(
        game(players, month, i, (i + 1 + month) % size, "1-0")
        for month in range(3)
        for i in range(size)
    )
    recompute_from(None)
    Game.objects.filter(date__month=1).update(result="0-0")  # unplayed: not rated
    with django_assert_max_num_queries(3 * 35):  # three periods, whatever the players
        summary = recompute_from(None, players={p.pk for p in players})
    assert summary.rows == 3 * size


# --- tournaments that span periods (FIDE.md 10.1) ------------------------------------------

# How a game's tournament lies: inside its month (no tournament named, as every game above),
# started on the last day of the month before ("span"), or the whole month before, reported
# late and rated in the game's month + 1 ("late").
placement = st.sampled_from([None, None, "span", "late"])


def tournament_game(players, month, white, black, result, day, event, where):
    """A game of month ``month`` (0 = January 2026) placed as ``where`` says."""
    if where is None:
        return game(players, month, white, black, result, day, event)
    played = day_in(month, day)
    if where == "span":
        first = RatingPeriod.objects.for_date(played.replace(day=1))
        start, end, rated_in = date.fromordinal(first.start.toordinal() - 1), first.end, first
        if played == start:  # pragma: no cover - days are from the month itself
            played = first.start
    else:
        here = RatingPeriod.objects.for_date(played)
        rated_in = RatingPeriod.objects.for_date(day_in(month + 1, 0))
        start, end = here.start, here.end
    tournament, _ = Tournament.objects.get_or_create(
        name=f"{where} {start}", start=start, rating_list="standard",
        defaults={"end": end, "rated_in": rated_in},
    )  # fmt: skip
    return Game(
        date=played, white=players[white], black=players[black], result=result,
        period=tournament.rated_in, event=tournament.name, tournament=tournament,
    )  # fmt: skip


spanning_game = st.tuples(
    st.integers(0, 3), pair, st.sampled_from(RESULTS), st.integers(0, 27), placement
)


@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    specs=st.lists(player_spec, min_size=7, max_size=7),
    games=st.lists(spanning_game, min_size=8, max_size=40),
    edits=st.lists(
        st.one_of(
            st.tuples(st.just("correct"), st.integers(0, 99), st.sampled_from(RESULTS)),
            st.tuples(st.just("delete"), st.integers(0, 99)),
            st.tuples(st.just("swap"), st.integers(0, 99), st.integers(0, 6)),
            st.tuples(st.just("entry"), st.integers(0, 6), player_spec),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_an_incremental_recompute_equals_a_full_replay_across_tournaments(specs, games, edits):
    def first_of(since):
        # A game's period is its tournament's (a late one's lies after its date).
        later = Game.objects.filter(date__gte=since).select_related("period")
        return min(
            [RatingPeriod.objects.for_date(since), *(g.period for g in later)],
            key=lambda p: p.start,
        )

    def make(players, month, white, black, result, day, where):
        return tournament_game(players, month, white, black, result, day, "", where)

    with transaction.atomic():
        incremental = assert_edits_rated_as_a_full_replay(
            specs, games, edits, make=make, first_of=first_of
        )
        # And with its rows written without the table's index by player (PostgreSQL), which
        # comes back for the reads of a tournament that started in the month before.
        with override_settings(LADDER_EXCLUSIVE_REPLAY_PERIODS=1):
            replay_from_scratch()
        assert incremental == snapshot()
        transaction.set_rollback(True)


def test_a_tournament_from_the_month_before_is_rated_with_the_list_then():
    """FIDE.md 10.1: an event from 31 October to 2 November, rated on the December list (Ladder's
    period 2025-11), uses the October list (the one opening 2025-10) for every game."""
    a, b, c = (PlayerFactory(entry_rating=r) for r in (1800, 1800, 2200))
    october = RatingPeriod.objects.for_date(date(2025, 10, 5))
    november = RatingPeriod.objects.for_date(date(2025, 11, 5))
    # October: a beats c, so a opens November at 1800 + 18 (K 20, D -400: PD .08, 20 x .92).
    Game.objects.bulk_create([Game(date=date(2025, 10, 5), white=a, black=c, result="1-0",
                                   period=october)])  # fmt: skip
    event = Tournament.objects.create(
        name="Halloween Open", start=date(2025, 10, 31), end=date(2025, 11, 2),
        rating_list="standard", rated_in=november,
    )  # fmt: skip
    Game.objects.bulk_create([
        Game(date=date(2025, 10, 31), white=a, black=b, result="1/2-1/2", period=november,
             tournament=event, event=event.name),
    ])  # fmt: skip
    recompute_from(None)
    a_nov = RatingChange.objects.get(player=a, period=november)
    b_nov = RatingChange.objects.get(player=b, period=november)
    a_oct = RatingChange.objects.get(player=a, period=october)
    assert a_oct.rating_after == 1818
    # The October list: a 1800 v b 1800, a draw, PD .50 and dR 0 for both (with November's,
    # 1818 v 1800: PD .53, and a would lose 0.6 -> 1); a's new rating is 1818 + 0.
    assert (a_nov.rating_before, a_nov.expected_units, a_nov.change) == (1818, 5000, 0)
    assert (b_nov.rating_before, b_nov.expected_units, b_nov.change) == (1800, 5000, 0)
    assert a_nov.rating_after == 1818
    state = snapshot()
    replay_from_scratch()
    assert snapshot() == state


# --- two lists: the standard rating seeds blitz (R&B 7.2.1) --------------------------------

LISTS = ("standard", "blitz")
BLITZ_DERIVED = ("blitz_rating", "blitz_rated_games", "blitz_peak_rating", "blitz_last_rated_on",
                 "blitz_last_change")  # fmt: skip


def replay_lists_from_scratch():
    RatingChange.objects.all().delete()
    players = list(Player.objects.all())
    for player in players:
        player.start_from_entry()
    Player.objects.bulk_update(players, [*DERIVED[1:], *BLITZ_DERIVED])
    recompute_lists(None, rating_lists=list(LISTS))


def listed_game(players, month, white, black, result, day, rating_list, span, base=None):
    """A game on a list, inside its month or (``span``) of a tournament that started on the
    last day of the month before; months count from January 2026 or from ``base``."""
    played = day_in(month, day)
    if base is not None:
        played = date(base.year + (base.month + month - 1) // 12,
                      (base.month + month - 1) % 12 + 1, 1 + day % 28)  # fmt: skip
    here = RatingPeriod.objects.for_date(played)
    if not span:
        return Game(date=played, white=players[white], black=players[black], result=result,
                    period=here, rating_list=rating_list)  # fmt: skip
    start = date.fromordinal(here.start.toordinal() - 1)
    tournament, _ = Tournament.objects.get_or_create(
        name=f"{rating_list} {start}", start=start, rating_list=rating_list,
        defaults={"end": here.end, "rated_in": here},
    )  # fmt: skip
    return Game(date=played, white=players[white], black=players[black], result=result,
                period=here, rating_list=rating_list, tournament=tournament,
                event=tournament.name)  # fmt: skip


listed_spec = st.tuples(
    st.integers(0, 3), pair, st.sampled_from(RESULTS), st.integers(0, 27),
    st.sampled_from(["standard", "standard", "blitz"]), st.sampled_from([False, False, True]),
)  # fmt: skip
listed_edit = st.one_of(
    st.tuples(st.just("correct"), st.integers(0, 99), st.sampled_from(RESULTS)),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("entry"), st.integers(0, 6), player_spec),
)


@settings(  # max_examples: the Hypothesis profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    specs=st.lists(player_spec, min_size=7, max_size=7),
    blitz=st.lists(st.sampled_from([None, None, 1500, 1900]), min_size=7, max_size=7),
    games=st.lists(listed_spec, min_size=8, max_size=40),
    edits=st.lists(listed_edit, min_size=1, max_size=4),
    standard_first=st.booleans(),
)
@pytest.mark.parametrize("base", [None, date(2024, 1, 1), date(2022, 8, 1)])
def test_an_incremental_recompute_equals_a_full_replay_when_standard_seeds_blitz(
    base, specs, blitz, games, edits, standard_first
):
    """A standard correction reaches blitz players whom their standard rating seeds, whichever
    list's run comes first; and across FIDE's one-off adjustments (FIDE.md 10.2: January to
    April 2024, every list raised below 2000 at February's close; August to November 2022,
    blitz raised to standard - 100 at September's), which a correction before them makes
    again, once."""
    with transaction.atomic():
        players = [
            PlayerFactory(entry_rating=rating, entry_rated_games=rated if rating else 0,
                          entry_peak_rating=rating, birth_year=born, blitz_entry_rating=fast,
                          blitz_entry_rated_games=12 if fast else 0, blitz_entry_peak_rating=fast)
            for (rating, rated, born), fast in zip(specs, blitz, strict=True)
        ]  # fmt: skip
        Game.objects.bulk_create(
            listed_game(players, month, white, black, result, day, name, span, base)
            for month, (white, black), result, day, name, span in games
        )
        recompute_lists(None, rating_lists=list(LISTS))
        affected = {name: set() for name in LISTS}
        since = dict.fromkeys(LISTS, date.max)
        for step in edits:
            kind, *args = step
            listed = list(Game.objects.order_by("pk"))
            if kind == "entry":  # the standard entry data and the birth year (every list)
                players_hit, day = apply(step, players)
                for name in LISTS:
                    affected[name] |= players_hit
                    since[name] = date.min
                continue
            if not listed:
                continue
            old = listed[args[0] % len(listed)]
            name = old.rating_list
            players_hit, _ = apply(step, players)
            affected[name] |= players_hit
            since[name] = min(since[name], old.period.start)
        order = LISTS if standard_first else tuple(reversed(LISTS))
        for name in order:
            if affected[name]:
                first = None
                if since[name] != date.min:
                    first = RatingPeriod.objects.get(start=since[name])
                recompute_from(first, rating_list=name, players=affected[name])
        incremental = snapshot()
        replay_lists_from_scratch()
        assert incremental == snapshot()
        transaction.set_rollback(True)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's sessions")
def test_a_correction_s_period_reads_are_prepared_and_survive_a_rollback():
    """On PostgreSQL a correction's reads of each period are prepared statements of the
    session (``RunReads._read``); a rolled-back savepoint between two corrections (psycopg
    forgets its statements then) leaves the next one as right as a full replay."""
    a, b, *_ = build_chain()
    first = Game.objects.get(white=a, date=day_in(1, 5))
    Game.objects.filter(pk=first.pk).update(result="1-0")
    recompute_from(first.period, players={a.pk, b.pk})
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [statement for (statement,) in cursor.fetchall()]
    states = "unnest($1::bigint[], $2::boolean[]"
    assert any(states in statement for statement in statements), statements

    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")
    again = Game.objects.get(white=a, date=day_in(2, 5))
    Game.objects.filter(pk=again.pk).update(result="0-1")
    recompute_from(again.period, players={a.pk, b.pk})
    state = snapshot()
    replay_from_scratch()
    assert snapshot() == state
