"""The API's JSON, written by orjson, is the JSON DRF's own renderer writes."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import renderers
from rest_framework.exceptions import ErrorDetail

from ladder.api.renderers import JSONRenderer

# Everything DRF's encoder writes, floats aside (below): text with the line separators DRF
# escapes, control characters and characters past the BMP; integers of any size; the values
# its ``default`` turns into JSON.
texts = st.text(st.characters(codec="utf-8") | st.sampled_from('\u2028\u2029\x00\x1f\x7f</>"\\é𝄞'))
integers = st.integers() | st.integers(min_value=-(2**63), max_value=2**64)
zones = st.sampled_from(
    [
        None, UTC, timezone(timedelta(hours=-5, minutes=-30)), ZoneInfo("Europe/London"),
        ZoneInfo("Asia/Kolkata"), ZoneInfo("America/St_Johns"), ZoneInfo("Africa/Monrovia"),
    ]
)  # fmt: skip
scalars = (
    st.none()
    | st.booleans()
    | integers
    | texts
    | st.builds(ErrorDetail, texts, st.sampled_from(["invalid", "required"]))
    | st.decimals(
        allow_nan=False, allow_infinity=False, places=2, max_value=10**6, min_value=-(10**6)
    )
    | st.dates()
    | st.datetimes(timezones=zones)
    | st.times()
    | st.uuids()
    | st.timedeltas(max_value=timedelta(days=999))
    | st.sampled_from([gettext_lazy("Rated"), gettext_lazy("unplayed: not rated")])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(texts, inner, max_size=4)
        # A key that is not text: orjson refuses it, DRF writes it.
        | st.dictionaries(st.integers(-5, 5), inner, max_size=2)
    ),
    max_leaves=30,
)


def _drf(data, media_type=None):
    return renderers.JSONRenderer().render(data, media_type)


def _ours(data, media_type=None):
    return JSONRenderer().render(data, media_type)


@given(values)
def test_the_bytes_are_drfs(data):
    assert _ours(data) == _drf(data)


@given(st.datetimes(timezones=st.timezones()) | st.times(timezones=st.none()))
def test_date_times_in_every_zone_are_drfs(value):
    assert _ours([value]) == _drf([value])


@pytest.mark.parametrize(
    "value",
    [
        # Liberia's -0:44:30 until 1972: orjson would write it to the minute.
        datetime(1971, 6, 1, 12, 0, tzinfo=timezone(timedelta(minutes=-44, seconds=-30))),
        # orjson 3.13 writes this time ".10000".
        time(0, 0, 0, 10_000),
    ],
)
def test_what_orjson_writes_otherwise_is_drfs(value):
    assert _ours(value) == _drf(value)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=5))
def test_floats_are_the_same_numbers(data):
    # A float may be written in another of its shortest forms (1e-7 for 1e-07).
    assert json.loads(_ours(data)) == json.loads(_drf(data))


@pytest.mark.parametrize(
    "data",
    [
        {"name": "A\u2028B\u2029C"},
        {"page": [{"id": 1, "score": Decimal("1.5"), "on": date(2026, 12, 1)}]},
        {"at": datetime(2026, 12, 6, 13, 0, 0, 123456, tzinfo=UTC)},
        {"at": time(9, 30, 1, 5)},
        {"big": 2**70, "small": -(2**70)},
        {1: "a key that is not text"},
        None,
    ],
)
@pytest.mark.parametrize("media_type", [None, "application/json", "application/json; indent=4"])
def test_answers_the_api_gives_are_drfs(data, media_type):
    assert _ours(data, media_type) == _drf(data, media_type)


def test_text_that_is_not_unicode_fails_as_drf_fails():
    with pytest.raises(UnicodeEncodeError):
        _drf({"name": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        _ours({"name": "\ud800"})


def test_a_value_drf_cannot_write_is_refused_as_drf_refuses_it():
    class Unknown:
        pass

    for render in (_drf, _ours):
        with pytest.raises(TypeError):
            render({"value": Unknown()})


@pytest.mark.django_db
def test_the_api_answers_with_it(client):
    response = client.get("/api/v1/freshness/")
    assert isinstance(response.accepted_renderer, JSONRenderer)
    assert response.content == _drf(response.data)


def test_uuid_text_is_drfs():
    value = uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert _ours([value]) == _drf([value]) == b'["12345678-1234-5678-1234-567812345678"]'
