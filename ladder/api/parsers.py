"""The API's JSON parser, with limits: a body too large or nested too deep is a 400 with a
sentence, never a 500 (Python's decoder recurses, and 100,000 brackets exhaust its stack).
DRF reads a JSON body through ``request.body``, where Django applies its own size limit; the
exception handler answers that one the same way. A body of a type the endpoint does not read
is a 415 that names the types it reads."""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser

# No request of the API nests deeper than a few levels (the calculator: body, games, game).
MAX_DEPTH = 32
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class LimitedJSONParser(JSONParser):
    """JSON within ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes and ``MAX_DEPTH`` levels."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if limit is not None and len(body) > limit:
            raise ParseError(
                gettext("The request body is larger than %(limit)s bytes.")
                % {"limit": f"{limit:,}"}
            )
        if _depth(body) > MAX_DEPTH:
            raise ParseError(
                gettext("The JSON is nested deeper than %(depth)s levels.") % {"depth": MAX_DEPTH}
            )
        encoding = _text_encoding((parser_context or {}).get("encoding", settings.DEFAULT_CHARSET))
        try:
            return json.loads(
                codecs.decode(body, encoding),
                parse_constant=_refuse_constant,
                parse_float=_finite_float,
            )
        except (ValueError, RecursionError) as error:
            raise ParseError(gettext("JSON parse error - %(error)s") % {"error": error}) from error


class NamedMediaTypesNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with a 415 that says what to send instead (DRF's own names only the
    type it refused), and the commonest answer found without parsing.

    A request that accepts anything (``*/*``, or no ``Accept``) or exactly the first
    renderer's type, with no ``?format=``, gets the first renderer, as DRF would choose it
    after parsing the header and matching it against every renderer (a thirtieth of an
    uncached API read's time, measured with ``scripts/profile_reads.py``).
    """

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if (
            renderers
            and format_suffix is None
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
        ):
            first = renderers[0]
            if accept in ("*/*", first.media_type):
                return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)

    def select_parser(self, request: Any, parsers: Any) -> Any:
        parser = super().select_parser(request, parsers)
        if parser is None:
            sent = request.content_type.split(";")[0].strip()
            read = " or ".join(p.media_type for p in parsers) or "no body"
            raise UnsupportedMediaType(
                sent,
                detail=gettext(
                    "This endpoint reads %(read)s only, not %(sent)s (the Content-Type)."
                )
                % {"read": read, "sent": sent},
            )
        return parser


def _text_encoding(name: str) -> str:
    """Return ``name`` when it names a text encoding; refuse the rest with a sentence.

    Python's codecs also hold bytes-to-bytes ones (``zlib``, ``bz2``, ``base64``) and
    str-to-str ones (``rot13``): a ``charset=zlib`` would decompress a small body into a huge
    one before any size check, and the others fail deep inside the decoder.
    """
    try:
        info = codecs.lookup(name)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise ParseError(
            gettext(
                "The charset '%(name)s' is not a text encoding; send JSON as UTF-8 "
                "(Content-Type: application/json; charset=utf-8)."
            )
            % {"name": name}
        )
    return info.name


def _depth(body: bytes) -> int:
    """The deepest nesting of brackets outside strings (strings are skipped whole)."""
    depth = deepest = 0
    for match in _TOKENS.finditer(body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def _finite_float(text: str) -> float:
    """Read a JSON number with a fraction or exponent; one beyond a float (``1e400``) would
    become infinity, which no field can hold (int() of it raises OverflowError)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")
