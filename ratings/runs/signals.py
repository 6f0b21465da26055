"""Glue from the club's records to the ratings: a change records a durable recompute request.

The receivers only record *which* ratings a change can move (from which period, for which
players) in the change's own transaction, through ``ratings.runs.request_recompute``; the run
that rates them executes after the commit (``ratings.runs``). So a raw ORM save or a shell edit
is rated too, and a crash after the commit loses nothing. ``bulk_create`` and
``QuerySet.update`` send no signals: bulk writers (the import action) request the run
themselves.

A correction's *old* period and players are read before the row is overwritten (``pre_save``)
and recorded without scheduling; the ``post_save`` request that follows the write schedules the
run. Nothing is parked on instances or threads.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save, pre_save

from ladder.records import PLAYER_ENTRY_FIELDS, Game, Player, RatingList, RatingPeriod, entry_fields
from ratings import runs


def connect() -> None:
    pre_save.connect(_game_changing, sender=Game, dispatch_uid="ratings_game_changing")
    post_save.connect(_game_saved, sender=Game, dispatch_uid="ratings_game_saved")
    post_delete.connect(_game_deleted, sender=Game, dispatch_uid="ratings_game_deleted")
    pre_save.connect(_player_changing, sender=Player, dispatch_uid="ratings_player_changing")
    post_save.connect(_player_saved, sender=Player, dispatch_uid="ratings_player_saved")


def _game_changing(sender: Any, instance: Game, raw: bool = False, **kwargs: Any) -> None:
    """Record the period and players a correction takes the game away from."""
    if raw or instance._state.adding or instance.pk is None:
        return
    old = Game.objects.filter(pk=instance.pk).select_related("period").first()
    if old is None:
        return
    players = {old.white_id, old.black_id}
    same_list = old.rating_list == instance.rating_list
    if (
        same_list
        and old.period_id == instance.period_id
        and players
        == {
            instance.white_id,
            instance.black_id,
        }
    ):
        return  # the post_save request covers the same list, period and players
    runs.request_recompute(
        rating_list=old.rating_list,
        period=old.period,
        players=players,
        reason=f"Game #{old.pk} corrected",
        schedule=False,
    )


def _game_saved(sender: Any, instance: Game, raw: bool = False, created: bool = False,
                **kwargs: Any) -> None:  # fmt: skip
    if raw:
        return
    verb = "entered" if created else "corrected"
    runs.request_recompute(
        rating_list=instance.rating_list,
        period=instance.period,
        players={instance.white_id, instance.black_id},
        reason=f"Game #{instance.pk} {verb}",
    )


def _game_deleted(sender: Any, instance: Game, **kwargs: Any) -> None:
    period = RatingPeriod.objects.filter(pk=instance.period_id).first()
    runs.request_recompute(
        rating_list=instance.rating_list,
        period=period,
        players={instance.white_id, instance.black_id},
        reason=f"Game #{instance.pk} deleted",
    )


def _player_changing(sender: Any, instance: Player, raw: bool = False, **kwargs: Any) -> None:
    """Record a change to a player's entry data: their ratings on that list change from their
    first game on it (a birth year, on every list)."""
    if raw or instance._state.adding:
        return  # a new player starts from the entry data (Player.save)
    old = Player.objects.filter(pk=instance.pk).values(*PLAYER_ENTRY_FIELDS).first()
    if old is None:
        return
    for rating_list in RatingList.values:
        fields = entry_fields(rating_list)
        if all(old[name] == getattr(instance, name) for name in fields):
            continue
        games = Game.objects.for_player(instance).on_list(rating_list)
        first = games.order_by("date").select_related("period").first()
        runs.request_recompute(
            rating_list=rating_list,
            period=first.period if first else None,
            players={instance.pk},
            reason=f"Entry data of {instance.name} changed",
            schedule=False,
        )


def _player_saved(sender: Any, instance: Player, raw: bool = False, created: bool = False,
                  **kwargs: Any) -> None:  # fmt: skip
    if not raw and not created:
        runs.schedule_queued()
