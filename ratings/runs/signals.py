"""Glue from the club's records to the ratings: a change records a durable recompute request.

The receivers only record *which* ratings a change can move (from which period, for which
players: one rule, ``ratings.runs.scope``) in the change's own transaction, through
``ratings.runs.request_recompute``; the run that rates them executes after the commit
(``ratings.runs``). So a raw ORM save or a shell edit is rated too, and a crash after the
commit loses nothing. ``bulk_create`` and
``QuerySet.update`` send no signals: bulk writers (the import action) request the run
themselves.

A correction's *old* period and players are read before the row is overwritten (``pre_save``)
and recorded without scheduling; the ``post_save`` request that follows the write schedules the
run. Nothing is parked on instances or threads.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import request_started
from django.db.models.signals import post_delete, post_save, pre_save

from ladder.records import Game, Player
from ratings import runs
from ratings.runs import scope, sweeper


def connect() -> None:
    pre_save.connect(_game_changing, sender=Game, dispatch_uid="ratings_game_changing")
    post_save.connect(_game_saved, sender=Game, dispatch_uid="ratings_game_saved")
    post_delete.connect(_game_deleted, sender=Game, dispatch_uid="ratings_game_deleted")
    pre_save.connect(_player_changing, sender=Player, dispatch_uid="ratings_player_changing")
    post_save.connect(_player_saved, sender=Player, dispatch_uid="ratings_player_saved")
    request_started.connect(_serving, dispatch_uid="ratings_sweeper")


def _request(found: list[scope.Needed]) -> None:
    """Record each recompute the change needs (``ratings.runs.scope``)."""
    for each in found:
        runs.request_recompute(
            rating_list=each.rating_list,
            period=each.period,
            players=each.players,
            reason=each.reason,
            schedule=each.schedule,
        )


def _game_changing(sender: Any, instance: Game, raw: bool = False, **kwargs: Any) -> None:
    """Record the period and players a correction takes the game away from."""
    _request(scope.needed(instance, scope.Moment.BEFORE_SAVE, raw=raw))


def _game_saved(sender: Any, instance: Game, raw: bool = False, created: bool = False,
                **kwargs: Any) -> None:  # fmt: skip
    _request(scope.needed(instance, scope.Moment.SAVED, created=created, raw=raw))


def _game_deleted(sender: Any, instance: Game, **kwargs: Any) -> None:
    _request(scope.needed(instance, scope.Moment.DELETED))


def _player_changing(sender: Any, instance: Player, raw: bool = False, **kwargs: Any) -> None:
    """Record a change to a player's entry data (recorded only: the save schedules it)."""
    _request(scope.needed(instance, scope.Moment.BEFORE_SAVE, raw=raw))


def _player_saved(sender: Any, instance: Player, raw: bool = False, created: bool = False,
                  **kwargs: Any) -> None:  # fmt: skip
    if not raw and not created:
        runs.schedule_queued()  # what the entry data's change recorded before the save


def _serving(sender: Any, **kwargs: Any) -> None:
    """A process serves requests: in immediate mode it sweeps for runs nobody executes."""
    if settings.LADDER_RECOMPUTE == "immediate":
        sweeper.start(settings.LADDER_RUN_SWEEP_SECONDS)
