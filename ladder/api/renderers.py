"""How the API writes its answers: JSON (DRF's JSON, written by orjson) and CSV (the lists,
written as every CSV of Ladder is: ``exports.csv_text``, formula cells neutralised, None as an
empty cell)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import orjson
from rest_framework import renderers
from rest_framework.renderers import BaseRenderer
from rest_framework.utils.encoders import JSONEncoder

from ladder.files import exports


class CSVRenderer(BaseRenderer):
    """``?format=csv`` (or ``Accept: text/csv``): a list of rows as CSV, a header row of their
    keys; an error (a dict of field messages) as ``field,message`` rows."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        if isinstance(data, list):
            header = list(data[0]) if data else ["id", "name"]
            rows: Any = ([row.get(name) for name in header] for row in data)
        else:
            header = ["field", "message"]
            rows = [
                (name, message)
                for name, messages in (data or {}).items()
                for message in (messages if isinstance(messages, list) else [messages])
            ]
        return exports.csv_text(header, rows).encode(self.charset)


# Dates, times and date-times are handed to DRF's encoder, as its ``json.dumps`` hands them:
# orjson writes a UTC offset with seconds to the minute, and (3.13) a time of 10,000
# microseconds as ".10000". A dataclass, which orjson would write and DRF refuses, too.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, the compact answer written by orjson.

    DRF writes with ``json.dumps`` and its encoder's ``default`` for each value JSON has no
    type for (lazy translations, decimals, date-times): a tenth of an uncached 50-player page
    (measured with ``scripts/profile_reads.py``). orjson writes the same bytes in a fraction of
    the time, handing the same values to the same ``default``; U+2028 and U+2029 escaped as
    DRF escapes them. What orjson refuses (an integer past 64 bits, a key that is not text,
    text that is not Unicode), and an indented answer (``; indent=``), DRF writes.
    ``tests/api/test_json_renderer.py`` holds the two equal. One difference, in no answer the
    API gives: a float may be written in another of its shortest forms (``1e-7`` for
    ``1e-07``; the API has no float).
    """

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if (
            data is None
            or self.ensure_ascii
            or not self.compact
            or self.get_indent(accepted_media_type or "", renderer_context or {}) is not None
        ):
            return super().render(data, accepted_media_type, renderer_context)
        default = _default if self.encoder_class is JSONEncoder else self.encoder_class().default
        try:
            body = orjson.dumps(data, default=default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return super().render(data, accepted_media_type, renderer_context)
        for character, escaped in _LINE_SEPARATORS:
            if character in body:
                body = body.replace(character, escaped)
        return body


_ENCODER = JSONEncoder()


def _default(value: Any) -> Any:
    """DRF's ``JSONEncoder.default``, days and date-times first: the two a page of players
    hands it hundreds of times (a twentieth of the page, through its chain of type tests)."""
    kind = type(value)
    if kind is date:
        return value.isoformat()
    if kind is datetime:
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return _ENCODER.default(value)
