"""On PostgreSQL a connection whose session is in UTC reads ``timestamptz`` through psycopg's
C parser (``ladder.records.timestamps``): every date-time as Django's own loader reads it, to
the microsecond and the ``tzinfo`` object; a connection in another time zone keeps Django's."""

from __future__ import annotations

import datetime

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.records import Player
from ladder.records.timestamps import _fast_utc_loader
from tests.factories import PlayerFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's loaders")

TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid


class DjangosLoader(BaseTzLoader):
    timezone = datetime.UTC


def loader_of(wrapper) -> type:
    from psycopg.pq import Format

    return wrapper.connection.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)


def read_both(moment: datetime.datetime) -> tuple[datetime.datetime, datetime.datetime]:
    """``moment`` read back through the connection's loader, and its text through Django's."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz, %s::timestamptz::text", [moment, moment])
        value, text = cursor.fetchone()
    return value, DjangosLoader(TIMESTAMPTZ, connection.connection).load(text.encode())


@pytest.mark.django_db
def test_a_utc_session_reads_date_times_with_the_c_loader():
    connection.ensure_connection()
    assert loader_of(connection) is _fast_utc_loader()
    player = PlayerFactory()
    read = Player.objects.get(pk=player.pk)
    assert read.created == player.created
    assert read.created.tzinfo is datetime.UTC


@pytest.mark.django_db
@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(
        min_value=datetime.datetime(1, 1, 1, 0, 0, 1),
        max_value=datetime.datetime(9999, 12, 30),
        timezones=st.sampled_from([datetime.UTC, datetime.timezone(
            datetime.timedelta(hours=-9, minutes=-30)), datetime.timezone(
            datetime.timedelta(hours=5, minutes=45))]),
    )
)  # fmt: skip
def test_every_date_time_reads_as_djangos_loader_reads_it(moment):
    value, djangos = read_both(moment)
    assert value == djangos == moment
    assert value.tzinfo is djangos.tzinfo is datetime.UTC


@pytest.mark.django_db
def test_a_session_in_another_time_zone_keeps_djangos_loader(settings):
    settings.USE_TZ = True
    other = connections.create_connection("default")
    other.settings_dict = {**other.settings_dict, "TIME_ZONE": "Europe/Paris"}
    try:
        other.ensure_connection()
        assert loader_of(other) is not _fast_utc_loader()
        with other.cursor() as cursor:
            cursor.execute("SELECT '2026-03-29 00:30:00+00'::timestamptz")
            (value,) = cursor.fetchone()
        assert value.tzinfo == other.timezone
        assert value == datetime.datetime(2026, 3, 29, 0, 30, tzinfo=datetime.UTC)
    finally:
        other.close()
