"""FIDE's one-off adjustments (FIDE.md 10.2) as rating events: made to the list closing the last
period before their day, shown with their reason, made again (never twice) by a correction."""

import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings

from ladder.records import Game, Player, RatingPeriod
from ladder.writes import actions
from ratings import selectors
from ratings.models import AppliedAdjustment, RatingChange
from ratings.publication import official
from ratings.recompute.services import adjustment_missing, recompute_from, recompute_lists
from ratings.rules import engine, eras
from ratings.rules.engine import PlayerState
from tests.factories import PlayerFactory
from tests.ratings.snapshots import snapshot

pytestmark = pytest.mark.django_db

RISE = eras.ADJUSTMENTS[1]  # 1 March 2024
RAPID_RISE = eras.ADJUSTMENTS[0]  # 1 October 2022


def test_the_adjustment_is_due_at_the_close_of_the_last_period_before_its_day():
    feb, mar = (date(2024, 2, 29), date(2024, 3, 31))
    assert eras.adjustments_due(feb, mar, "standard") == (RISE,)
    assert eras.adjustments_due(date(2024, 1, 31), feb, "standard") == ()
    assert eras.adjustments_due(date(2024, 1, 31), mar, "blitz") == (RISE,)  # no February
    assert eras.adjustments_due(mar, None, "standard") == ()
    assert eras.adjustments_due(date(2022, 9, 30), date(2022, 10, 31), "standard") == ()
    assert eras.adjustments_due(date(2022, 9, 30), None, "rapid") == (RAPID_RISE, RISE)
    by_date, current = engine.Rules(), engine.Rules(fixed=date.max)
    assert engine.adjustments_due(by_date, feb, mar) == (RISE,)
    assert engine.adjustments_due(current, feb, mar) == ()  # one rule set for everything


def test_an_adjusted_period_raises_the_rating_after_and_a_player_without_games_gets_one():
    """1600 -> 1600 + 0.4 x 400 = 1760; a 1000 with no game -> 1000 + 400 = 1400; 2050 stays."""
    played = engine.PlayerPeriod(1600, "rated", PlayerState(1600, 40, 1650), games=1,
                                 rating_after=1600)  # fmt: skip
    raised = engine.adjusted(played.state, played, (RISE,))
    assert (raised.rating_after, raised.adjustment, raised.adjusted_on) == (1760, 160, RISE.on)
    assert (raised.state.rating, raised.state.peak_rating, raised.change) == (1760, 1760, 0)
    alone = engine.adjusted(PlayerState(1000, 3, 1000), None, (RISE,))
    assert (alone.status, alone.rating_before, alone.rating_after, alone.games) == (
        "adjusted", 1000, 1400, 0,
    )  # fmt: skip
    assert engine.adjusted(PlayerState(2050, 3, 2050), None, (RISE,)) is None
    assert engine.adjusted(PlayerState(None), None, (RISE,)) is None


def game(white, black, day, result="1/2-1/2", rating_list="standard"):
    return Game(date=day, white=white, black=black, result=result, rating_list=rating_list,
                period=RatingPeriod.objects.for_date(day))  # fmt: skip


def from_scratch():
    RatingChange.objects.all().delete()
    players = list(Player.objects.all())
    for player in players:
        player.start_from_entry()
    Player.objects.bulk_update(players, ["rating", "rated_games", "peak_rating", "last_rated_on",
                                         "last_change", "rapid_rating", "rapid_rated_games",
                                         "rapid_peak_rating", "rapid_last_rated_on",
                                         "rapid_last_change"])  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "rapid"])
    return snapshot()


def league(**rapid):
    """Three players rated 1600, 1600 and 1995 (K 20), a 1500 who plays only in January 2024,
    and a 2100; games in January, February and March 2024."""
    a, b, c = (PlayerFactory(entry_rating=r, entry_rated_games=40, birth_year=1970)
               for r in (1600, 1600, 1995))  # fmt: skip
    low = PlayerFactory(entry_rating=1500, entry_rated_games=40, birth_year=1970)
    high = PlayerFactory(entry_rating=2100, entry_rated_games=40, birth_year=1970)
    Game.objects.bulk_create([
        game(low, high, date(2024, 1, 10)),
        game(a, b, date(2024, 2, 10)),
        game(c, high, date(2024, 2, 12)),
        game(a, c, date(2024, 3, 5)),
    ])  # fmt: skip
    return a, b, c, low, high


def row(player, label, rating_list="standard"):
    return RatingChange.objects.get(player=player, period__label=label, rating_list=rating_list)


def test_the_list_closing_february_2024_carries_the_rise_as_an_event():
    """January: the 1500 draws with the 2100: D -600, capped -400, PD .08, dR +.42, K 20, +8.4
    -> +8, 1508 (the 2100: -8, 2092). February: a and b draw (1600 v 1600: +0); c (1995) draws
    with the 2092: D -97, PD .37, dR +.13, K 20, +2.6 -> +3, 1998. At February's close (FIDE's
    list of 1 March 2024): a and b 1600 -> 1600 + 0.4 x 400 = 1760; c 1998 + 0.4 x 2 = 1998.8
    -> 1999; the 1508, with no game in February, 1508 + 0.4 x 492 = 196.8 -> +197, 1705, in a
    row of its own; the 2089 stays. March opens at 1760 for a and 1999 for c."""
    a, b, c, low, high = league()
    recompute_lists(None, rating_lists=["standard"])
    assert (row(low, "2024-01").rating_after, row(low, "2024-01").adjustment) == (1508, 0)
    alone = row(low, "2024-02")
    assert (alone.status, alone.rating_before, alone.change, alone.adjustment) == (
        "adjusted", 1508, 0, 197,
    )  # fmt: skip
    assert (alone.rating_after, alone.games, alone.rated_games_after) == (1705, 0, 41)
    assert "0.4 x (2000 - rating)" in alone.adjustment_reason
    feb_a = row(a, "2024-02")
    assert (feb_a.change, feb_a.adjustment, feb_a.rating_after) == (0, 160, 1760)
    assert feb_a.adjusted_on == date(2024, 3, 1)
    assert (row(c, "2024-02").change, row(c, "2024-02").rating_after) == (3, 1999)
    assert (row(high, "2024-02").rating_after, row(high, "2024-02").adjustment) == (2089, 0)
    assert not RatingChange.objects.filter(player=b, period__label="2024-03").exists()
    assert (row(a, "2024-03").rating_before, row(c, "2024-03").rating_before) == (1760, 1999)
    assert Player.objects.get(pk=low.pk).rating == 1705
    assert Player.objects.get(pk=b.pk).rating == 1760


def test_the_ratings_a_replay_reports_moved_are_the_adjusted_ones():
    """b draws in February 2024 (1600, +0) and is raised to 1760 at its close, in the row of
    his games, his latest; the 1500 is raised alone (1705): the replay's summary reports both
    moves from their entry ratings as their fields now hold them, and the 2100 not at all."""
    a, b, c, low, high = league()
    summary = recompute_lists(None, rating_lists=["standard"])["standard"]
    moves = {move.player: (move.old, move.new) for move in summary.moves}
    assert moves[b.pk] == (1600, 1760) == (1600, Player.objects.get(pk=b.pk).rating)
    assert moves[low.pk] == (1500, 1705) == (1500, Player.objects.get(pk=low.pk).rating)
    assert moves[high.pk] == (2100, 2089)
    assert summary.players_changed == len(moves) == 5
    again = recompute_lists(None, rating_lists=["standard"])["standard"]
    assert again.moves == []  # nothing moved the second time
    assert again.players_changed == 0


def test_a_newcomer_rated_in_the_closing_period_is_raised_in_the_row_of_their_first_rating():
    """A newcomer whose first rating comes in February 2024 is on the list of 1 March 2024 with
    it raised, in the row of that first rating, as a player rated before would be; March opens
    with the raised rating, and a correction made incrementally leaves the rows a replay from
    scratch writes."""
    a, b, c, low, high = league()
    newcomer = PlayerFactory(entry_rating=None, entry_rated_games=0, birth_year=1970)
    Game.objects.bulk_create(
        [game(newcomer, opponent, date(2024, 2, 20)) for opponent in (a, b, c, low, high)]
        + [game(newcomer, a, date(2024, 3, 20))]
    )
    recompute_lists(None, rating_lists=["standard"])
    first = row(newcomer, "2024-02")
    assert (first.status, first.rating_before) == ("first_rating", None)
    rated = first.rating_after - first.adjustment  # the first rating, before the rise
    assert rated < 2000
    assert first.adjustment > 0
    assert first.rating_after == eras.adjusted_rating((RISE,), rated, None)
    assert (first.adjusted_on, first.peak_after) == (date(2024, 3, 1), first.rating_after)
    assert row(newcomer, "2024-03").rating_before == first.rating_after
    Game.objects.filter(white=low, black=high).update(result="1-0")
    recompute_from(RatingPeriod.objects.get(label="2024-01"), players={low.pk, high.pk})
    incremental = snapshot()
    assert from_scratch() == incremental


def test_a_list_without_games_in_the_closing_period_still_has_its_rated_players_raised():
    """No rapid game at all, a rapid 1500 (standard 1600) who plays no game: the lists closing
    February 2024 raise them on both, in rows of their own: rapid 1500 + 0.4 x 500 = 1700,
    standard 1600 + 0.4 x 400 = 1760."""
    league()
    idle = PlayerFactory(entry_rating=1600, entry_rated_games=40, rapid_entry_rating=1500,
                         rapid_entry_rated_games=40, birth_year=1970)  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "rapid"])
    rapid, standard = row(idle, "2024-02", "rapid"), row(idle, "2024-02")
    assert (rapid.status, rapid.rating_before, rapid.adjustment, rapid.rating_after) == (
        "adjusted", 1500, 200, 1700,
    )  # fmt: skip
    assert (standard.status, standard.adjustment, standard.rating_after) == ("adjusted", 160, 1760)
    idle.refresh_from_db()
    assert (idle.rating, idle.rapid_rating) == (1760, 1700)


@override_settings(LADDER_RULES_FIXED=date.max)
def test_a_club_rating_its_history_under_today_s_rules_makes_no_adjustment():
    a, *_ = league()
    recompute_lists(None, rating_lists=["standard"])
    assert not RatingChange.objects.exclude(adjustment=0).exists()
    assert row(a, "2024-02").rating_after == 1600


def test_a_correction_before_the_rise_makes_it_again_never_twice_and_undoes_it():
    """c's February draw with the 2092 corrected to a win: D -97, PD .37, dR +.63, K 20,
    +12.6 -> +13, 2008: no rise any more (the adjustment undone). a and b's February draw
    corrected to a win for a: +10, 1610 + 0.4 x 390 = 1766; b -10, 1590 + 0.4 x 410 = 1754."""
    a, b, c, low, high = league()
    recompute_lists(None, rating_lists=["standard"])
    Game.objects.filter(white=c).update(result="1-0")
    Game.objects.filter(white=a, date__month=2).update(result="1-0")

    recompute_from(RatingPeriod.objects.get(label="2024-02"), players={a.pk, b.pk, c.pk, high.pk})

    assert (row(c, "2024-02").rating_after, row(c, "2024-02").adjustment) == (2008, 0)
    assert (row(a, "2024-02").rating_after, row(a, "2024-02").adjustment) == (1766, 156)
    assert (row(b, "2024-02").rating_after, row(b, "2024-02").adjustment) == (1754, 164)
    state = snapshot()
    again = from_scratch()
    assert again == state


def test_an_adjustment_that_raises_nobody_is_made_once_and_later_corrections_stay_incremental():
    """A club rated 2100 and over: the rise of 1 March 2024 raises nobody and leaves no row.
    It is made all the same (February's list closed with it), so a correction in March rates
    the players it reaches, not the whole history again."""
    strong = [PlayerFactory(entry_rating=2100 + 10 * n, entry_rated_games=40, birth_year=1970)
              for n in range(6)]  # fmt: skip
    Game.objects.bulk_create(
        [game(strong[n], strong[n + 1], date(2024, month, 10 + n))
         for month in (1, 2, 3) for n in range(0, 6, 2)]
    )  # fmt: skip
    recompute_lists(None, rating_lists=["standard"])
    assert not RatingChange.objects.exclude(adjustment=0).exists()
    february, march = (RatingPeriod.objects.get(label=label) for label in ("2024-02", "2024-03"))
    assert AppliedAdjustment.objects.filter(period=february, adjusted_on=RISE.on).exists()
    assert not adjustment_missing(RatingPeriod.objects.get(label="2024-01"), "standard")
    Game.objects.filter(white=strong[0], date__month=3).update(result="1-0")

    summary = recompute_from(march, players={strong[0].pk, strong[1].pk})

    assert summary.rows == 2  # the two players of the game, in March (a replay: 18 rows)
    assert snapshot() == from_scratch()


def test_a_period_created_before_the_day_takes_the_adjustment_over():
    """The club had no February 2024: the rise went to January's list. A February game
    recorded later moves it to February's."""
    a, b = (PlayerFactory(entry_rating=1600, entry_rated_games=40, birth_year=1970)
            for _ in range(2))  # fmt: skip
    Game.objects.bulk_create([game(a, b, date(2024, 1, 10)), game(a, b, date(2024, 3, 10))])
    recompute_lists(None, rating_lists=["standard"])
    assert row(a, "2024-01").adjustment == 160
    Game.objects.bulk_create([game(a, b, date(2024, 2, 10), "1-0")])

    recompute_from(RatingPeriod.objects.get(label="2024-02"), players={a.pk, b.pk})

    assert row(a, "2024-01").adjustment == 0
    assert (row(a, "2024-02").adjustment, row(a, "2024-02").rating_after) == (156, 1766)
    state = snapshot()
    again = from_scratch()
    assert again == state


def test_rapid_ratings_more_than_100_below_standard_rise_on_1_october_2022():
    """Standard 2000, rapid 1700: September 2022's rapid draw against a rapid 1700 leaves 1700
    (K 20), raised at September's close to 2000 - 100 = 1900 (+200); its opponent (standard
    1750, rapid 1700: within 100) stays. October opens at 1900."""
    strong = PlayerFactory(entry_rating=2000, rapid_entry_rating=1700, rapid_entry_rated_games=40,
                           birth_year=1970)  # fmt: skip
    other = PlayerFactory(entry_rating=1750, rapid_entry_rating=1700, rapid_entry_rated_games=40,
                          birth_year=1970)  # fmt: skip
    Game.objects.bulk_create([
        game(strong, other, date(2022, 9, 10), rating_list="rapid"),
        game(strong, other, date(2022, 10, 10), rating_list="rapid"),
    ])  # fmt: skip
    recompute_from(None, rating_list="rapid")
    sept = row(strong, "2022-09", "rapid")
    assert (sept.change, sept.adjustment, sept.rating_after) == (0, 200, 1900)
    assert "standard rating - 100" in sept.adjustment_reason
    assert row(other, "2022-09", "rapid").adjustment == 0
    assert row(strong, "2022-10", "rapid").rating_before == 1900
    # A standard entry rating corrected to 1900 reaches the rapid list: 1900 - 100 = 1800.
    Player.objects.filter(pk=strong.pk).update(entry_rating=1900, entry_peak_rating=1900)
    recompute_from(None, players={strong.pk})
    assert row(strong, "2022-09", "rapid").rating_after == 1800
    state = snapshot()
    again = from_scratch()
    assert again == state


def test_a_standard_correction_months_before_the_rapid_rise_reaches_rapid_from_the_rise_on():
    """A standard result of June 2022 corrected moves both players' standard ratings; on the
    rapid list that reaches them only at the rise (the list closing September 2022 reads the
    standard one): their rapid periods are rated again from September on, not from June, and
    come out as a full replay gives them."""
    a = PlayerFactory(entry_rating=2000, rapid_entry_rating=1700, rapid_entry_rated_games=40,
                      birth_year=1970)  # fmt: skip
    b = PlayerFactory(entry_rating=1990, rapid_entry_rating=1750, rapid_entry_rated_games=40,
                      birth_year=1970)  # fmt: skip
    c = PlayerFactory(entry_rating=1800, rapid_entry_rating=1800, rapid_entry_rated_games=40,
                      birth_year=1970)  # fmt: skip
    standard = game(a, b, date(2022, 6, 10), result="1-0")
    Game.objects.bulk_create([
        standard,
        *(game(a, c, date(2022, month, 12), rating_list="rapid") for month in (6, 7, 8, 9, 10)),
        *(game(b, c, date(2022, month, 14), rating_list="rapid") for month in (6, 9, 10)),
    ])  # fmt: skip
    recompute_lists(None, rating_lists=["standard", "rapid"])
    june = RatingChange.objects.filter(period__label="2022-06", rating_list="rapid")
    june_rows = sorted(june.values_list("pk", "player_id", "rating_after"))

    Game.objects.filter(pk=standard.pk).update(result="0-1")
    summary = recompute_from(RatingPeriod.objects.get(label="2022-06"), players={a.pk, b.pk})

    assert summary.followed["rapid"].periods[0] == "2022-09"
    assert sorted(june.values_list("pk", "player_id", "rating_after")) == june_rows
    state = snapshot()
    assert from_scratch() == state


def test_the_player_page_and_the_api_give_the_reason_in_the_readers_language(client):
    a, *_ = league()
    recompute_lists(None, rating_lists=["standard"])
    page = client.get(f"/players/{a.pk}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "um 0,4 x (2000 - Wertung) angehoben" in page
    history = client.get(
        f"/api/v1/players/{a.pk}/history/?list=standard", HTTP_ACCEPT_LANGUAGE="fr"
    ).json()
    rows = history["results"] if isinstance(history, dict) else history
    reasons = [r["adjustment_reason"] for r in rows if r["adjustment"]]
    assert reasons
    assert reasons[0].startswith("Tout classement inférieur à 2000 est relevé")
    assert reasons[0].endswith("— Rating regulations of 1 March 2024, one-off (FIDE.md 10.2)")


def test_the_published_list_gives_the_rating_before_the_games_on_adjusted_lines(committed):
    """As published, February 2024's list says what each line started from, as the live list
    does: a 1600 (drew, +0, raised by 160 to 1760), the 1508 raised alone (197, to 1705), the
    1995 (+3, raised by 1, to 1999). It used to read the rating less the change: 1760, 1705."""
    a, b, c, low, high = league()
    with committed():
        recompute_lists(None, rating_lists=["standard"])
    for label in ("2024-01", "2024-02"):
        actions.close_period(period=RatingPeriod.objects.get(label=label))
    february = RatingPeriod.objects.get(label="2024-02")
    published = official.period_list(february, "standard")
    assert published.publication is not None
    opening = {e.player.pk: e.as_dict()["rating_before"] for e in published.entries}
    assert (opening[a.pk], opening[low.pk], opening[c.pk]) == (1600, 1508, 1995)
    live = {e.player.pk: e.rating_before for e in selectors.rating_list(february, "standard")}
    assert opening == live
    out = StringIO()
    call_command("rating_list", "--period", "2024-02", "--format", "json", stdout=out)
    rows = json.loads(out.getvalue())
    rows = rows["players"] if isinstance(rows, dict) else rows
    assert {r["id"]: r["rating_before"] for r in rows}[low.pk] == 1508
