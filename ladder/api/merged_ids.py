"""What a merged player's id answers at the API: a read is moved for good to the kept player
(301, with ``Location`` and ``merged_into``); a write is gone (410, with ``merged_into``): it
would change a record whose games are another's now. Documented in the schema
(``MERGED_ANSWERS``)."""

from __future__ import annotations

from http import HTTPStatus

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import APIException
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response

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


class PlayerMerged(APIException):
    """A merged player's id: 301 for a read (``location``), 410 for a write."""

    def __init__(self, merged: Player, kept_id: int, location: str | None) -> None:
        self.kept_id, self.location = kept_id, location
        self.status_code = HTTPStatus.MOVED_PERMANENTLY if location else HTTPStatus.GONE
        super().__init__(f"Player #{merged.pk} was merged into player #{kept_id}.")


class MergedRedirectMixin:
    """For a viewset of players: a merged player's id answers 301 (reads) or 410 (writes)."""

    def get_object(self) -> Player:
        player: Player = super().get_object()  # type: ignore[misc]
        request: Request = self.request  # type: ignore[attr-defined]
        if player.merged_into_id is None:
            return player
        kept = kept_for(player)
        location = None
        if request.method in SAFE_METHODS:
            path = request.path.replace(f"/{player.pk}/", f"/{kept}/", 1)
            query = request.META.get("QUERY_STRING")
            location = request.build_absolute_uri(path + (f"?{query}" if query else ""))
        raise PlayerMerged(player, kept, location)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, PlayerMerged):
            headers = {"Location": exc.location} if exc.location else {}
            data = {"detail": str(exc.detail), "merged_into": exc.kept_id}
            return Response(data, status=exc.status_code, headers=headers)
        return super().handle_exception(exc)  # type: ignore[misc]
