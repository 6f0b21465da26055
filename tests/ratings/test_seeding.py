"""R&B 7.2.1: a player unrated on rapid or blitz but rated on the standard list is rated there with
the standard rating (FIDE.md 9a), in the engine, the full replay and after a standard correction.
"""

from datetime import date

import pytest

from ladder.records import Game, Player, RatingPeriod
from ratings.models import RatingChange
from ratings.recompute.services import recompute_from, recompute_lists
from ratings.rules import engine, fide
from ratings.rules.engine import PlayerState, rate_period
from tests.factories import PlayerFactory

FEB = engine.Period(date(2026, 2, 1), date(2026, 2, 28), "2026-02")
SEEDED, OPPONENT = 1, 2
BLITZ = engine.Rules(rating_list=fide.LIST_BLITZ)


def standard_of(ratings):
    """A standard list to seed from: ``ratings`` on the list opening the period."""

    def read(day, players):
        assert day == engine.OPENING
        return {pid: ratings.get(pid) for pid in players}

    return read


def first_blitz_game(standard):
    states = {
        SEEDED: PlayerState(rating=None),
        OPPONENT: PlayerState(rating=1700, rated_games=40, peak_rating=1700, birth_year=1970),
    }
    game = [(SEEDED, OPPONENT, "1-0", date(2026, 2, 10), "Blitz night")]
    return rate_period(FEB, states, game, BLITZ, standard=standard)


def test_an_1800_standard_player_s_first_blitz_game_is_rated_with_1800():
    """The worked case of FIDE.md 9a. The seeded player: D = 1800 - 1700 = +100, PD .64; a win,
    dR = +.36; K 40 (no blitz games: a new player on that list), 40 x .36 = 14.4 -> +14, blitz
    rating 1800 + 14 = 1814. The opponent counts them as rated: D = -100, PD .36, a loss,
    dR = -.36; K 20 (40 games, born 1970), 20 x -.36 = -7.2 -> -7, 1693."""
    result = first_blitz_game(standard_of({SEEDED: 1800}))
    seeded, opponent = result[SEEDED], result[OPPONENT]
    assert (seeded.status, seeded.rating_before, seeded.k.value) == ("rated", 1800, 40)
    assert (seeded.change, seeded.rating_after) == (14, 1814)
    assert (seeded.state.rated_games, seeded.state.peak_rating) == (1, 1814)
    assert (opponent.k.value, opponent.change, opponent.rating_after) == (20, -7, 1693)


def test_without_a_standard_rating_the_player_stays_unrated_and_nobody_moves():
    """No standard rating: the game only goes into the newcomer's pool (FIDE.md 5)."""
    result = first_blitz_game(standard_of({}))
    assert result[SEEDED].status == "unrated"
    assert result[SEEDED].pool[0].opponent_rating == 1700
    assert (result[OPPONENT].games, result[OPPONENT].change) == (0, 0)


def test_the_standard_list_is_never_seeded_from_itself():
    states = {SEEDED: PlayerState(rating=None), OPPONENT: PlayerState(rating=1700)}
    game = [(SEEDED, OPPONENT, "1-0", date(2026, 2, 10), "")]
    result = rate_period(FEB, states, game, engine.Rules(), standard=standard_of({SEEDED: 1800}))
    assert result[SEEDED].status == "unrated"


# --- in the database -----------------------------------------------------------------------


def blitz_game(white, black, day, result="1-0", rating_list="blitz"):
    return Game(
        date=day, white=white, black=black, result=result, rating_list=rating_list,
        period=RatingPeriod.objects.for_date(day),
    )  # fmt: skip


@pytest.mark.django_db
def test_a_replay_seeds_blitz_from_the_standard_list_opening_the_period():
    """January: the seeded player wins a standard game against a 1790: D +10, PD .51, dR +.49,
    K 20 (40 games), +9.8 -> +10, standard 1810 on the list opening February. February: their
    first blitz game, a win against a blitz 1700: D +110, PD .65, dR +.35, K 40 (no blitz
    games), +14 -> blitz 1810 + 14 = 1824."""
    seeded = PlayerFactory(entry_rating=1800, entry_rated_games=40, birth_year=1970)
    rival = PlayerFactory(entry_rating=1790, entry_rated_games=40, birth_year=1970)
    opponent = PlayerFactory(blitz_entry_rating=1700, blitz_entry_rated_games=40, birth_year=1970)
    Game.objects.bulk_create([
        blitz_game(seeded, rival, date(2026, 1, 5), rating_list="standard"),
        blitz_game(seeded, opponent, date(2026, 2, 5)),
    ])  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "blitz"])
    row = RatingChange.objects.get(player=seeded, rating_list="blitz")
    assert (row.status, row.rating_before, row.k, row.change, row.rating_after) == (
        "rated", 1810, 40, 14, 1824,
    )  # fmt: skip
    seeded.refresh_from_db()
    assert seeded.blitz_rating == 1824
    # The same from a replay of the blitz list alone (the standard list read, not carried).
    snapshot = list(RatingChange.objects.order_by("pk").values_list("rating_after", flat=True))
    recompute_from(None, rating_list="blitz")
    assert sorted(RatingChange.objects.values_list("rating_after", flat=True)) == sorted(snapshot)


@pytest.mark.django_db
def test_a_standard_correction_rates_the_seeded_blitz_player_again():
    """The January standard game corrected to a loss: dR -.51, K 20, -10.2 -> -10, standard
    1790. February's blitz game is then rated from 1790: D +90, PD .62, dR +.38, K 40, +15.2
    -> +15, blitz 1805 (and the opponent: D -90, PD .38, dR -.38, K 20, -7.6 -> -8, 1692)."""
    seeded = PlayerFactory(entry_rating=1800, entry_rated_games=40, birth_year=1970)
    rival = PlayerFactory(entry_rating=1790, entry_rated_games=40, birth_year=1970)
    opponent = PlayerFactory(blitz_entry_rating=1700, blitz_entry_rated_games=40, birth_year=1970)
    Game.objects.bulk_create([
        blitz_game(seeded, rival, date(2026, 1, 5), rating_list="standard"),
        blitz_game(seeded, opponent, date(2026, 2, 5)),
    ])  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "blitz"])
    Game.objects.filter(rating_list="standard").update(result="0-1")

    january = RatingPeriod.objects.get(label="2026-01")
    # A dry run says so too (it said nothing of blitz), and writes nothing.
    preview = recompute_from(january, players={seeded.pk}, dry_run=True)
    assert preview.followed["blitz"].players_changed == 2
    assert preview.followed["blitz"].dry_run
    assert RatingChange.objects.get(player=seeded, rating_list="blitz").rating_after != 1805

    summary = recompute_from(january, players={seeded.pk})

    assert summary.followed["blitz"].players_changed == 2
    rows = dict(
        RatingChange.objects.filter(rating_list="blitz").values_list("player_id", "rating_after")
    )
    assert rows == {seeded.pk: 1805, opponent.pk: 1692}
    assert Player.objects.get(pk=opponent.pk).blitz_rating == 1692


@pytest.mark.django_db
def test_a_player_fallen_below_the_blitz_floor_is_seeded_again_from_the_corrected_standard():
    """February: the player's blitz 1405 loses to a 1405 (PD .5, dR -.5, K 20, -10), 1395: below
    the floor, unrated again on blitz; their state comes out as stored whatever the standard list
    says. March: unrated on the opening list, they are seeded from the standard list opening
    March, which the correction of January's standard game moves from 1460 to 1440: March is
    rated again though nothing of February moved."""
    seeded = PlayerFactory(
        entry_rating=1450, entry_rated_games=40, blitz_entry_rating=1405,
        blitz_entry_rated_games=40, birth_year=1970,
    )  # fmt: skip
    rival = PlayerFactory(entry_rating=1450, entry_rated_games=40, birth_year=1970)
    equal = PlayerFactory(blitz_entry_rating=1405, blitz_entry_rated_games=40, birth_year=1970)
    strong = PlayerFactory(blitz_entry_rating=1700, blitz_entry_rated_games=40, birth_year=1970)
    Game.objects.bulk_create([
        blitz_game(seeded, rival, date(2026, 1, 5), rating_list="standard"),
        blitz_game(seeded, equal, date(2026, 2, 5), result="0-1"),
        blitz_game(seeded, strong, date(2026, 3, 5), result="1/2-1/2"),
    ])  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "blitz"])
    february = RatingChange.objects.get(player=seeded, rating_list="blitz", period__label="2026-02")
    assert (february.status, february.rating_after) == ("below_floor", None)
    march = RatingChange.objects.filter(player=seeded, rating_list="blitz", period__label="2026-03")
    assert march.get().rating_before == 1460

    Game.objects.filter(rating_list="standard").update(result="0-1")
    recompute_from(RatingPeriod.objects.get(label="2026-01"), players={seeded.pk})

    assert march.get().rating_before == 1440
    incremental = sorted(RatingChange.objects.values_list(
        "player_id", "period_id", "rating_list", "rating_before", "change", "rating_after"
    ))  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "blitz"])
    assert sorted(RatingChange.objects.values_list(
        "player_id", "period_id", "rating_list", "rating_before", "change", "rating_after"
    )) == incremental  # fmt: skip
