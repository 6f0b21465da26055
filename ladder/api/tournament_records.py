"""Tournaments at the API: list, read, add and change them (FIDE.md 10.1).

A tournament's games use the list in force on its first day, in the period that rates it. Writes
go through ``actions.save_tournament`` / ``delete_tournaments``; a game names its tournament by
id (``tournament`` on ``/api/v1/games/``).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Count
from django_filters import rest_framework as django_filters
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.exceptions import ValidationError

from ladder.api.schema import errors, ordered
from ladder.api.serializers import PeriodLabelField
from ladder.api.views import ApiMixin
from ladder.records import RatingList, RatingPeriod, Tournament
from ladder.writes import actions


class TournamentSerializer(serializers.ModelSerializer):
    """A tournament: its dates, list, the period that rates it (by label) and its games."""

    rated_in = PeriodLabelField(
        required=False,
        help_text="The label of the period that rates it. Absent: the period holding its last "
        "day (created when new; a change that moves the last day moves it too, unless it was "
        "a late report's); a later one for a late report, at most the third list after its "
        "end (FIDE 9.1).",
    )
    games = serializers.IntegerField(source="game_count", read_only=True, help_text="Games.")
    spans_periods = serializers.BooleanField(
        read_only=True,
        help_text="It started before the period that rates it: an earlier list rates its games.",
    )

    field_examples = {"name": "Spring Open", "start": "2026-03-06", "end": "2026-03-08"}

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "start", "end", "rating_list", "time_control", "rated_in",
            "origin", "origin_file", "games", "spans_periods", "created",
        ]  # fmt: skip
        read_only_fields = ["id", "origin", "origin_file", "games", "spans_periods", "created"]
        # The write path checks that it is recorded once (a conflict, 409), not the serializer.
        validators: list = []

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        end = attrs.get("end", getattr(self.instance, "end", None))
        if "rated_in" not in attrs and end is not None and self._rated_in_defaults(end):
            try:
                attrs["rated_in"] = RatingPeriod.objects.for_date(end)
            except DjangoValidationError as error:
                raise ValidationError({"end": error.messages}) from error
        return attrs

    def _rated_in_defaults(self, end: Any) -> bool:
        """Whether a request that leaves out ``rated_in`` gets the default, the period holding
        the last day: when adding, when replacing (PUT), and when a change moves the last day
        of a tournament rated in the period that held it; a late report keeps its period."""
        stored = self.instance
        if stored is None or not self.partial:
            return True
        holds_end = stored.rated_in.start <= stored.end <= stored.rated_in.end
        return end != stored.end and holds_end


class TournamentFilter(django_filters.FilterSet):
    rated_in = django_filters.CharFilter(field_name="rated_in__label", help_text="A period label.")
    rating_list = django_filters.ChoiceFilter(choices=RatingList.choices, help_text="The list.")
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Part of the name.")

    class Meta:
        model = Tournament
        fields = ["rated_in", "rating_list", "name"]


START_NOT_AFTER_END = ordered(("body.start", "body.end"))  # the model's check constraint


@extend_schema_view(
    list=extend_schema(
        summary="List tournaments",
        description="Newest first. Filter by `rated_in` (a period label), `rating_list`, `name`.",
        responses={200: TournamentSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a tournament", responses={200: TournamentSerializer, **errors(404)}
    ),
    create=extend_schema(
        summary="Add a tournament",
        description="Needs `ladder.add_tournament`. Games then name it by id.",
        extensions=START_NOT_AFTER_END,
        responses={201: TournamentSerializer, **errors(400, 401, 403, 409)},
    ),
    update=extend_schema(
        summary="Replace a tournament",
        description="Needs `ladder.change_tournament`. Its games follow it: a new period moves "
        "them, a new start (another list in force) rates them again; both periods must be "
        "open (409). A tournament with games keeps its list and every game's date.",
        extensions=START_NOT_AFTER_END,
        responses={200: TournamentSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    partial_update=extend_schema(
        summary="Change some of a tournament",
        description="Needs `ladder.change_tournament`; see PUT.",
        extensions=START_NOT_AFTER_END,
        responses={200: TournamentSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    destroy=extend_schema(
        summary="Delete a tournament without games",
        description="Needs `ladder.delete_tournament`. A tournament with games is kept (409).",
        responses={204: None, **errors(401, 403, 404, 409)},
    ),
)
class TournamentViewSet(
    ApiMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    queryset = Tournament.objects.select_related("rated_in").annotate(game_count=Count("games"))
    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter
    ordering = ["-start", "-id"]

    # The period a tournament's days ask for is made while its request is read: a refusal after
    # that takes it back, as it takes back everything else (one transaction a write).
    def create(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        with transaction.atomic():
            return super().create(request, *args, **kwargs)

    def update(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        with transaction.atomic():
            return super().update(request, *args, **kwargs)

    def perform_create(self, serializer) -> None:
        tournament = Tournament(**serializer.validated_data)
        actions.save_tournament(tournament=tournament, user=self.request.user)
        serializer.instance = self.get_queryset().get(pk=tournament.pk)

    def perform_update(self, serializer) -> None:
        tournament = serializer.instance
        for name, value in serializer.validated_data.items():
            setattr(tournament, name, value)
        actions.save_tournament(tournament=tournament, user=self.request.user)
        serializer.instance = self.get_queryset().get(pk=tournament.pk)

    def perform_destroy(self, instance: Tournament) -> None:
        actions.delete_tournaments(tournaments=[instance], user=self.request.user)
