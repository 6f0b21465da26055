"""``GET /api/v1/players/{id}/rating/?date=``: a player's rating on any date.

An adapter over ``ratings.history_reads``: the official rating in force that day (the
player's line on the list published for the last period that ended before it, as it stood
that day) with the publication it comes from, and, with ``live=true``, the live rating then.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.response import Response

from ladder.api.merged_ids import MOVED, refuse_merged
from ladder.api.schema import errors
from ladder.api.serializers import ListQueryField, PlayerRefSerializer
from ladder.api.views import ApiMixin, list_parameter
from ladder.records import Player
from ratings import history_reads

DATE_HELP = (
    "The day (YYYY-MM-DD). The list in force on it is the one published for the last period "
    "that ended before it (the list of 2026-02 from 1 March), as it stood that day: its latest "
    "revision published by the end of the day, or as first published when it was published "
    "only later."
)


class RatingOnDateQuery(serializers.Serializer):
    date = serializers.DateField(required=False, help_text=DATE_HELP + " Default: today.")
    list = ListQueryField()
    live = serializers.BooleanField(required=False, default=False)


class InForceSerializer(serializers.Serializer):
    """The published list a rating on a date is read from."""

    period = serializers.CharField(source="period.label", help_text="The period's label.")
    period_id = serializers.IntegerField()
    revision = serializers.IntegerField(help_text="The revision in force that day.")
    published_at = serializers.DateTimeField()
    latest_revision = serializers.IntegerField(help_text="The period's latest revision today.")
    revised_since = serializers.BooleanField(
        help_text="True when a revision published after the day has corrected the list since."
    )


class LiveOnDateSerializer(serializers.Serializer):
    rating = serializers.IntegerField(allow_null=True, help_text="Null while unrated.")
    period = serializers.CharField(
        source="period.label",
        allow_null=True,
        default=None,
        help_text="The period it is the rating after (null: the entry rating, no game yet).",
    )


class RatingOnDateSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    date = serializers.DateField()
    list = serializers.CharField(help_text="standard, rapid or blitz.")
    official_rating = serializers.IntegerField(
        allow_null=True,
        help_text="The player's rating on the list in force that day; null while unrated "
        "there, when not on it, or when no list was in force yet.",
    )
    on_list = serializers.BooleanField(help_text="The player has a line on that list.")
    status = serializers.CharField(
        allow_null=True, help_text="The line's status (rated, first_rating, …); null: no line."
    )
    official_list = InForceSerializer(
        allow_null=True, help_text="The publication the rating is read from; null: none yet."
    )
    live = LiveOnDateSerializer(
        allow_null=True,
        help_text="With `live=true`: the live rating on that day, as the rating runs read it "
        "now — the rating after the latest period that had started by then in which the player "
        "had a game on the list (corrections since included, published or not), else the "
        "entry rating. Null without `live`.",
    )


@extend_schema(
    summary="A player's rating on any date",
    description="The official (published) rating in force on `date` on a list (`list`), with "
    "the publication it comes from (period, revision, when it was published, and whether a "
    "later revision has corrected it since); with `live=true` the live rating on that day "
    "too. A bad date or list is a 400 naming the field; an unknown player a 404.",
    parameters=[
        OpenApiParameter(
            "date",
            {"type": "string", "format": "date", "example": "2026-04-15"},
            description=DATE_HELP + " Default: today.",
        ),
        list_parameter(
            "The list: standard, rapid or blitz (default: the club's default list, standard "
            "when kept)."
        ),
        OpenApiParameter("live", OpenApiTypes.BOOL, description="Add the live rating on that day."),
    ],
    responses={200: RatingOnDateSerializer, **errors(400, 404), 301: MOVED},
)
class RatingOnDateView(ApiMixin, GenericAPIView):
    queryset = Player.objects.all()
    serializer_class = RatingOnDateSerializer
    filter_backends: list = []
    pagination_class = None

    def get(self, request, id: int):
        query = RatingOnDateQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        player = get_object_or_404(Player, pk=id)
        refuse_merged(request, id=player)
        day = query.validated_data.get("date") or timezone.localdate()
        rating_list = query.validated_data["list"]
        found = history_reads.rating_on(player, day, rating_list, live=query.validated_data["live"])
        return Response(RatingOnDateSerializer(_answer(found)).data)


def _answer(found: history_reads.RatingOn) -> dict[str, Any]:
    in_force = found.in_force
    publication = in_force.publication
    return {
        "player": found.player,
        "date": in_force.day,
        "list": in_force.rating_list,
        "official_rating": found.official,
        "on_list": found.line is not None,
        "status": found.line.status if found.line is not None else None,
        "official_list": None
        if publication is None
        else {
            "period": publication.period,
            "period_id": publication.period_id,
            "revision": publication.revision,
            "published_at": publication.published_at,
            "latest_revision": in_force.latest_revision,
            "revised_since": in_force.revised_since,
        },
        "live": found.live,
    }
