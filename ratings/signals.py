"""Glue from the club's records to the ratings: a change schedules a recompute after commit.

Receivers only note the earliest period affected; one recompute runs when the transaction
commits, however many games it wrote. ``bulk_create`` and ``QuerySet.update`` send no signals:
bulk writers call ``ratings.services.recompute_from`` themselves.
"""

from __future__ import annotations

import threading

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save

from ladder.models import PLAYER_ENTRY_FIELDS, Game, Player, RatingPeriod

_pending = threading.local()


def connect() -> None:
    pre_save.connect(_remember_game, sender=Game, dispatch_uid="ratings_game_pre_save")
    post_save.connect(_game_saved, sender=Game, dispatch_uid="ratings_game_saved")
    post_delete.connect(_game_deleted, sender=Game, dispatch_uid="ratings_game_deleted")
    pre_save.connect(_remember_player, sender=Player, dispatch_uid="ratings_player_pre_save")
    post_save.connect(_player_saved, sender=Player, dispatch_uid="ratings_player_saved")


def _remember_game(sender, instance: Game, raw: bool = False, **kwargs) -> None:
    if raw or instance.pk is None:
        instance._old_period_id = None
        return
    instance._old_period_id = (
        Game.objects.filter(pk=instance.pk).values_list("period_id", flat=True).first()
    )


def _game_saved(sender, instance: Game, raw: bool = False, **kwargs) -> None:
    if raw:
        return
    schedule(instance.period_id, getattr(instance, "_old_period_id", None))


def _game_deleted(sender, instance: Game, **kwargs) -> None:
    schedule(instance.period_id)


def _remember_player(sender, instance: Player, raw: bool = False, **kwargs) -> None:
    instance._entry_changed = False
    if raw or instance._state.adding:
        return  # a new player starts from the entry data (Player.save)
    old = Player.objects.filter(pk=instance.pk).values_list(*PLAYER_ENTRY_FIELDS).first()
    instance._entry_changed = old != tuple(getattr(instance, f) for f in PLAYER_ENTRY_FIELDS)


def _player_saved(sender, instance: Player, raw: bool = False, **kwargs) -> None:
    if raw or not getattr(instance, "_entry_changed", False):
        return
    first = Game.objects.for_player(instance).order_by("date").values_list("period_id").first()
    if first is not None:
        schedule(first[0])
        return
    player_id = instance.pk
    transaction.on_commit(lambda: _refresh_player(player_id))


def _refresh_player(player_id: int) -> None:
    from . import services

    player = Player.objects.filter(pk=player_id).first()
    if player is not None:
        services.recompute_for_player(player)


def recompute_pending():
    """Run the recompute this transaction has scheduled now, and return its summary.

    For adapters that report what a change did (the admin): the recompute that would have run
    on commit then has nothing left to do. Returns None when nothing is pending.
    """
    from . import services

    start = getattr(_pending, "start", None)
    if start is None:
        return None
    _pending.start = None
    period = RatingPeriod.objects.filter(start__gte=start).order_by("start").first()
    return services.recompute_from(period) if period is not None else None


def schedule(*period_ids: int | None) -> None:
    """Recompute from the earliest of these periods once the current transaction commits."""
    starts = list(
        RatingPeriod.objects.filter(pk__in=[p for p in period_ids if p]).values_list(
            "start", flat=True
        )
    )
    if not starts:
        return
    earliest = min(starts)
    connection = transaction.get_connection()
    pending = getattr(_pending, "start", None)
    registered = (
        pending is not None
        and connection.in_atomic_block
        and any(func is _run for _, func, _ in connection.run_on_commit)
    )
    if registered:
        _pending.start = min(pending, earliest)
        return
    # A rolled-back transaction drops its callbacks, so a new registration starts afresh.
    _pending.start = earliest
    transaction.on_commit(_run)


def _run() -> None:
    from . import services

    start = getattr(_pending, "start", None)
    _pending.start = None
    if start is None:
        return
    period = RatingPeriod.objects.filter(start__gte=start).order_by("start").first()
    if period is not None:
        services.recompute_from(period)
