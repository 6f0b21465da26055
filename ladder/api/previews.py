"""``?dry_run=true`` on the game writes: what the write would do to the ratings, writing nothing.

A dry run validates exactly as the write (the same serializer, then the same action through
``ladder.writes.previews``: the same 400 field errors, the same 409 for a closed period) and answers
200 with the preview. It is never recorded as an idempotent answer (a retry of the real write
with the same key is still the first one) and moves no data version: nothing commits.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.response import Response

from ladder.writes import previews
from ladder.writes.validation import GameEntry

DRY_RUN = OpenApiParameter(
    "dry_run",
    OpenApiTypes.BOOL,
    description="true: validate and answer 200 with what the write would do to the ratings "
    "(the periods recomputed, each player's rating old and new), writing nothing.",
)


class DryRunQuery(serializers.Serializer):
    dry_run = serializers.BooleanField(required=False, default=False)

    @classmethod
    def read(cls, params) -> bool:
        """Return whether the request asks for a dry run; 400 on a value that is no boolean."""
        query = cls(data={"dry_run": params["dry_run"]} if "dry_run" in params else {})
        query.is_valid(raise_exception=True)
        return bool(query.validated_data["dry_run"])


class RatingAheadSerializer(serializers.Serializer):
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField()
    rating_list = serializers.CharField()
    old_rating = serializers.IntegerField(source="old", allow_null=True, help_text="Null: unrated.")
    new_rating = serializers.IntegerField(source="new", allow_null=True, help_text="Null: unrated.")


class LineAheadSerializer(serializers.Serializer):
    period = serializers.CharField()
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField()
    rating_list = serializers.CharField()
    old_rating = serializers.IntegerField(
        allow_null=True, help_text="The rating after the period (null: no line, or unrated)."
    )
    new_rating = serializers.IntegerField(allow_null=True)
    old_change = serializers.IntegerField(allow_null=True, help_text="Null: no line.")
    new_change = serializers.IntegerField(allow_null=True)


class PreviewSerializer(serializers.Serializer):
    """What a write would do to the ratings (a dry run: nothing was written)."""

    summary = serializers.CharField(source="headline")
    periods = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="By list, the periods that would be recomputed.",
    )
    players = RatingAheadSerializer(
        many=True, help_text="Each player whose rating would change, old and new."
    )
    lines = LineAheadSerializer(
        many=True, help_text="Each period's line whose rating or change would move."
    )


def answer(preview: previews.Preview) -> Response:
    return Response(PreviewSerializer(preview).data)


class GamePreviewMixin:
    """Game create, update, partial update and delete with ``?dry_run=true``."""

    def create(self, request, *args, **kwargs):
        if not DryRunQuery.read(request.query_params):
            return super().create(request, *args, **kwargs)  # type: ignore[misc]
        serializer = self.get_serializer(data=request.data)  # type: ignore[attr-defined]
        serializer.is_valid(raise_exception=True)
        entry = GameEntry(**serializer.validated_data)
        return answer(previews.entry(games=[entry], user=request.user))

    def update(self, request, *args, **kwargs):
        if not DryRunQuery.read(request.query_params):
            return super().update(request, *args, **kwargs)  # type: ignore[misc]
        game = self.get_object()  # type: ignore[attr-defined]
        partial = kwargs.get("partial", False)
        serializer = self.get_serializer(game, data=request.data, partial=partial)  # type: ignore[attr-defined]
        serializer.is_valid(raise_exception=True)
        changes = serializer.validated_data
        return answer(previews.correction(game=game, changes=changes, user=request.user))

    def destroy(self, request, *args, **kwargs):
        if not DryRunQuery.read(request.query_params):
            return super().destroy(request, *args, **kwargs)  # type: ignore[misc]
        game = self.get_object()  # type: ignore[attr-defined]
        return answer(previews.deletion(games=[game], user=request.user))
