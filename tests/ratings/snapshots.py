"""What a rating run leaves, to compare two runs that must agree (incremental and full, read
ahead or not, in the background or not): every rating row and every player, sorted."""

from __future__ import annotations

from typing import Any

from ladder.records import Player
from ratings.models import RatingChange

# Every column a run writes but the row's id (the period by its label, which a test that
# deletes and recreates periods keeps); the first three make a row unique, so that sorting
# never compares the columns that may be null.
_ROW = ("player_id", "rating_list", "period__label") + tuple(
    field.attname
    for field in RatingChange._meta.concrete_fields
    if field.attname not in {"id", "player_id", "rating_list", "period_id"}
)
# Every field of a player, the derived state of each list and the entry data alike, but when
# the record was written.
_PLAYER = tuple(
    field.attname
    for field in Player._meta.concrete_fields
    if field.attname not in {"created", "updated"}
)


def snapshot() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every rating row and every player, each sorted the same way whatever the order written."""
    rows = sorted(RatingChange.objects.values_list(*_ROW))
    return rows, list(Player.objects.order_by("pk").values_list(*_PLAYER))
