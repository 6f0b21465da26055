"""On PostgreSQL the reads compiled once run as prepared statements of the session
(``ladder.records.compiled.prepared_cursor``): the same answers as the ORM's, whatever
happened to the session in between (a rolled-back savepoint, a table altered), and none with
``LADDER_PREPARED_READS`` off or while the queries are logged."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from ladder.records import Player
from ladder.records.compiled import Compiled
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's sessions"),
]

# A read of its own (its text found in pg_prepared_statements), with a value of each kind.
RATED_SINCE = Compiled(
    lambda rating, name: (
        Player.objects.filter(rating__gte=rating).exclude(name=name).order_by("-rating", "pk")
    )
)


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def ours(statements: list[str]) -> list[str]:
    return [s for s in statements if 'WHERE ("ladder_player"."rating" >=' in s]


def answers(rating: int, name: str) -> None:
    expected = list(Player.objects.filter(rating__gte=rating).exclude(name=name).order_by(
        "-rating", "pk"
    ))  # fmt: skip
    assert RATED_SINCE.objects(rating, name) == expected
    assert [p.rating for p in RATED_SINCE.objects(rating, name)] == [p.rating for p in expected]


@pytest.fixture
def club():
    players = [PlayerFactory(name=f"P{n}", entry_rating=1500 + 100 * n) for n in range(6)]
    UnratedPlayerFactory()
    return players


def test_a_read_is_prepared_once_and_answers_as_the_orm(club):
    for rating, name in [(1400, "P0"), (1700, "P3"), (1700, "nobody"), (2600, "P5")] * 3:
        answers(rating, name)

    found = ours(prepared())
    assert len(found) == 1, found
    assert "$1" in found[0]  # the values sent apart from the text
    assert "$2" in found[0]


def test_after_a_savepoint_rolled_back_and_a_table_altered_the_read_answers(club):
    answers(1600, "P1")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")
    answers(1600, "P2")  # psycopg forgot its statements on the ROLLBACK and made them again
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no trigger pending on the table
        # A column the read returns, of another type: the prepared statement's result changes.
        cursor.execute("ALTER TABLE ladder_player ALTER COLUMN birth_year TYPE numeric")
    answers(1500, "P2")
    Player.objects.filter(name="P4").update(entry_rating=1400)
    answers(1400, "P0")


def test_none_prepared_when_turned_off_or_while_queries_are_logged(club, settings):
    settings.LADDER_PREPARED_READS = False
    answers(1500, "P1")
    assert ours(prepared()) == []

    settings.LADDER_PREPARED_READS = True
    with CaptureQueriesContext(connection) as queries:
        answers(1500, "P1")
    assert ours(prepared()) == []
    assert any("'P1'" in q["sql"] for q in queries)  # the log shows the values
