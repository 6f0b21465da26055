"""``GET /api/v1/players/{id}/head-to-head/{other}/``: every game between two players.

An adapter over ``selectors.head_to_head``: each game explained from both sides as the
history explains it (rating used, D, D used, PD, dR), with each side's K and the game's effect
on their rating; no rule is worked out here.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.response import Response

from ladder.api.merged_ids import MOVED, refuse_merged
from ladder.api.schema import errors
from ladder.api.serializers import DecimalText, PlayerRefSerializer
from ladder.api.views import ApiMixin
from ladder.records import Player
from ratings import selectors


class SideSerializer(serializers.Serializer):
    """One player's side of a game."""

    colour = serializers.ChoiceField(choices=["white", "black"])
    score = DecimalText(allow_null=True, help_text="Null for an unplayed game.")
    rating_used = serializers.IntegerField(
        allow_null=True, help_text="The player's rating on the list that opened the period."
    )
    opponent_rating = serializers.IntegerField(
        allow_null=True, help_text="The opponent's rating on the list that opened the period."
    )
    rated = serializers.BooleanField()
    note = serializers.CharField(help_text="rated, or why the game did not count.")
    difference = serializers.IntegerField(allow_null=True, help_text="Real D.")
    difference_used = serializers.IntegerField(
        allow_null=True, help_text="D used, after the 400-point rule."
    )
    expected = DecimalText(allow_null=True, help_text="PD: the expected score.")
    delta = DecimalText(allow_null=True, help_text="dR = score − PD.")
    k = serializers.IntegerField(allow_null=True, help_text="K applied in the period.")
    effect = DecimalText(
        allow_null=True,
        help_text="The game's effect on the rating, K × dR, before the period's one rounding; "
        "null when the game was not rated for the player or counted toward a first rating.",
    )


class MeetingSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="The game's id.")
    date = serializers.DateField()
    period = serializers.CharField(help_text="The period's label.")
    event = serializers.CharField()
    round = serializers.CharField()
    result = serializers.CharField()
    white = serializers.IntegerField(help_text="White's id.")
    black = serializers.IntegerField(help_text="Black's id.")
    player = SideSerializer(help_text="The side of the player asked about.")
    opponent = SideSerializer(help_text="The opponent's side.")


class TotalsSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games recorded, unplayed ones included.")
    played = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="The player's wins.")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = DecimalText(help_text="The player's points in the games played.")
    opponent_score = DecimalText()


class ListTotalsSerializer(TotalsSerializer):
    expected = DecimalText(
        allow_null=True, help_text="The player's ΣPD over the games rated for them."
    )
    opponent_expected = DecimalText(allow_null=True)
    effect = DecimalText(allow_null=True, help_text="The player's Σ K × dR, before rounding.")
    opponent_effect = DecimalText(allow_null=True)


class ListRecordSerializer(serializers.Serializer):
    list = serializers.CharField(help_text="standard, rapid or blitz.")
    totals = ListTotalsSerializer()
    games = MeetingSerializer(many=True, help_text="Oldest first.")


class HeadToHeadSerializer(serializers.Serializer):
    player = PlayerRefSerializer()
    opponent = PlayerRefSerializer()
    totals = TotalsSerializer(help_text="Every list together.")
    lists = ListRecordSerializer(many=True, help_text="The lists with games, FIDE's order.")


@extend_schema(
    summary="Head-to-head of two players",
    description="Every game between the player and `other` on every list, oldest first: date, "
    "period, event, round and result, and each side explained as the history explains it — "
    "the ratings used (from the list that opened the period), D, D used, PD (the expected "
    "score), dR, the K applied and the game's effect on the rating (K × dR, before the "
    "period's one rounding). Totals per list (score, expected score, effect) and over every "
    "list (score). No game between them: `lists` is empty. The same player twice, or an "
    "unknown id: 404.",
    parameters=[
        OpenApiParameter(
            "id",
            {"type": "integer", "minimum": 1, "example": 1},
            OpenApiParameter.PATH,
            description="The player's id.",
        ),
        OpenApiParameter(
            "other",
            {"type": "integer", "minimum": 1, "example": 2},
            OpenApiParameter.PATH,
            description="The opponent's id (another player).",
        ),
    ],
    responses={200: HeadToHeadSerializer, **errors(404), 301: MOVED},
)
class HeadToHeadView(ApiMixin, GenericAPIView):
    queryset = Player.objects.all()
    serializer_class = HeadToHeadSerializer
    filter_backends: list = []
    pagination_class = None

    def get(self, request, id: int, other: int):
        if id == other:
            raise exceptions.NotFound(
                gettext("A player has no head-to-head with themselves: give another player's id.")
            )
        first = get_object_or_404(Player, pk=id)
        second = get_object_or_404(Player, pk=other)
        refuse_merged(request, id=first, other=second)
        found = selectors.head_to_head(first, second)
        first_points, second_points = found.score
        data = {
            "player": first,
            "opponent": second,
            "totals": {
                "games": found.games,
                "played": found.played,
                "wins": found.wins,
                "draws": found.draws,
                "losses": found.losses,
                "score": first_points,
                "opponent_score": second_points,
            },  # fmt: skip
            "lists": [_record(record) for record in found.records],
        }
        return Response(HeadToHeadSerializer(data).data)


def _record(record: selectors.Record) -> dict[str, Any]:
    first_points, second_points = record.score
    (first_expected, second_expected), (first_effect, second_effect) = (
        record.expected,
        record.effect,
    )
    return {
        "list": record.rating_list,
        "totals": {
            "games": len(record.meetings),
            "played": record.played,
            "wins": record.wins,
            "draws": record.draws,
            "losses": record.losses,
            "score": first_points,
            "opponent_score": second_points,
            "expected": first_expected,
            "opponent_expected": second_expected,
            "effect": first_effect,
            "opponent_effect": second_effect,
        },  # fmt: skip
        "games": [_meeting(m) for m in record.meetings],
    }


def _meeting(m: selectors.Meeting) -> dict[str, Any]:
    game = m.game
    return {
        "game": game.pk,
        "date": game.date,
        "period": game.period.label,
        "event": game.event,
        "round": game.round,
        "result": game.result,
        "white": game.white_id,
        "black": game.black_id,
        "player": _side(m.first, m.second),
        "opponent": _side(m.second, m.first),
    }


def _side(side: selectors.Side, other: selectors.Side) -> dict[str, Any]:
    line, calculation = side.line, side.line.calculation
    return {
        "colour": line.colour,
        "score": line.score,
        "rating_used": other.line.opponent_rating,
        "opponent_rating": line.opponent_rating,
        "rated": line.rated,
        "note": line.note,
        "difference": calculation.difference if calculation else None,
        "difference_used": calculation.difference_used if calculation else None,
        "expected": calculation.expected if calculation else None,
        "delta": calculation.delta if calculation else None,
        "k": side.k,
        "effect": side.effect,
    }
