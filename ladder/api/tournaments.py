"""Tournament files at the API: import a TRF or a PGN (with a preview), export a TRF.

Thin adapters: ``ladder.files.tournaments`` reads, matches and imports (through the write
path; a preview does everything and rolls it back), ``ladder.files.exports`` writes files.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from ladder.api.schema import errors
from ladder.api.serializers import TimeControlField
from ladder.api.views import ApiMixin
from ladder.exceptions import ConflictError, TrfRefused
from ladder.files import exports, tournaments
from ladder.records import Game, RatingList, RatingPeriod, parse_list

# A TRF-16 round robin of four players (fixed-width lines, FIDE's columns): the import's
# request example.
EXAMPLE_TRF = (
    "012 Spring Round Robin\n"
    "042 2026/03/07\n"
    "052 2026/03/21\n"
    "062 4\n"
    "072 3\n"
    + "".join(
        f"001 {rank:>4} {sex}    {name:<33} {rating:>4} ENG {'':>11} {'':<10} {points:>4} "
        f"{rank:>4}  {rounds}\n"
        for rank, sex, name, rating, points, rounds in [
            (1, "m", "Example, Ann", 1900, "2.0", "   2 w 1     3 b 1     4 w 0"),
            (2, "m", "Example, Ben", 1800, "1.5", "   1 b 0     4 w =     3 w 1"),
            (3, "w", "Example, Cat", 1700, "1.0", "   4 b =     1 w 0     2 b 0"),
            (4, "w", "Example, Dan", 1600, "1.5", "   3 w =     2 b =     1 b 1"),
        ]
    )
    + "132"
    + " " * 88
    + "26/03/07  26/03/14  26/03/21\n"  # the rounds' dates from column 92
)


class CanImport(BasePermission):
    """Importing adds games and players: both permissions are needed."""

    def has_permission(self, request: Any, view: Any) -> bool:
        user = request.user
        return bool(
            user
            and user.is_authenticated
            and user.has_perms(["ladder.add_game", "ladder.add_player"])
        )


class TournamentFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A TRF (TRF-16 or TRF-2026) or a PGN file.")
    event = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=Game._meta.get_field("event").max_length,
        validators=Game._meta.get_field("event").validators,  # the games' own rule, and pattern
        help_text="Event name (default: the file's: line 012, or the PGN Event tag).",
    )
    date = serializers.DateField(
        required=False, help_text="Date of the games the file does not date (YYYY-MM-DD)."
    )
    rating_list = serializers.ChoiceField(
        choices=RatingList.choices,
        required=False,
        help_text="The list (default: from the file's time control, else standard).",
    )
    time_control = TimeControlField(
        required=False, allow_blank=True, help_text="e.g. 90+30 (default: the file's)."
    )
    rated_in = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=RatingPeriod._meta.get_field("label").max_length,
        help_text="A late report: the label of the period that rates it (default: the period "
        "holding the tournament's last day; at most the third list after it, FIDE 9.1).",
    )
    preview = serializers.BooleanField(
        default=False, help_text="Check and describe the import; write nothing."
    )


class MatchSerializer(serializers.Serializer):
    line = serializers.IntegerField(source="entrant.line")
    name = serializers.CharField(source="entrant.name", help_text="As the file writes it.")
    player = serializers.IntegerField(
        source="player.pk",
        allow_null=True,
        help_text="The club's player (null: new, in a preview).",
    )
    player_name = serializers.CharField(source="player.name")
    matched_by = serializers.CharField(source="how", help_text="FIDE id, name or new.")


class TournamentImportSerializer(serializers.Serializer):
    imported = serializers.SerializerMethodField()
    format = serializers.CharField(source="tournament.version")
    event = serializers.CharField()
    rounds = serializers.IntegerField(source="tournament.rounds")
    rating_list = serializers.CharField()
    time_control = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField(), source="summary")
    players = MatchSerializer(many=True, source="matches")
    games = serializers.SerializerMethodField()
    not_recorded = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(child=serializers.CharField(), source="tournament.notes")

    def get_imported(self, plan: tournaments.TournamentImport) -> bool:
        return not plan.dry_run

    def get_games(self, plan: tournaments.TournamentImport) -> list[int]:
        """The ids of the games recorded (empty for a preview)."""
        return [game.pk for game in plan.games]


class TournamentImportView(ApiMixin, GenericAPIView):
    permission_classes = [CanImport]
    parser_classes = [MultiPartParser, FormParser]
    serializer_class = TournamentFileSerializer
    filter_backends: list = []
    pagination_class = None

    @extend_schema(
        summary="Import a tournament file",
        description="Needs `ladder.add_game` and `ladder.add_player`. Multipart upload of a TRF "
        "(TRF-16 or TRF-2026) or a PGN (tags only). Players are matched by FIDE id, then by "
        "name (new ones are created); played games are rated; forfeits, and wins of less than "
        "one move, are recorded unrated (`+/-`, `-/+`, `0-0`); byes, draws of less than one "
        "move and pairings without a result are listed under `not_recorded`. All or nothing, "
        "then one rating run. `preview=true` checks everything "
        "and answers what would be imported (200), writing nothing. A refused file answers 400 "
        "with every problem under `file`, each naming its line and column; an event already "
        "imported is refused.",
        request={"multipart/form-data": TournamentFileSerializer},
        examples=[
            OpenApiExample(
                "Check a round robin first",
                {"file": EXAMPLE_TRF, "preview": True},
                request_only=True,
                media_type="multipart/form-data",
            )
        ],
        responses={
            201: TournamentImportSerializer,
            200: TournamentImportSerializer,
            **errors(400, 401, 403, 409),
        },
    )
    def post(self, request: Any) -> Response:
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            plan = tournaments.read(
                data["file"].read(),
                event=data.get("event", ""),
                day=data.get("date"),
                rating_list=data.get("rating_list", ""),
                time_control=data.get("time_control", ""),
                rated_in=data.get("rated_in", "").strip(),
                file_name=getattr(data["file"], "name", "") or "",
            )
            tournaments.import_tournament(plan, user=request.user, dry_run=data["preview"])
        except TrfRefused as error:
            messages = {"file": [str(p) for p in error.problems]}
            if error.conflict:  # in the ladder already: 409
                raise ConflictError(messages) from error
            raise ValidationError(messages) from error
        status = HTTPStatus.OK if plan.dry_run else HTTPStatus.CREATED
        return Response(TournamentImportSerializer(plan).data, status=status)


class TournamentExportView(ApiMixin, GenericAPIView):
    permission_classes: list = []
    filter_backends: list = []
    pagination_class = None

    @extend_schema(
        summary="Export an event as a TRF-16",
        description="The event's games as a FIDE Tournament Report File: the 012-132 header "
        "from what the ladder knows, player lines with the ratings of the list that opened "
        "the event's period, points and ranks computed, round blocks from the games.",
        parameters=[
            OpenApiParameter(
                "event",
                {"type": "string", "minLength": 1, "example": "Club Cup"},  # blank: no event
                required=True,
                description="The event's name, exactly.",
                # The event of the games' request example: the two examples read together.
                examples=[OpenApiExample("An event", value="Club Cup")],
            ),
            OpenApiParameter(
                "rating_list",
                str,
                enum=RatingList.values,
                description="The list, when the event has games on several (else 409).",
            ),
        ],
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, "The TRF file."),
            **errors(400, 409),
        },
    )
    def get(self, request: Any) -> HttpResponse:
        event = request.query_params.get("event", "")
        chosen = request.query_params.get("rating_list", "")
        try:
            chosen = parse_list(chosen) if chosen.strip() else ""  # blank: every list
        except ValueError as error:
            raise ValidationError({"rating_list": [str(error)]}) from error
        try:
            text = exports.event_trf(event, chosen_list=chosen)
        except exports.EventNotWritable as error:
            raise ConflictError({"event": [str(error)]}) from error
        except LookupError as error:
            raise ValidationError({"event": [str(error)]}) from error
        response = HttpResponse(text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{exports.filename(event)}.trf"'
        return response
