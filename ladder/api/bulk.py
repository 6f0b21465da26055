"""Bulk data: a period's whole rating list and a player's whole history, streamed.

CSV or JSON lines (``?format=csv|jsonl``, else the ``Accept`` header), written row by row from a
server-side cursor (``ratings.streams``): memory stays the same whatever the number of players.
Each answer carries an ``ETag`` and ``Last-Modified`` from the data version
(``ladder.records.versions``), which every committed write and finished rating run moves; a
conditional GET with the current ones is answered 304 after one query, nothing read or
streamed. Parameters are checked before anything is read: a bad one is a 400 naming it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from typing import Any

from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.generics import GenericAPIView, get_object_or_404

from ladder.api import serializers as s
from ladder.api.merged_ids import MOVED, refuse_merged
from ladder.api.renderers import JSONRenderer
from ladder.api.schema import errors, query_schema
from ladder.api.views import LIST_DEFAULT, ApiMixin, _unpublished, list_parameter
from ladder.files.exports import csv_chunks
from ladder.records import Player, RatingPeriod, default_list
from ladder.records import versions as data_version
from ratings import streams
from ratings.publication import official

# The formats, by ``?format=`` name: the media type answered.
FORMATS = {"csv": "text/csv", "jsonl": "application/x-ndjson"}
# What an ``Accept`` header may ask for, in the order preferred when it accepts any.
ACCEPTED = {"text/csv": "csv", "application/x-ndjson": "jsonl", "application/jsonl": "jsonl"}
ROWS_PER_CHUNK = 1000
# What a view reads once its query is checked: the file's name, its columns and its rows.
Read = Callable[[dict], tuple[str, tuple[str, ...], Iterator[tuple[Any, ...]]]]


class FormatField(serializers.ChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "error_messages",
            {"invalid_choice": '"{input}" is not a format of the bulk data: csv or jsonl.'},
        )
        super().__init__(choices=list(FORMATS), **kwargs)


class BulkListQuery(s.RatingListQuery):
    """The rating list's parameters (``/rating-list/``'s), a period by label too, the format."""

    period_label = serializers.CharField(
        required=False, max_length=RatingPeriod._meta.get_field("label").max_length
    )
    format = FormatField()


class BulkHistoryQuery(s.ListQuery):
    format = FormatField()


class StreamView(ApiMixin, GenericAPIView):
    """Errors answered as JSON whatever was asked; the data streamed in the format chosen."""

    filter_backends: list = []
    pagination_class = None
    renderer_classes = [JSONRenderer]  # errors only: the data is written here

    def perform_content_negotiation(self, request, force=False):
        # DRF would answer 406 for ``Accept: text/csv`` and 404 for ``?format=csv`` (no
        # renderer of theirs); the format is chosen by ``chosen_format`` instead.
        renderer = JSONRenderer()
        return renderer, renderer.media_type

    def stream(self, request, query: serializers.Serializer, read: Read) -> HttpResponseBase:
        """Check the query, answer 304 when nothing changed, else stream what ``read``
        returns: ``(file name, columns, rows)``."""
        query.is_valid(raise_exception=True)
        name, media = chosen_format(request, query.validated_data.get("format"))
        version = data_version.current()  # before the data: never newer than what is read
        validators = _validators(request, media, version)
        if validators is not None:
            unchanged = get_conditional_response(
                request._request, etag=validators[0], last_modified=validators[1]
            )
            if unchanged is not None:
                return _headers(unchanged, media, validators)
        filename, columns, rows = read(query.validated_data)
        if request.method == "HEAD":  # Django answers HEAD with the view's GET: no rows read
            answer: HttpResponseBase = HttpResponse(content_type=f"{media}; charset=utf-8")
        else:
            writer = _csv if name == "csv" else _json_lines
            answer = StreamingHttpResponse(
                writer(columns, rows), content_type=f"{media}; charset=utf-8"
            )
        answer["Content-Disposition"] = f'attachment; filename="{filename}.{name}"'
        return _headers(answer, media, validators)


def chosen_format(request, asked: str | None) -> tuple[str, str]:
    """The format (``csv`` or ``jsonl``) and media type: ``?format=`` first, else the one the
    ``Accept`` header prefers (CSV for ``*/*`` or no header); 406 when it accepts neither."""
    if asked:
        return asked, FORMATS[asked]
    preferred = request._request.get_preferred_type(list(ACCEPTED))
    if preferred is None:
        raise exceptions.NotAcceptable(
            gettext(
                "The bulk data is text/csv or application/x-ndjson (also application/jsonl): "
                "ask for one in Accept, or with ?format=csv or ?format=jsonl."
            )
        )
    return ACCEPTED[preferred], preferred


def _validators(request, media: str, version: data_version.Version) -> tuple[str, int] | None:
    """ETag and Last-Modified of this answer under ``version``; None when the version's row
    is gone (nothing can be validated then)."""
    if not version.value:
        return None
    asked = f"{request.path}?{sorted(request.query_params.lists())}|{media}"
    digest = hashlib.blake2b(asked.encode(), digest_size=8).hexdigest()
    return f'"{version.value}-{digest}"', int(version.changed_at.timestamp())


def _headers(
    response: HttpResponseBase, media: str, validators: tuple[str, int] | None
) -> HttpResponseBase:
    if validators is not None:
        response["ETag"] = validators[0]
        response["Last-Modified"] = http_date(validators[1])
    response["Cache-Control"] = "no-cache"  # kept anywhere, asked again each time
    patch_vary_headers(response, ("Accept",))
    return response


def _csv(columns: Iterable[str], rows: Iterable[Iterable[object]]) -> Iterator[bytes]:
    for text in csv_chunks(columns, rows, size=ROWS_PER_CHUNK):
        yield text.encode()


def _json_lines(columns: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> Iterator[bytes]:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_iso).encode
    lines: list[str] = []
    for row in rows:
        lines.append(dumps(dict(zip(columns, row, strict=True))))
        if len(lines) == ROWS_PER_CHUNK:
            yield ("\n".join(lines) + "\n").encode()
            lines = []
    if lines:
        yield ("\n".join(lines) + "\n").encode()


def _iso(value: Any) -> str:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not written as JSON")


_FORMAT = OpenApiParameter(
    "format",
    OpenApiTypes.STR,
    enum=list(FORMATS),
    description="csv or jsonl (JSON lines); without it, the `Accept` header chooses "
    "(`text/csv`, `application/x-ndjson` or `application/jsonl`; CSV for `*/*`).",
)
_CONDITIONAL = (
    "Every answer carries an `ETag` and `Last-Modified` (the data version: any committed "
    "change moves them); ask again with `If-None-Match` or `If-Modified-Since` and an "
    "unchanged answer is a 304 with nothing streamed."
)


def _streamed(what: str) -> dict:
    """The responses of a streamed read: CSV and JSON lines, 304, errors."""
    streamed = OpenApiResponse(
        OpenApiTypes.STR,
        f"{what}: CSV with a header row (text/csv), or JSON lines, one object a line "
        "(application/x-ndjson, or application/jsonl when asked for by that name).",
    )
    return {
        **{(200, media): streamed for media in ACCEPTED},
        304: OpenApiResponse(description="Not modified since the ETag or date asked about."),
        **errors(400, 404),
        406: OpenApiResponse(s.ErrorSerializer, "`Accept` asks for neither CSV nor JSON lines."),
    }


@extend_schema(
    summary="The whole rating list of a period, streamed",
    description="The rows of `/rating-list/` with the same parameters (and `period_label`), "
    "every player in one file, CSV or JSON lines: a closed period's list as published (its "
    "latest revision, or `revision`), an open one's live. CSV has a header row (the names of "
    "the JSON rows' fields) and formula cells written as text, as in every CSV Ladder writes. "
    + _CONDITIONAL,
    parameters=[
        OpenApiParameter(
            "period",
            query_schema(s.RatingListQuery, "period", example=2),
            description="Period id (default: the latest period).",
        ),
        OpenApiParameter(
            "period_label",
            {
                "type": "string",
                "pattern": s.PERIOD_LABEL_PATTERN,
                "maxLength": 20,
                "example": "2026-02",
            },  # fmt: skip
            description="The period by label (`2026-03`); with `period`, the same period.",
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
        _FORMAT,
    ],
    responses=_streamed("Every line of the list"),
)
class RatingListStreamView(StreamView):
    queryset = RatingPeriod.objects.all()

    def get(self, request):
        return self.stream(request, BulkListQuery(data=request.query_params), self._read)

    def _read(self, asked: dict) -> tuple[str, tuple[str, ...], Iterator[tuple[Any, ...]]]:
        rating_list = asked.get("list") or default_list()
        period: RatingPeriod | None
        if "period" in asked:
            period = get_object_or_404(RatingPeriod, pk=asked["period"])
            if asked.get("period_label", period.label) != period.label:
                raise exceptions.ValidationError(
                    {
                        "period_label": [
                            f"Period {period.pk} is {period.label}: give the period by id or "
                            "by label, or both naming the same period."
                        ]
                    }
                )
        elif "period_label" in asked:
            label = asked["period_label"]
            period = RatingPeriod.objects.filter(label=label).first()
            if period is None:
                raise exceptions.NotFound(
                    gettext("No period has the period_label '%(label)s'.") % {"label": label}
                )
        elif asked["as_published"]:
            latest = official.latest_publications([rating_list]).get(rating_list)
            period = latest.period if latest else None
        else:
            period = RatingPeriod.objects.latest_period()
        name = f"rating-list-{rating_list}-{period.label if period else 'entry'}"
        if asked["as_published"] or (period is not None and period.is_closed):
            revision = asked.get("revision")
            found = streams.publication_of(period, rating_list, revision) if period else None
            if found is not None:
                name += f"-r{found.revision}"
                return name, streams.PUBLISHED_COLUMNS, streams.published_lines(found)
            if asked["as_published"]:
                raise serializers.ValidationError(_unpublished(period, rating_list, revision))
            # else closed before lists were kept as published: the list reads live
        return name, streams.LIVE_COLUMNS, streams.live_lines(period, rating_list)


@extend_schema(
    summary="A player's whole rating history, streamed",
    description="One row per period in which the player had a game on the list (`list`), "
    "newest first: the calculation of `/players/{id}/history/` without the games, and the "
    "period flat (`period_id`, `period` its label, `start`, `end`). " + _CONDITIONAL,
    parameters=[list_parameter("The list: " + LIST_DEFAULT), _FORMAT],
    responses={**_streamed("Every period of the player's history"), 301: MOVED},
)
class HistoryStreamView(StreamView):
    queryset = Player.objects.all()

    def get(self, request, pk: int):
        def read(asked: dict) -> tuple[str, tuple[str, ...], Iterator[tuple[Any, ...]]]:
            player = get_object_or_404(Player, pk=pk)
            refuse_merged(request, pk=player)  # 301 to the kept player's history
            rating_list = asked["list"]
            lines = streams.history_lines(player, rating_list)
            return f"history-{rating_list}-{player.pk}", streams.HISTORY_COLUMNS, lines

        return self.stream(request, BulkHistoryQuery(data=request.query_params), read)
