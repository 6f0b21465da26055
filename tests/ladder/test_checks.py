"""``manage.py check --database default`` warns when the players' table lost its fillfactor."""

from io import StringIO

import pytest
from django.core import checks
from django.core.management import call_command
from django.db import connection

pytestmark = pytest.mark.django_db


def database_warnings() -> list[str]:
    return [m.id for m in checks.run_checks(databases=["default"], tags=[checks.Tags.database])]


def test_a_migrated_database_is_clean():
    assert "ladder.W001" not in database_warnings()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL storage setting")
def test_a_players_table_without_its_room_is_named_with_the_fix():
    with connection.cursor() as cursor:  # rolled back with the test's transaction
        cursor.execute("ALTER TABLE ladder_player RESET (fillfactor)")
    assert database_warnings() == ["ladder.W001"]
    err = StringIO()
    call_command("check", "--database", "default", stderr=err)
    assert "fillfactor 100" in err.getvalue()
    assert "ALTER TABLE ladder_player SET (fillfactor = 45)" in err.getvalue()

    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ladder_player SET (fillfactor = 70)")
    assert database_warnings() == ["ladder.W001"]
    with connection.cursor() as cursor:  # migration 0005's, before 0031 made it 45
        cursor.execute("ALTER TABLE ladder_player SET (fillfactor = 50)")
    assert database_warnings() == ["ladder.W001"]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ladder_player SET (fillfactor = 40)")  # more room is fine
    assert database_warnings() == []


def test_without_a_database_asked_nothing_is_read(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert "ladder.W001" not in [m.id for m in checks.run_checks()]
