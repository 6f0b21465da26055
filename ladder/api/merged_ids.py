"""What a merged player's id answers at the API: a read is moved for good to the kept player
(301, with ``Location`` and ``merged_into``); a write is gone (410, with ``merged_into``): it
would change a record whose games are another's now. Documented in the schema
(``MERGED_ANSWERS``)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from ladder.api.exceptions import PlayerMerged
from ladder.records import Player
from ladder.records.merges import kept_for


class MovedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    merged_into = serializers.IntegerField(help_text="The id of the player kept.")


MOVED = OpenApiResponse(
    MovedSerializer,
    "The player was merged into another: `Location` (301, reads) names the kept player, and "
    "`merged_into` is the kept player's id; a write to the merged record is 410 Gone.",
    examples=[
        OpenApiExample(
            "Merged",
            {"detail": "Player #7 was merged into player #3.", "merged_into": 3},
            response_only=True,
        )
    ],
)
MERGED_ANSWERS = {301: MOVED, 410: MOVED}


def refuse_merged(request: Request, **players: Player) -> None:
    """Raise ``PlayerMerged`` when one of ``players`` (by their URL argument's name) was
    merged: a read is sent to the same URL with the kept players' ids."""
    merged = [p for p in players.values() if p.merged_into_id is not None]
    if not merged:
        return
    kept = {name: kept_for(p) for name, p in players.items()}
    location = None
    match = request.resolver_match
    if request.method in SAFE_METHODS and match is not None:
        kwargs = dict(match.kwargs) | kept
        query = request.META.get("QUERY_STRING")
        path = reverse(match.view_name, kwargs=kwargs) + (f"?{query}" if query else "")
        location = request.build_absolute_uri(path)
    first = merged[0]
    raise PlayerMerged(first.pk, kept_for(first), location)


class MergedRedirectMixin:
    """For a viewset of players: a merged player's id answers 301 (reads) or 410 (writes)."""

    def get_object(self) -> Player:
        player: Player = super().get_object()  # type: ignore[misc]
        request: Request = self.request  # type: ignore[attr-defined]
        lookup = self.lookup_url_kwarg or self.lookup_field  # type: ignore[attr-defined]
        refuse_merged(request, **{lookup: player})
        return player
