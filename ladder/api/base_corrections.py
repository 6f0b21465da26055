"""Base corrections at the API (FIDE.md 10.1): a corrected starting rating for a player on a
list in a period, with a reason; written through ``actions.save_base_correction``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets

from ladder.api.schema import errors
from ladder.api.serializers import PeriodLabelField
from ladder.api.views import ApiMixin
from ladder.records import BaseCorrection, Player
from ladder.writes import actions


class BaseCorrectionSerializer(serializers.ModelSerializer):
    """A corrected starting rating: the player (id), the period (label), the list, the rating
    and the reason; who made it and when are the server's."""

    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    period = PeriodLabelField(
        help_text="The period whose opening list is corrected (e.g. 2025-04: the list in force "
        "during April 2025).",
    )
    user: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    field_examples = {"rating": 2053, "reason": "FIDE's calculation starts from 2053."}

    class Meta:
        model = BaseCorrection
        fields = ["id", "player", "rating_list", "period", "rating", "reason", "user", "at"]
        read_only_fields = ["id", "user", "at"]
        # The write path checks that it is recorded once (a conflict, 409), not the serializer.
        validators: list = []


@extend_schema_view(
    list=extend_schema(
        summary="List base corrections",
        responses={200: BaseCorrectionSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a base correction", responses={200: BaseCorrectionSerializer, **errors(404)}
    ),
    create=extend_schema(
        summary="Record a base correction",
        description="Needs `ladder.add_basecorrection`. The period is rated again from the "
        "corrected rating; it must be open (409).",
        responses={201: BaseCorrectionSerializer, **errors(400, 401, 403, 409)},
    ),
    update=extend_schema(
        summary="Replace a base correction",
        description="Needs `ladder.change_basecorrection`.",
        responses={200: BaseCorrectionSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    partial_update=extend_schema(
        summary="Change a base correction",
        description="Needs `ladder.change_basecorrection`.",
        responses={200: BaseCorrectionSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    destroy=extend_schema(
        summary="Delete a base correction",
        description="Needs `ladder.delete_basecorrection`; the period is rated from the list "
        "again (it must be open, 409).",
        responses={204: None, **errors(401, 403, 404, 409)},
    ),
)
class BaseCorrectionViewSet(
    ApiMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    queryset = BaseCorrection.objects.select_related("player", "period", "user")
    serializer_class = BaseCorrectionSerializer
    filter_backends: list = []
    ordering = ["period__start", "player_id"]

    def perform_create(self, serializer) -> None:
        correction = BaseCorrection(**serializer.validated_data)
        serializer.instance = actions.save_base_correction(
            correction=correction, user=self.request.user
        )

    def perform_update(self, serializer) -> None:
        correction = serializer.instance
        for name, value in serializer.validated_data.items():
            setattr(correction, name, value)
        actions.save_base_correction(correction=correction, user=self.request.user)

    def perform_destroy(self, instance: BaseCorrection) -> None:
        actions.delete_base_corrections(corrections=[instance], user=self.request.user)
