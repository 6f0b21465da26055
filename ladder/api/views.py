"""REST API v1: thin adapters over ``ladder.writes.actions`` and ``ratings`` (no rating logic here).

Reads are public; writes need an authenticated user with the model permission (session or
token). Every list is paginated and reads in a fixed number of queries whatever its size.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, cast

from django.db.models import Prefetch
from django.db.models.query import MAX_GET_RESULTS
from django.http import Http404
from django.template.response import SimpleTemplateResponse
from django.utils.translation import gettext
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.response import Response
from rest_framework.schemas.inspectors import ViewInspector

from ladder.api import filters, plain_reads
from ladder.api import serializers as s
from ladder.api.authentication import HashedTokenAuthentication
from ladder.api.exceptions import exception_handler
from ladder.api.idempotency import idempotent
from ladder.api.merged_ids import MERGED_ANSWERS, MOVED, MergedRedirectMixin
from ladder.api.pagination import RatingListPagination
from ladder.api.permissions import ModelPermissions
from ladder.api.previews import DRY_RUN, GamePreviewMixin, PreviewSerializer
from ladder.api.renderers import CSVRenderer, JSONRenderer
from ladder.caching import read_cache
from ladder.records import (
    LIST_FIELDS,
    Game,
    PeriodLog,
    Player,
    PlayerQuerySet,
    RatingList,
    RatingPeriod,
    default_list,
)
from ladder.records.compiled import Compiled, CompiledPages
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import history_reads, publication, runs, selectors
from ratings.models import Publication, PublishedRating, RatingRun
from ratings.publication import official
from ratings.recompute import services as rating_services
from ratings.rules import calculator, fide

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass

from ladder.api.schema import (
    OBJECT_WRITE_ERRORS,
    WRITE_ERRORS,
    PublicReadsSchema,
    combined,
    distinct,
    errors,
    ordered,
    query_schema,
    requires,
)


class ApiMixin:
    """Shared by every endpoint: auth, permissions and the JSON error handler.

    Token authentication comes first so that an anonymous write is answered 401 with a
    ``WWW-Authenticate: Token`` header (session authentication alone can only say 403).
    """

    authentication_classes: Sequence[type[BaseAuthentication]] = [
        HashedTokenAuthentication,
        SessionAuthentication,
    ]
    permission_classes: Sequence[_PermissionClass] = [ModelPermissions]
    schema: ViewInspector | None = PublicReadsSchema()

    def get_exception_handler(self):
        return exception_handler

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(  # type: ignore[misc]  # APIView's
            request, response, *args, **kwargs
        )
        if isinstance(response, SimpleTemplateResponse):  # not a stream (``ladder.api.bulk``)
            response.add_post_render_callback(self._release)
        return response

    def _release(self, response: SimpleTemplateResponse) -> None:
        """Once the answer is written, let go of what the view and its answer hold.

        DRF leaves each request's view and answer in reference cycles: the view holds its
        handler methods bound to itself (``as_view``), its request and its answer, whose
        renderer context holds the view and the answer itself. Python's reference counts
        cannot free a cycle: its objects, with the answer's data and the page of rows, waited
        for the garbage collector, whose passes over them were a sixth of a history read's
        CPU (issue 25). Rendered, nothing reads them again (the answer keeps its data and
        content): freed as soon as the server lets go of the answer."""
        context = getattr(response, "renderer_context", None)
        if context is not None:
            context.pop("response", None)
        vars(self).clear()


def cached_api(view):
    """Wrap an API view (its URL's callback) so that its anonymous reads are kept and served
    again by ``ladder.caching.read_cache`` (which counts the anonymous throttle for them, once)."""

    def answer(request, *args, **kwargs):
        return read_cache.keep(view(request, *args, **kwargs))

    return read_cache.kept_view(functools.wraps(view)(answer))


class IdempotentCreateMixin:
    """POST with an ``Idempotency-Key`` header: a retry gets the first answer (``idempotency``)."""

    def create(self, request, *args, **kwargs):
        create = super().create  # type: ignore[misc]  # the viewset's CreateModelMixin
        return idempotent(request, lambda: create(request, *args, **kwargs))


def list_parameter(description: str) -> OpenApiParameter:
    return OpenApiParameter(
        "list", OpenApiTypes.STR, enum=RatingList.values, description=description
    )


LIST_DEFAULT = "standard, rapid or blitz (default: the club's default list, standard when kept)."


# --- players -------------------------------------------------------------------------------

# The query parameters a player's list filters on, and ``ordering``.
_PLAYER_FILTERS = {*filters.PlayerFilter.base_filters, "ordering"}
# A player read by its id, as ``get_object`` asks it (``QuerySet.get``: unordered, at most 21
# rows), compiled once per process: a player's detail and history read it on every request;
# the detail with what ``plain_reads.players_data`` needs beside the player.
_PLAYER = Compiled(lambda pk: Player.objects.filter(pk=pk).order_by()[:MAX_GET_RESULTS])
_PLAYER_READ = Compiled(
    lambda pk: (
        Player.objects.filter(pk=pk)
        .annotate(**plain_reads.read_with())
        .order_by()[:MAX_GET_RESULTS]
    )
)


# A list asked with nothing but these (no filter) reads its pages by SQL compiled once.
_PLAIN_LIST = {"ordering", "page"}


@functools.lru_cache(maxsize=32)
def _player_pages(ordering: tuple[str, ...]) -> CompiledPages:
    """The players' list in one ordering (as ``ListOrderingFilter`` gives it)."""
    return CompiledPages(
        lambda: Player.objects.current().annotate(**plain_reads.read_with()).order_by(*ordering),
        keys_first=True,
    )


class CompiledPlayerLookupMixin:
    """A safe read of one player by a plain id, asked with none of the list's filters, reads
    the player by SQL compiled once (``_PLAYER``); anything else as DRF reads it."""

    def get_object(self) -> Player:
        view = cast(GenericAPIView, self)
        pk = view.kwargs.get(view.lookup_url_kwarg or view.lookup_field)
        if (
            view.request.method not in SAFE_METHODS
            or not isinstance(pk, str)
            or not (pk.isascii() and pk.isdigit() and len(pk) <= 9)
            or view.request.query_params.keys() & _PLAYER_FILTERS
        ):
            return super().get_object()  # type: ignore[misc]
        read = _PLAYER_READ if getattr(view, "action", None) == "retrieve" else _PLAYER
        found = read.objects(int(pk))
        if not found:  # get_object_or_404's answer, word for word
            raise Http404(f"No {Player._meta.object_name} matches the given query.")
        view.check_object_permissions(view.request, found[0])
        return found[0]


# The model's rules between two of a player's values (``Player.clean``): a list's entry rating
# and its peak, a national id and the federation that issued it.
ENTRY_PEAKS = combined(
    ordered(
        *((f"body.{f.entry_rating}", f"body.{f.entry_peak_rating}") for f in LIST_FIELDS.values())
    ),
    requires(
        *((f"body.{f.entry_peak_rating}", f"body.{f.entry_rating}") for f in LIST_FIELDS.values()),
        ("body.national_id", "body.national_federation|body.federation"),
    ),
)


@extend_schema_view(
    list=extend_schema(
        summary="List players",
        description="Every player with the current rating, K, level and activity (the flat "
        "fields are the standard list's; `ratings` has every list the club keeps). `rating` is "
        "the live rating, provisional: it counts every game rated so far; `official_rating` "
        "is the player's line on the last published list (`official_list` says which period "
        "and revision) and `provisional` says whether the two differ. Filter by "
        "name or FIDE id (`search`), `rated`, `title`, `federation`, rating range; order by "
        "`name`, `rating`, `rated_games`, `fide_id`, `last_rated_on` (prefix `-` to reverse). "
        "`list` (standard, rapid or blitz; default standard) says which list `rated`, "
        "`rating_min`, `rating_max` and `ordering=rating` read.",
        responses={200: s.PlayerSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a player",
        description="One player: entry data and the current state derived from every game, with "
        "the K that applies now and its reason; the live rating (`rating`, provisional) beside "
        "the official one (`official_rating`, from the last published list, `official_list`).",
        responses={200: s.PlayerSerializer, **errors(404), **MERGED_ANSWERS},
    ),
    create=extend_schema(
        summary="Add a player",
        description="Needs the `ladder.add_player` permission. Entry data is for players who "
        "arrive with a history; leave `entry_rating` blank for an unrated player.",
        extensions=ENTRY_PEAKS,
        responses={201: s.PlayerSerializer, **errors(*WRITE_ERRORS)},
        examples=[
            OpenApiExample(
                "A rated junior",
                {
                    "name": "Ada Lovelace",
                    "birth_year": 2011,
                    "entry_rating": 1650,
                    "entry_rated_games": 30,
                    "entry_peak_rating": 1702,
                },  # fmt: skip
                request_only=True,
            )
        ],
    ),
    update=extend_schema(
        summary="Replace a player's data",
        description="Needs `ladder.change_player`. A change to the entry data or birth year "
        "recomputes the player's ratings from their first game. A merged player's record is "
        "410 Gone, with `merged_into`.",
        extensions=ENTRY_PEAKS,
        responses={200: s.PlayerSerializer, **errors(*OBJECT_WRITE_ERRORS), 410: MOVED},
    ),
    partial_update=extend_schema(
        summary="Change some of a player's data",
        description="Needs `ladder.change_player`; see PUT.",
        extensions=ENTRY_PEAKS,
        responses={200: s.PlayerSerializer, **errors(*OBJECT_WRITE_ERRORS), 410: MOVED},
    ),
)
class PlayerViewSet(
    MergedRedirectMixin,
    CompiledPlayerLookupMixin,
    ApiMixin,
    IdempotentCreateMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    queryset = Player.objects.all()
    serializer_class = s.PlayerSerializer
    filterset_class = filters.PlayerFilter
    filter_backends = [DjangoFilterBackend, filters.ListOrderingFilter]
    ordering_fields = ["name", "rating", "rated_games", "fide_id", "last_rated_on", "id"]
    ordering = ["name", "id"]

    def get_queryset(self):
        players = cast(PlayerQuerySet, super().get_queryset())
        # A merged record is off the list; its id still answers (301/410, ``merged_ids``).
        return players.current() if self.action == "list" else players

    def get_serializer_context(self) -> dict:
        # One query for the whole page: K depends on the year of the period being rated.
        return {**super().get_serializer_context(), "year": selectors.current_year()}

    def filter_queryset(self, queryset):
        # What a player's read needs, read with the players (``plain_reads.read_with``): here,
        # not in get_queryset, which the permission check calls on every request.
        if self.action in ("list", "retrieve"):
            queryset = queryset.annotate(**plain_reads.read_with())
        # A detail asked with none of the list's filters builds no filter form (django-filter
        # builds one, a fifth of a player's read): with one, it filters (404) or refuses
        # (400) as before.
        if self.action != "list" and not self.request.query_params.keys() & _PLAYER_FILTERS:
            return queryset
        return super().filter_queryset(queryset)

    # Reads answer plain values (``plain_reads``): the same JSON as PlayerSerializer's.
    def list(self, request, *args, **kwargs):
        if request.query_params.keys() <= _PLAIN_LIST:
            # No filter asked: the ordering asked, and the page, by SQL compiled once.
            ordering = filters.ListOrderingFilter().get_ordering(request, self.queryset, self)
            players = _player_pages(tuple(ordering)).of()
            return self.get_paginated_response(
                plain_reads.players_data(self.paginate_queryset(players) or [])
            )
        players = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(players)
        if page is None:
            return Response(plain_reads.players_data(list(players)))
        return self.get_paginated_response(plain_reads.players_data(page))

    def retrieve(self, request, *args, **kwargs):
        return Response(plain_reads.player_data(self.get_object()))

    def perform_create(self, serializer) -> None:
        player = Player(**serializer.validated_data)
        serializer.instance = actions.save_player(player=player, user=self.request.user)

    def perform_update(self, serializer) -> None:
        player = serializer.instance
        for name, value in serializer.validated_data.items():
            setattr(player, name, value)
        actions.save_player(player=player, user=self.request.user)
        player.refresh_from_db()  # the rating run has updated the derived fields

    @extend_schema(
        summary="A player's rating history",
        description="One entry per period in which the player had a game on the list (`list`), "
        "newest first, with the whole calculation and every game explained: opponent, the "
        "rating used (from the list that opened the period), D used after the 400-point rule, "
        "PD, score and dR.",
        parameters=[list_parameter("The list: " + LIST_DEFAULT)],
        responses={200: s.HistorySerializer(many=True), **errors(400, 404), 301: MOVED},
        filters=False,
    )
    @action(detail=True, filter_backends=[], serializer_class=s.HistorySerializer)
    def history(self, request, pk=None):
        rating_list = s.ListQuery.read(request.query_params)
        player = self.get_object()
        pages = selectors.player_history_pages.of(player.pk, rating_list)
        page = self.paginate_queryset(pages) or []
        lines = selectors.game_lines(player, [change.period for change in page], rating_list)
        return self.get_paginated_response(plain_reads.history_data(page, lines))


# --- games ---------------------------------------------------------------------------------

PLAYERS_DIFFER = distinct(("body.white", "body.black"))  # "A player cannot play themselves."

_GAME_EXAMPLE = OpenApiExample(
    "A draw",
    {"date": "2026-03-10", "white": 1, "black": 2, "result": "1/2-1/2", "event": "Club Cup"},
    request_only=True,
)
_DRY_RUN_ANSWER = "With `?dry_run=true`: what the write would do to the ratings; nothing written."
_RAPID_EXAMPLE = OpenApiExample(
    "A rapid game (the list follows from the time control)",
    {"date": "2026-03-11", "white": 1, "black": 2, "result": "1-0", "time_control": "15+10"},
    request_only=True,
)


# A correction's answer: the corrected game, or with ``?dry_run=true`` its preview.
_CORRECTED_OR_PREVIEW = OpenApiResponse(
    PolymorphicProxySerializer("GameOrPreview", [s.GameReadSerializer, PreviewSerializer], None),
    "The corrected game; with `?dry_run=true`, the preview (nothing is saved).",
)


@extend_schema_view(
    list=extend_schema(
        summary="List games",
        description="Newest first. Filter by `period` (id) or `period_label`, `player` (either "
        "colour), `white`, `black`, `event` (part of the name), `date_from`/`date_to` "
        "(inclusive, YYYY-MM-DD), `result` and `list` (standard, rapid or blitz); order by "
        "`date` or `id`.",
        responses={200: s.GameReadSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a game", responses={200: s.GameReadSerializer, **errors(404)}
    ),
    create=extend_schema(
        summary="Record a game",
        description="Needs `ladder.add_game`. The period follows from the date (a month's "
        "period is created when none holds it); the ratings are recomputed before the answer. "
        "A date in a closed period is refused with 409. The list (`rating_list`) follows from "
        "the `time_control` when one is given, else the club's default; a list the time "
        "control contradicts, or a standard game too fast for its players, is refused with "
        "400. With `?dry_run=true` nothing is recorded: the answer (200) says what the game "
        "would do to the ratings.",
        request=s.GameSerializer,
        extensions=PLAYERS_DIFFER,
        parameters=[DRY_RUN],
        responses={
            201: s.GameReadSerializer,
            200: OpenApiResponse(PreviewSerializer, _DRY_RUN_ANSWER),
            **errors(*WRITE_ERRORS, 409),
        },
        examples=[_GAME_EXAMPLE, _RAPID_EXAMPLE],
    ),
    update=extend_schema(
        summary="Correct a game",
        description="Needs `ladder.change_game`. Both the old and the new period must be open "
        "(409 otherwise). A new `time_control` without a `rating_list` moves the game to its "
        "time control's list. With `?dry_run=true` nothing is saved: the answer says what the "
        "correction would do to the ratings (the periods recomputed, each rating old and new).",
        request=s.GameSerializer,
        extensions=PLAYERS_DIFFER,
        parameters=[DRY_RUN],
        responses={
            200: _CORRECTED_OR_PREVIEW,
            **errors(*OBJECT_WRITE_ERRORS, 409),
        },
        examples=[_GAME_EXAMPLE],
    ),
    partial_update=extend_schema(
        summary="Correct part of a game",
        description="Needs `ladder.change_game`; see PUT (`?dry_run=true` too).",
        request=s.GameSerializer,
        extensions=PLAYERS_DIFFER,
        parameters=[DRY_RUN],
        responses={
            200: _CORRECTED_OR_PREVIEW,
            **errors(*OBJECT_WRITE_ERRORS, 409),
        },
    ),
    destroy=extend_schema(
        summary="Delete a game",
        description="Needs `ladder.delete_game`; the game's period must be open (409 otherwise). "
        "With `?dry_run=true` nothing is deleted: the answer (200) says what the deletion would "
        "do to the ratings.",
        parameters=[DRY_RUN],
        responses={
            204: None,
            200: OpenApiResponse(PreviewSerializer, _DRY_RUN_ANSWER),
            **errors(400, 401, 403, 404, 409),
        },
    ),
)
class GameViewSet(ApiMixin, GamePreviewMixin, IdempotentCreateMixin, viewsets.ModelViewSet):
    queryset = Game.objects.with_players()
    serializer_class = s.GameSerializer
    filterset_class = filters.GameFilter
    ordering_fields = ["date", "id"]
    ordering = ["-date", "-id"]

    def get_serializer_class(self):
        return s.GameReadSerializer if self.request.method == "GET" else s.GameSerializer

    def perform_create(self, serializer) -> None:
        entry = GameEntry(**serializer.validated_data)
        (game,) = actions.enter_games(
            games=[entry], user=self.request.user, reason="Game entered through the API"
        )
        serializer.instance = self.get_queryset().get(pk=game.pk)

    def perform_update(self, serializer) -> None:
        game = actions.correct_game(
            game=serializer.instance, changes=serializer.validated_data, user=self.request.user
        )
        serializer.instance = self.get_queryset().get(pk=game.pk)

    def perform_destroy(self, instance: Game) -> None:
        if not actions.delete_games(games=[instance], user=self.request.user):
            raise Http404(gettext("This game no longer exists."))


# --- periods -------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="List rating periods",
        description="Newest first, with the number of games. Filter by `status`, `label`, "
        "`year`; order by `start` or `label`.",
        responses={200: s.PeriodSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a period with its rating report",
        description="The period, the record of its closes and reopens, and the report on one "
        "list (`list`): every player who had a game in it on that list with the whole "
        "calculation.",
        parameters=[list_parameter("The report's list: " + LIST_DEFAULT)],
        responses={200: s.PeriodDetailSerializer, **errors(400, 404)},
    ),
)
class PeriodViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    queryset = selectors.periods_with_counts()
    serializer_class = s.PeriodSerializer
    filterset_class = filters.PeriodFilter
    ordering_fields = ["start", "label"]
    ordering = ["-start"]
    action_permissions = {
        "close": ["ladder.change_ratingperiod"],
        "reopen": ["ladder.change_ratingperiod"],
    }

    def get_queryset(self):
        if self.action == "list":
            return super().get_queryset()
        log = PeriodLog.objects.select_related("user")
        return super().get_queryset().prefetch_related(Prefetch("log", queryset=log))

    def get_serializer_class(self):
        return s.PeriodSerializer if self.action == "list" else s.PeriodDetailSerializer

    def get_serializer_context(self) -> dict:
        context = dict(super().get_serializer_context())
        # Only a read takes ?list=: close and reopen answer with the default list's report
        # (checking it there would refuse the answer after the write).
        if self.action == "retrieve" and self.request is not None:
            context["rating_list"] = s.ListQuery.read(self.request.query_params)
        return context

    def retrieve(self, request, *args, **kwargs):
        s.ListQuery.read(request.query_params)  # a wrong list is a 400, before any read
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        summary="Close a period",
        description="Needs `ladder.change_ratingperiod`. Publishes the period's list and freezes "
        "its games. Periods close in order: an earlier open period is refused with 409, as is a "
        "closed one.",
        request=None,
        responses={200: s.PeriodDetailSerializer, **errors(*OBJECT_WRITE_ERRORS, 409)},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def close(self, request, pk=None):
        def write() -> Response:
            actions.close_period(period=self.get_object(), user=request.user)
            return Response(self.get_serializer(self.get_object()).data)

        return idempotent(request, write)

    @extend_schema(
        summary="Reopen a period",
        description="Needs `ladder.change_ratingperiod`. The reason is required and recorded. "
        "Beyond the club's correction window (`LADDER_CORRECTION_WINDOW_DAYS` after the list "
        "was first published) it also needs `ladder.reopen_after_window`: 403 otherwise, "
        "saying who holds it. An open period is refused with 409.",
        request=s.ReopenSerializer,
        responses={200: s.PeriodDetailSerializer, **errors(*OBJECT_WRITE_ERRORS, 409)},
        examples=[
            OpenApiExample(
                "A correction",
                {"reason": "Round 3 result was entered reversed."},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def reopen(self, request, pk=None):
        def write() -> Response:
            body = s.ReopenSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            reason = body.validated_data["reason"]
            actions.reopen_period(period=self.get_object(), reason=reason, user=request.user)
            return Response(self.get_serializer(self.get_object()).data)

        return idempotent(request, write)


# --- the rating list -----------------------------------------------------------------------


@extend_schema(
    summary="The rating list as of a period",
    description="Every player's line on the list (`list`: standard, rapid or blitz) that "
    "closes the period (default: the latest): rated players by rating, then the unrated by "
    "name. The rows of an open period's list are those of `manage.py rating_list --format "
    "json`, plus `level`. A closed period's list is the one it published (its latest "
    "revision), never rebuilt from today's players: rows as with `as_published`.\n\n"
    "With `as_published=true` the list as it was published when the period closed, its "
    "latest revision (default period: the last one published, the official list), or the "
    "revision `revision` (1: as first published; `revision` alone implies `as_published`). "
    "Its rows are what the publication kept (rating, change, K, games, status), and "
    "`publication` says which one it is (null for a list read live).\n\n"
    "With `date` the list in force on that day: the one published for the last period that "
    "ended before it (the list of 2026-02 from 1 March), as it stood that day (its latest "
    "revision published by the end of the day, or as first published when it was published "
    "only later); `period` and `publication` say which. A date with `period` or `revision` is "
    "a 400 naming `date`, as is a date before any list was in force.\n\n"
    "`format=csv` (or `Accept: text/csv`) answers the whole list as CSV, unpaginated, one row "
    "a line with the JSON rows' fields as columns (formula cells neutralised, as every CSV "
    "Ladder writes).",
    parameters=[
        OpenApiParameter(
            "period",
            query_schema(s.RatingListQuery, "period", example=2),
            description="Period id (default: the latest period).",
        ),
        list_parameter("The list: " + LIST_DEFAULT),
        OpenApiParameter(
            "as_published",
            OpenApiTypes.BOOL,
            description="The list as published (latest revision), not as it reads now.",
        ),
        OpenApiParameter(
            "revision",
            query_schema(s.RatingListQuery, "revision"),
            description="With `as_published`: this revision (1: as first published).",
        ),
        OpenApiParameter(
            "date",
            {"type": "string", "format": "date", "example": "2026-04-15"},
            description="The list in force on this day (YYYY-MM-DD), as it stood that day.",
        ),
        OpenApiParameter(
            "format",
            OpenApiTypes.STR,
            enum=["json", "csv"],
            description="csv: the whole list as CSV (default: JSON, paginated).",
        ),
    ],
    responses={
        (200, "application/json"): PolymorphicProxySerializer(
            component_name="RatingListLine",
            serializers=[s.ListEntrySerializer, s.PublishedLineSerializer],
            resource_type_field_name=None,
            many=True,
        ),
        (200, "text/csv"): OpenApiResponse(
            OpenApiTypes.STR, "The whole list as CSV: a header row, then one row a player."
        ),
        **{(status, "application/json"): found for status, found in errors(400, 404).items()},
        (400, "text/csv"): OpenApiResponse(
            OpenApiTypes.STR, "Bad input as CSV: a header row `field,message`, a row a message."
        ),
        (404, "text/csv"): OpenApiResponse(OpenApiTypes.STR, "No such period, as CSV."),
    },
)
class RatingListView(ApiMixin, GenericAPIView):
    queryset = RatingPeriod.objects.all()
    serializer_class = s.ListEntrySerializer
    pagination_class = RatingListPagination
    filter_backends: list = []

    # The API's JSON, DRF's browsable API, and CSV.
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def get(self, request):
        query = s.RatingListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        rating_list = query.validated_data.get("list") or default_list()
        period: RatingPeriod | None
        if "date" in query.validated_data:
            return self._in_force(query.validated_data, rating_list)
        if "period" in query.validated_data:
            period = get_object_or_404(RatingPeriod, pk=query.validated_data["period"])
        elif query.validated_data["as_published"]:
            latest = official.latest_publications([rating_list]).get(rating_list)
            period = latest.period if latest else None
        else:
            period = RatingPeriod.objects.latest_period()
        paginator = cast(RatingListPagination, self.paginator)
        paginator.period = s.PeriodRefSerializer(period).data if period else None
        paginator.rating_list = rating_list
        asked = query.validated_data["as_published"]
        if asked or (period is not None and period.is_closed):
            revision = query.validated_data.get("revision")
            found = publication.as_published(period, rating_list, revision) if period else None
            if found is not None:
                return self._published(*found)
            if asked:
                raise serializers.ValidationError(_unpublished(period, rating_list, revision))
            # else closed before lists were kept as published: the list reads live
        entries = selectors.rating_list(period, rating_list)
        if self._csv():
            name = period.label if period else "now"
            return self._csv_answer(s.ListEntrySerializer(entries, many=True).data, name)
        page = self.paginate_queryset(entries)
        return self.get_paginated_response(s.ListEntrySerializer(page, many=True).data)

    def _in_force(self, asked: dict, rating_list: str):
        """The list in force on the day asked: the revision of it that stood that day (a
        period or revision asked with the date must be that one's)."""
        day = asked["date"]
        found = history_reads.in_force(day, rating_list)
        if found.publication is None:
            raise serializers.ValidationError(
                {
                    "date": [
                        gettext(
                            "No %(list)s list was in force on %(day)s: a period's "
                            "list is in force from the day after the period ends, once it is "
                            "closed and published."
                        )
                        % {"list": rating_list, "day": day.isoformat()}
                    ]
                }
            )
        period, revision = found.publication.period, found.publication.revision
        for name, value, shown in (
            ("period", period.pk, f"{period.pk} ({period.label})"),
            ("revision", revision, str(revision)),
        ):
            if asked.get(name, value) != value:
                raise serializers.ValidationError(
                    {
                        name: [
                            f"The {rating_list} list in force on {day.isoformat()} is {name} "
                            f"{shown}: drop {name}, or ask for that one."
                        ]
                    }
                )
        cast(RatingListPagination, self.paginator).period = s.PeriodRefSerializer(period).data
        cast(RatingListPagination, self.paginator).rating_list = rating_list
        return self._published(*publication.as_published(period, rating_list, revision))

    def _published(self, published: Publication, lines: list[PublishedRating]):
        context = {"revision": published.revision}
        if self._csv():
            rows = s.PublishedLineSerializer(lines, many=True, context=context).data
            period = cast(RatingListPagination, self.paginator).period or {}
            name = f"{period.get('label')}-revision-{published.revision}"
            return self._csv_answer(rows, name)
        cast(RatingListPagination, self.paginator).publication = s.PublicationRefSerializer(
            published, context=self.get_serializer_context()
        ).data
        page = self.paginate_queryset(lines)
        lines_data = s.PublishedLineSerializer(page, many=True, context=context).data
        return self.get_paginated_response(lines_data)

    def _csv(self) -> bool:
        """Whether the answer is CSV (``?format=csv`` or ``Accept: text/csv``): the whole
        list, not a page."""
        return getattr(self.request.accepted_renderer, "format", "") == CSVRenderer.format

    def _csv_answer(self, rows: Any, name: str) -> Response:
        rating_list = cast(RatingListPagination, self.paginator).rating_list
        disposition = f'attachment; filename="rating-list-{rating_list}-{name}.csv"'
        return Response(rows, headers={"Content-Disposition": disposition})


def _unpublished(period: RatingPeriod | None, rating_list: str, revision: int | None) -> dict:
    """The field error of a list asked for as published that never was (or no such
    revision)."""
    if period is None:
        return {"as_published": [gettext(
            "No %(list)s list has been published yet: a period's list is published when the "
            "period closes.") % {"list": rating_list}]}  # fmt: skip
    count = period.publications.filter(rating_list=rating_list).count()
    if revision is not None and count:
        return {"revision": [gettext(
            "The %(list)s list of %(label)s has no revision %(revision)s: it has revisions 1 "
            "to %(count)s.") % {"list": rating_list, "label": period.label, "revision": revision,
                                "count": count}]}  # fmt: skip
    return {"as_published": [gettext(
        "The %(list)s list of %(label)s has not been published: a period's list is published "
        "when the period closes.") % {"list": rating_list, "label": period.label}]}  # fmt: skip


# --- rating runs and freshness -----------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="List rating runs",
        description="Newest first: every recompute, what asked for it (the change and how "
        "many merged into it), from which period, queued / running / done / failed, and what "
        "it did, on which list. Filter by `status` and `list`.",
        responses={200: s.RatingRunSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Get a rating run", responses={200: s.RatingRunSerializer, **errors(404)}
    ),
)
class RatingRunViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    queryset = RatingRun.objects.select_related("from_period")
    serializer_class = s.RatingRunSerializer
    filterset_class = filters.RatingRunFilter
    ordering_fields = ["id", "requested_at", "finished_at"]
    ordering = ["-id"]


@extend_schema(
    summary="How fresh the ratings are",
    description="The latest change a finished rating run has rated, and how many runs are "
    "queued or running (results entered since are still being rated).",
    responses={200: s.FreshnessSerializer},
)
class FreshnessView(ApiMixin, GenericAPIView):
    queryset = RatingRun.objects.all()
    serializer_class = s.FreshnessSerializer
    filter_backends: list = []
    pagination_class = None

    def get(self, request):
        return Response(plain_reads.freshness_data(runs.freshness()))


# --- the calculator ------------------------------------------------------------------------


@extend_schema(
    summary="Rating calculator",
    description="What one game (win, draw and loss against `opponent`) or a whole event "
    "(`games`) does to a rating: expected against actual score and the change, with the FIDE "
    "table or classic Elo, and the 400-point and 700 rules applied or not. Writes nothing; "
    "open to everyone.",
    request=PolymorphicProxySerializer(
        "Calculator",
        [s.OneGameCalculatorSerializer, s.EventCalculatorSerializer],
        resource_type_field_name=None,
    ),
    responses={200: s.CalculatorResultSerializer, **errors(400)},
    examples=[
        OpenApiExample("One game", {"rating": 1800, "k": 20, "opponent": 2000}, request_only=True),
        OpenApiExample(
            "An event, classic Elo, no 700 rule",
            {
                "rating": 1650,
                "k": 40,
                "method": "elo",
                "apply_700": False,
                "games": [{"opponent": 1700, "score": "1"}, {"opponent": 1590, "score": "0.5"}],
            },
            request_only=True,
        ),
    ],
)
class CalculatorView(ApiMixin, GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = s.CalculatorSerializer
    filter_backends: list = []
    pagination_class = None

    def post(self, request):
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        method = data.get("method") or rating_services.rules().method
        rules = calculator.rules_by_default(method)
        options = {
            "k": data["k"],
            "method": method,
            "apply_cap": rules["apply_cap"] if data["apply_cap"] is None else data["apply_cap"],
            "apply_700": rules["apply_700"] if data["apply_700"] is None else data["apply_700"],
            "exemption": data["exemption"],
        }
        if "opponent" in data:
            own, opponent = data["rating"], data["opponent"]
            result = {
                "method": method,
                "outcomes": fide.outcomes(own, opponent, **options),
                "opponent_outcomes": {
                    name: calculator.mirrored(own, opponent, name, **options)
                    for name in ("win", "draw", "loss")
                },
            }
        else:
            games = [(g["opponent"], g["score"]) for g in data["games"]]
            result = {
                "method": method,
                "event": fide.event_calculation(data["rating"], games, **options),
            }
        return Response(s.CalculatorResultSerializer(result).data, status=HTTPStatus.OK)
