"""The scope rule (ratings.runs.scope): which list, from which period, for which players a
change to a game or a player needs a recompute."""

from datetime import date

import pytest

from ladder.records import Game, Player, RatingPeriod
from ratings.runs.scope import Moment, Needed, needed
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def period(label):
    return RatingPeriod.objects.get(label=label)


def test_a_game_needs_its_list_from_its_period_for_both_players():
    game = GameFactory()
    pair = frozenset({game.white_id, game.black_id})
    march = period("2026-03")
    assert needed(game, Moment.SAVED, created=True) == [
        Needed("standard", march, pair, f"Game #{game.pk} entered")
    ]
    assert needed(game, Moment.SAVED) == [
        Needed("standard", march, pair, f"Game #{game.pk} corrected")
    ]
    assert needed(game, Moment.DELETED) == [
        Needed("standard", march, pair, f"Game #{game.pk} deleted")
    ]
    assert needed(game, Moment.SAVED, created=True, raw=True) == []  # a fixture brings its ratings


def test_a_correction_in_place_needs_nothing_more_before_the_save():
    game = GameFactory()
    game.result = "0-1"
    assert needed(game, Moment.BEFORE_SAVE) == []
    assert needed(GameFactory.build(), Moment.BEFORE_SAVE) == []  # a new game takes nothing away


def test_a_game_moved_needs_its_old_list_period_and_players_recorded_before_the_save():
    game = GameFactory()
    old_pair = frozenset({game.white_id, game.black_id})
    GameFactory(date=date(2026, 4, 2))  # April's period exists
    moved = Game.objects.get(pk=game.pk)
    moved.white, moved.rating_list = PlayerFactory(), "rapid"
    moved.date, moved.period = date(2026, 4, 2), period("2026-04")
    assert needed(moved, Moment.BEFORE_SAVE) == [
        Needed("standard", period("2026-03"), old_pair, f"Game #{game.pk} corrected", False)
    ]


def test_entry_data_need_their_list_from_the_players_first_game_on_it():
    player = PlayerFactory()
    GameFactory(white=player, date=date(2026, 4, 9))
    GameFactory(black=player, date=date(2026, 3, 9))
    changed = Player.objects.get(pk=player.pk)
    changed.entry_rating = (player.entry_rating or 1500) + 50
    reason = f"Entry data of {player.name} changed"
    only = frozenset({player.pk})
    assert needed(changed, Moment.BEFORE_SAVE) == [
        Needed("standard", period("2026-03"), only, reason, False)
    ]
    changed = Player.objects.get(pk=player.pk)
    changed.birth_year = (player.birth_year or 1990) - 1  # every list; no rapid or blitz game
    assert needed(changed, Moment.BEFORE_SAVE) == [
        Needed("standard", period("2026-03"), only, reason, False),
        Needed("rapid", None, only, reason, False),
        Needed("blitz", None, only, reason, False),
    ]
    assert needed(Player.objects.get(pk=player.pk), Moment.BEFORE_SAVE) == []  # unchanged
    assert needed(PlayerFactory.build(), Moment.BEFORE_SAVE) == []  # a new player: entry data
    assert needed(changed, Moment.SAVED) == []  # recorded before the save, scheduled by it


def test_a_standard_rating_s_entry_data_need_it_from_the_first_game_on_any_list():
    """R&B 7.2.1: the standard rating seeds an unrated player's blitz rating, so a standard
    entry rating changed reaches back to a blitz game older than every standard game."""
    player = PlayerFactory(blitz_entry_rating=None)
    GameFactory(white=player, date=date(2026, 4, 9))
    GameFactory(black=player, date=date(2026, 2, 9), rating_list="blitz", time_control="3+2")
    changed = Player.objects.get(pk=player.pk)
    changed.entry_rating = (player.entry_rating or 1500) + 50
    assert needed(changed, Moment.BEFORE_SAVE) == [
        Needed("standard", period("2026-02"), frozenset({player.pk}),
               f"Entry data of {player.name} changed", False)
    ]  # fmt: skip
