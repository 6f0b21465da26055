"""The players' table rebuilt with the columns its scans read first (migration ladder.0030):
every row, constraint, index, foreign key, identity, setting and grant kept (PostgreSQL)."""

import importlib
import uuid

import pytest
from django.db import DatabaseError, connection, transaction

from ladder.records import Player
from tests.factories import GameFactory, PlayerFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's column order"),
]

migration = importlib.import_module("ladder.migrations.0030_player_columns_read_first")


def columns() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'ladder_player'::regclass "
            "AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
        )
        return [name for (name,) in cursor.fetchall()]


def catalogue() -> dict:
    """What the rebuild must keep, in no order of columns."""
    found = {}
    with connection.cursor() as cursor:
        queries = {
            "columns": "SELECT attname, format_type(atttypid, atttypmod), attnotnull, attidentity "
            "FROM pg_attribute WHERE attrelid = 'ladder_player'::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attname",
            "constraints": "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = 'ladder_player'::regclass ORDER BY conname",
            "indexes": "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE tablename = 'ladder_player' ORDER BY indexname",
            "pointing": "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE confrelid = 'ladder_player'::regclass ORDER BY 1, 2",
            "storage": "SELECT reloptions, relacl, obj_description(oid, 'pg_class') "
            "FROM pg_class WHERE oid = 'ladder_player'::regclass",
            "comments": "SELECT attname, col_description(attrelid, attnum) FROM pg_attribute "
            "WHERE attrelid = 'ladder_player'::regclass AND col_description(attrelid, attnum) "
            "IS NOT NULL ORDER BY 1",
            "sequence": "SELECT pg_get_serial_sequence('ladder_player', 'id')",
        }
        for name, sql in queries.items():
            cursor.execute(sql)
            found[name] = cursor.fetchall()
    found["rows"] = sorted(Player.objects.order_by().values_list(), key=lambda row: row[0])
    return found


def test_the_migrated_table_reads_its_scanned_columns_first():
    assert columns()[: len(migration.FIRST)] == migration.FIRST
    assert sorted(columns()) == sorted(f.column for f in Player._meta.concrete_fields)


def test_a_rebuild_keeps_every_row_constraint_index_key_and_grant():
    kept, merged = PlayerFactory(name="Kept"), PlayerFactory(name="Merged", national_id="77")
    Player.objects.filter(pk=merged.pk).update(merged_into=kept)
    game = GameFactory(white=kept, black=PlayerFactory())
    role = f"ladder_reader_{uuid.uuid4().hex[:12]}"  # the test's transaction drops it again
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role}")
        cursor.execute(f"GRANT SELECT ON ladder_player TO {role}")
        cursor.execute("COMMENT ON COLUMN ladder_player.name IS 'as the player writes it'")
    before = catalogue()

    with connection.cursor() as cursor:
        migration.rebuild(cursor, "ladder_player", ["name", "national_id", "id"])

    assert columns()[:3] == ["name", "national_id", "id"]
    assert catalogue() == before
    # The identity goes on from where it was; the keys hold, both ways.
    assert PlayerFactory().pk > max(row[0] for row in before["rows"])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        with pytest.raises(DatabaseError), transaction.atomic():
            cursor.execute("DELETE FROM ladder_player WHERE id = %s", [game.white_id])
        with pytest.raises(DatabaseError), transaction.atomic():
            cursor.execute("UPDATE ladder_player SET merged_into_id = -1 WHERE id = %s", [kept.pk])
        with pytest.raises(DatabaseError), transaction.atomic():  # the partial unique index
            cursor.execute(
                "UPDATE ladder_player SET national_id = '77', national_federation = %s "
                "WHERE id = %s",
                [merged.national_federation, kept.pk],
            )


def test_a_serial_id_of_an_older_database_keeps_its_sequence():
    """A table made before Django 4.1 numbers its rows with a sequence its id owns."""
    PlayerFactory()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no check pending: the table altered
        cursor.execute("ALTER TABLE ladder_player ALTER COLUMN id DROP IDENTITY")
        cursor.execute("CREATE SEQUENCE ladder_player_serial_seq OWNED BY ladder_player.id")
        cursor.execute("SELECT setval('ladder_player_serial_seq', max(id)) FROM ladder_player")
        cursor.execute(
            "ALTER TABLE ladder_player ALTER COLUMN id SET DEFAULT "
            "nextval('ladder_player_serial_seq')"
        )
        before = catalogue()
        migration.rebuild(cursor, "ladder_player", migration.FIRST)
        assert catalogue() == before
        cursor.execute("SELECT pg_get_serial_sequence('ladder_player', 'id')")
        assert cursor.fetchone() == ("public.ladder_player_serial_seq",)
    assert PlayerFactory().pk == max(row[0] for row in before["rows"]) + 1


def test_a_table_with_a_view_on_it_is_refused_untouched():
    with connection.cursor() as cursor:
        cursor.execute("CREATE VIEW ladder_player_names AS SELECT id, name FROM ladder_player")
        order = columns()
        with pytest.raises(RuntimeError, match="views on it"):
            migration.rebuild(cursor, "ladder_player", ["name"])
    assert columns() == order


def test_a_column_the_table_does_not_have_is_refused():
    with connection.cursor() as cursor, pytest.raises(ValueError, match="no column rating_x"):
        migration.rebuild(cursor, "ladder_player", ["rating_x"])
