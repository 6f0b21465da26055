"""Players' search key (ladder.records.names.search_key), filled in for the stored players, and
on PostgreSQL pg_trgm with a GIN trigram index on it: the name search of every door."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

from ladder.records.names import search_key

_CHUNK = 5000
_INDEX = "ladder_player_search_key_trgm"


def fill_search_keys(apps, schema_editor):
    Player = apps.get_model("ladder", "Player")
    players = Player.objects.using(schema_editor.connection.alias).order_by("pk")
    last = 0
    while True:
        chunk = list(players.filter(pk__gt=last).only("pk", "name")[:_CHUNK])
        if not chunk:
            return
        for player in chunk:
            player.search_key = search_key(player.name)
        Player.objects.using(schema_editor.connection.alias).bulk_update(chunk, ["search_key"])
        last = chunk[-1].pk


def create_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {_INDEX} ON ladder_player "
            "USING gin (search_key gin_trgm_ops)"
        )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {_INDEX}")


class TrigramOnPostgres(TrigramExtension):
    """pg_trgm on PostgreSQL; nothing on another database, either way (Django's own looks for
    the extension in ``pg_extension`` when migrating backwards, whatever the database)."""

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0021_conflict_codes"),
    ]

    operations = [
        TrigramOnPostgres(),
        migrations.AddField(
            model_name="player",
            name="search_key",
            field=models.TextField(db_index=True, default="", editable=False),
        ),
        migrations.RunPython(fill_search_keys, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(create_trigram_index, drop_trigram_index),
    ]
