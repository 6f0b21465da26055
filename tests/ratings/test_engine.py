"""The period engine: states in, results out (no database)."""

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.rules import engine
from ratings.rules.engine import PlayerState, rate_period

JAN = engine.Period(date(2026, 1, 1), date(2026, 1, 31))
FEB = engine.Period(date(2026, 2, 1), date(2026, 2, 28))
APR = engine.Period(date(2026, 4, 1), date(2026, 4, 30))
SCORE = {1: "1-0", 0.5: "1/2-1/2", 0: "0-1"}
NEW = 1  # the unrated player's id


def games_of(player, opponents, day, event):
    """Games of ``player`` (white) against (opponent id, score) pairs."""
    return [(player, opp, SCORE[score], day, event) for opp, score in opponents]


def rated(rating, games=100, **kwargs):
    return PlayerState(rating=rating, rated_games=games, peak_rating=rating, **kwargs)


def test_example_d_first_rating_pooled_over_periods():
    states = {NEW: PlayerState(rating=None)}
    ratings = [1600, 1700, 1650, 1750, 1650, 1720, 1580, 1810, 1500, 1690, 1755, 1900, 1950]
    opponents = {10 + i: r for i, r in enumerate(ratings)}
    states.update({pid: rated(r) for pid, r in opponents.items()})
    # January: first event 0/4 against rated players -> disregarded (8.2.1).
    jan = rate_period(JAN, states, games_of(NEW, [(10, 0), (11, 0), (12, 0), (13, 0)],
                                            date(2026, 1, 10), "event:Winter Open"))  # fmt: skip
    assert jan[NEW].status == engine.STATUS_UNRATED
    state = jan[NEW].state
    # February: 3 games against rated players and 2 against unrated ones (count for nobody).
    states[NEW] = state
    states[90], states[91] = PlayerState(rating=None), PlayerState(rating=None)
    feb_games = games_of(NEW, [(14, 1), (15, 0), (16, 0.5)], date(2026, 2, 7), "period:2026-02")
    feb_games += games_of(NEW, [(90, 1), (91, 1)], date(2026, 2, 14), "period:2026-02")
    feb = rate_period(FEB, states, feb_games)
    assert feb[NEW].status == engine.STATUS_UNRATED
    assert feb[NEW].games == 3
    assert feb[90].games == 0
    assert feb[90].status == engine.STATUS_UNRATED
    # The pool's ratings: 1650, 1720, 1580 in Feb; 1810, 1500, 1690, 1755 in April.
    states[NEW] = feb[NEW].state
    states.update({14: rated(1650), 15: rated(1720), 16: rated(1580)})
    apr_games = games_of(NEW, [(17, 0), (18, 1), (19, 0.5), (20, 1)], date(2026, 4, 4), "")
    apr = rate_period(APR, states, apr_games)
    assert apr[NEW].status == engine.STATUS_FIRST_RATING
    assert apr[NEW].rating_after == 1744
    assert apr[NEW].first_rating.games == 7
    assert apr[NEW].state.rated_games == 7
    assert apr[NEW].state.pool == ()


def test_rated_player_gains_nothing_against_unrated():
    states = {1: rated(1800), 2: PlayerState(rating=None)}
    result = rate_period(FEB, states, [(1, 2, "1-0", date(2026, 2, 3), "")])
    assert result[1].games == 0
    assert result[1].change == 0
    assert result[1].rating_after == 1800
    assert result[2].games == 1
    assert result[2].pool[0].opponent_rating == 1800


def test_unplayed_games_are_never_rated():
    states = {1: rated(1800), 2: rated(1700)}
    for code in ("+/-", "-/+", "0-0"):
        result = rate_period(FEB, states, [(1, 2, code, date(2026, 2, 3), "")])
        assert result[1].games == 0
        assert result[1].change == 0


def test_falling_below_the_floor_makes_the_player_unrated():
    states = {1: rated(1405, games=10), 2: rated(1800)}
    result = rate_period(FEB, states, [(1, 2, "0-1", date(2026, 2, 3), "")] * 3)
    assert result[1].status == engine.STATUS_BELOW_FLOOR
    assert result[1].rating_after is None
    assert result[1].state.rating is None
    assert result[1].state.rated_games == 13  # games count kept (7.2.1)


def test_first_rating_below_1400_is_not_published_and_the_pool_is_kept():
    states = {1: PlayerState(rating=None), **{i: rated(1400) for i in range(2, 8)}}
    games = [(1, i, "0-1", date(2026, 2, 3), "e") for i in range(2, 7)]
    games += [(1, 7, "1/2-1/2", date(2026, 2, 3), "e"), (1, 2, "0-1", date(2026, 2, 4), "f")]
    result = rate_period(FEB, states, games)
    assert result[1].status == engine.STATUS_UNRATED
    assert result[1].first_rating.rating == 1216  # Ra 1488.89, p .17 -> dp -273
    assert not result[1].first_rating.published
    assert len(result[1].state.pool) == 7


def test_pool_older_than_26_months_is_dropped():
    old = engine.PoolGame(date(2023, 11, 30), "event:Old", 1800, 5000)
    kept = engine.PoolGame(date(2024, 1, 10), "event:Kept", 1800, 5000)
    states = {
        1: PlayerState(rating=None, pool=(old, kept), first_event="event:Old"),
        2: rated(1800),
    }
    result = rate_period(FEB, states, [(1, 2, "1/2-1/2", date(2026, 2, 3), "event:New")])
    assert old not in result[1].state.pool
    assert kept in result[1].state.pool


def test_2650_player_uses_real_difference_only_from_october_2025():
    states = {1: rated(2700, games=500), 2: rated(2100)}
    game = [(1, 2, "1-0", date(2025, 10, 5), "")]
    after = rate_period(engine.Period(date(2025, 10, 1), date(2025, 10, 31)), states, game)
    before = rate_period(engine.Period(date(2025, 9, 1), date(2025, 9, 30)), states, game)
    assert after[1].expected == 9800  # D 600 -> .98
    assert before[1].expected == 9200  # capped at 400 -> .92
    assert after[2].expected == 800  # the 2100 player is capped both times


def test_a_forfeit_never_takes_the_one_upgrade_of_a_tournament_from_a_rated_game():
    """2022 to February 2024 the 400 cap upgrades one game of a player's tournament, the one
    with the largest gap. A 2660 beats a 1450 (D 1210) and wins by forfeit against the same
    player in the same event: the rated game is the one capped (PD .92), in either order of
    the games (a full replay and an incremental recompute read them in different orders)."""
    states = {3: rated(2660, games=12), 2: rated(1450, games=0)}
    period = engine.Period(date(2024, 2, 1), date(2024, 2, 29))
    won = (3, 2, "1-0", date(2024, 2, 21), "event:Open")
    forfeit = (3, 2, "+/-", date(2024, 2, 25), "event:Open")
    for games in ([won, forfeit], [forfeit, won]):
        result = rate_period(period, states, games)
        assert result[3].games == 1
        assert result[3].expected == 9200


def test_k_is_fixed_by_the_opening_list_and_reduced_by_the_700_rule():
    states = {1: rated(1600, games=10), 2: rated(1600)}
    result = rate_period(FEB, states, [(1, 2, "1-0", date(2026, 2, 1), "")] * 20)
    assert result[1].k.value == 40
    assert result[1].k_applied == 35


games_strategy = st.lists(
    st.tuples(st.integers(1, 6), st.integers(1, 6), st.sampled_from(
        ["1-0", "0-1", "1/2-1/2", "+/-", "0-0"]), st.integers(1, 28),
        st.sampled_from(["", "event:A", "event:B"])),
    max_size=40,
).map(lambda rows: [(w, b, r, date(2026, 2, d), e or "period:2026-02")
                    for w, b, r, d, e in rows if w != b])  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(games_strategy, st.randoms(use_true_random=False))
def test_the_order_of_games_inside_a_period_does_not_matter(games, rng):
    unrated = PlayerState(rating=None)
    states = {1: rated(1500), 2: rated(1900, games=10), 3: unrated, 4: rated(2450),
              5: unrated, 6: rated(1420, birth_year=2012)}  # fmt: skip
    shuffled = list(games)
    rng.shuffle(shuffled)
    assert rate_period(FEB, states, games) == rate_period(FEB, states, shuffled)


@settings(max_examples=100, deadline=None)
@given(games_strategy, st.sets(st.integers(1, 7)))
def test_the_results_of_some_players_are_theirs_of_the_whole_period(games, only):
    """An incremental recompute asks for the players it rates again among everyone they met."""
    unrated = PlayerState(rating=None)
    states = {1: rated(1500), 2: rated(1900, games=10), 3: unrated, 4: rated(2450),
              5: unrated, 6: rated(1420, birth_year=2012)}  # fmt: skip
    everyone = rate_period(FEB, states, games)
    some = rate_period(FEB, states, games, only=only)
    assert some == {pid: result for pid, result in everyone.items() if pid in only}
    assert list(some) == sorted(some)


ratings_strategy = st.sampled_from([None, 1400, 1450, 1600, 1800, 2050, 2300, 2640, 2660, 2700])


@settings(max_examples=300, deadline=None)
@given(
    games_strategy,
    st.sampled_from([1500, 1800, 2660]),
    st.lists(ratings_strategy, min_size=5, max_size=5),
    st.lists(ratings_strategy, min_size=5, max_size=5),
    st.sampled_from([date(2015, 1, 1), date(2023, 1, 1), None]),
)
def test_a_player_rated_again_from_their_sums_gets_what_a_whole_rating_gives(
    games, rating, then, now, fixed
):
    """Player 1's opponents' ratings move from ``then`` to ``now``, player 1's own stays: rated
    again from the first result's sums, with each game's opponent's rating then and now,
    player 1 gets what rating the whole period again gives; ``rate_again`` declines only
    when R&B 7.3.1 rules a game out or, under the cap upgraded once per tournament (2023), a
    game's gap lies beyond the cap then or now."""
    rules = engine.Rules(fixed=fixed)
    own = rated(rating, games=40)

    def states(ratings):
        return {1: own} | {pid: PlayerState(r, 40, r) for pid, r in enumerate(ratings, 2)}

    before, after = states(then), states(now)
    first = rate_period(FEB, before, games, rules).get(1)
    if first is None or first.k is None:
        return  # no game of player 1's
    moved = []
    for white, black, result, *_ in games:
        if 1 not in (white, black) or engine.WHITE_SCORE.get(result) is None:
            continue
        other = black if white == 1 else white
        old, new = before[other].rating, after[other].rating
        if old is None and new is None:
            continue  # rated for player 1 neither time
        if old is None or new is None:
            return  # rated one time and not the other: the caller rates player 1 in full
        moved.append((old, new))
    sums = engine.StoredSums(
        first.k.value, first.k.reason, first.k_applied, first.games, first.score,
        first.expected, first.opponents_total, first.state.last_rated_on,
    )  # fmt: skip
    found = engine.rate_again(FEB, rules, own, sums, moved)
    if found is not None:
        assert found == rate_period(FEB, after, games, rules)[1]
        return
    era = rules.era(FEB.start)
    six, cap = era.six_hundred.value, era.cap.value
    ruled_out = six is not None and any(
        not six.game_rated(rating, opponent) for pair in moved for opponent in pair
    )
    beyond = cap.once_per_tournament and any(
        abs(rating - opponent) > cap.points for pair in moved for opponent in pair
    )
    assert ruled_out or beyond


def test_rated_again_under_the_cap_upgraded_once_per_tournament_at_its_edge():
    """2023: of player 1's two games beyond 400 points in one event only the larger gap is
    upgraded. An opponent of the third game, within the cap, moves to exactly 400 points away
    (still within: "more than 400 points" is capped): rated again, as a whole rating gives;
    moved ten points further, the game becomes a candidate for the upgrade: declined."""
    rules = engine.Rules(fixed=date(2023, 1, 1))
    own = rated(1800, games=40)
    day, event = date(2026, 2, 7), "event:Spring Open"
    games = games_of(1, [(2, 1), (3, 0.5), (4, 0)], day, event)

    def period(third):
        states = {1: own, 2: rated(1300), 3: rated(1350), 4: rated(third)}
        return rate_period(FEB, states, games, rules)[1]

    first = period(1450)
    assert first.expected != period(1400).expected  # the moved game counts
    sums = engine.StoredSums(
        first.k.value, first.k.reason, first.k_applied, first.games, first.score,
        first.expected, first.opponents_total, first.state.last_rated_on,
    )  # fmt: skip
    assert engine.rate_again(FEB, rules, own, sums, [(1450, 1400)]) == period(1400)
    assert engine.rate_again(FEB, rules, own, sums, [(1450, 1390)]) is None
    assert engine.rate_again(FEB, engine.Rules(fixed=date(2015, 1, 1)), own,
                             sums, [(1450, 1390)]) is not None  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(games_strategy, st.sampled_from([0, 1000, 10**6, 10**9]))
def test_a_period_rates_the_same_whatever_the_players_ids(games, offset):
    """The same games between players numbered 1-6 or far apart (a federation's ids)."""
    unrated = PlayerState(rating=None)
    states = {1: rated(1500), 2: rated(1900, games=10), 3: unrated, 4: rated(2450),
              5: unrated, 6: rated(1420, birth_year=2012)}  # fmt: skip
    far = {pid: pid * (1 + offset) for pid in states}
    moved = [(far[w], far[b], *rest) for w, b, *rest in games]
    results = rate_period(FEB, {far[pid]: state for pid, state in states.items()}, moved)
    assert results == {far[pid]: result for pid, result in rate_period(FEB, states, games).items()}


def test_a_period_whose_only_rated_game_is_black_s_is_rated():
    """8.2.4: a player unrated when the tournament started (the month before) but rated on the
    opening list is rated with their current rating and counted as unrated by the opponent. In
    a period of that one game only Black's side is rated: White's sums are empty."""
    start = date(2026, 1, 20)
    states = {1: rated(1800), 2: rated(1700)}
    earlier = {start.toordinal(): {1: None, 2: 1750}}
    game = (2, 1, "0-1", date(2026, 2, 3), "event:Open", start)
    result = rate_period(FEB, states, [game], earlier=earlier)
    assert (result[2].games, result[2].change) == (0, 0)
    assert result[1].games == 1
    # Rated with 1800 against White's 1750 then: D = 50, PD 0.57, K 20: 20 x 0.43 = 8.6 -> +9.
    assert result[1].change == 9
