"""The scope rule: which ratings a change to a game or a player can move.

One rule, one home: for a change at one moment of its write (before a save, after it, after a
delete), the recomputes it needs, each a list, the period to rate from and the players whose
own inputs changed (``ratings.runs.signals`` records them; the run rates whoever those players
reach). A change that needs nothing gives an empty list.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ladder.records import PLAYER_ENTRY_FIELDS, Game, Player, RatingList, RatingPeriod, entry_fields


class Moment(Enum):
    """When in its write a change is seen."""

    BEFORE_SAVE = "before save"  # the stored row still holds the old values
    SAVED = "saved"
    DELETED = "deleted"


@dataclass(frozen=True)
class Needed:
    """A recompute that a change needs: ``rating_list`` from ``period`` (None: the first) for
    ``players``. ``schedule`` False: recorded only, before the write (the request after it
    schedules the run)."""

    rating_list: str
    period: RatingPeriod | None
    players: frozenset[int]
    reason: str
    schedule: bool = True


def needed(
    instance: Game | Player, moment: Moment, *, created: bool = False, raw: bool = False
) -> list[Needed]:
    """Return the recomputes that this change of a game or a player needs at ``moment``.

    A fixture load (``raw``) needs none: it brings its ratings with it. A game needs its list
    from its period for both players, entered, corrected or deleted; a correction that moves it
    to another list, period or pair of players needs the old ones too, read before the save.
    A player's entry data needs, for each list whose entry fields changed (a birth year: every
    list), that list from the player's first game on it; for the standard list, from their
    first game on any list, since a standard rating seeds rapid and blitz (R&B 7.2.1: the
    standard run then rates the other lists again from there, ``services.follow_standard``).
    """
    if raw:
        return []
    if isinstance(instance, Game):
        if moment is Moment.BEFORE_SAVE:
            return _game_taken_away(instance)
        if moment is Moment.DELETED:
            period = RatingPeriod.objects.filter(pk=instance.period_id).first()
            return [_game(instance, period, "deleted")]
        return [_game(instance, instance.period, "entered" if created else "corrected")]
    if moment is Moment.BEFORE_SAVE:
        return _entry_data_changed(instance)
    return []  # a new player starts from the entry data (Player.save)


def _game(game: Game, period: RatingPeriod | None, verb: str) -> Needed:
    players = frozenset({game.white_id, game.black_id})
    return Needed(game.rating_list, period, players, f"Game #{game.pk} {verb}")


def _game_taken_away(game: Game) -> list[Needed]:
    """The list, period and players a correction takes the game away from, if any."""
    if game._state.adding or game.pk is None:
        return []
    old = Game.objects.filter(pk=game.pk).select_related("period").first()
    if old is None:
        return []
    players = frozenset({old.white_id, old.black_id})
    if (old.rating_list, old.period_id, players) == (
        game.rating_list, game.period_id, frozenset({game.white_id, game.black_id})
    ):  # fmt: skip
        return []  # the request after the save covers the same list, period and players
    return [Needed(old.rating_list, old.period, players, f"Game #{old.pk} corrected", False)]


def _entry_data_changed(player: Player) -> list[Needed]:
    """Each list whose entry data of the player's a save changes, from their first game on it."""
    if player._state.adding:
        return []
    old = Player.objects.filter(pk=player.pk).values(*PLAYER_ENTRY_FIELDS).first()
    if old is None:
        return []
    found = []
    for rating_list in RatingList.values:
        if all(old[name] == getattr(player, name) for name in entry_fields(rating_list)):
            continue
        games = Game.objects.for_player(player)
        if rating_list != RatingList.STANDARD:
            games = games.on_list(rating_list)
        first = games.order_by("date").select_related("period").first()
        found.append(
            Needed(
                rating_list,
                first.period if first else None,
                frozenset({player.pk}),
                f"Entry data of {player.name} changed",
                schedule=False,
            )
        )
    return found
