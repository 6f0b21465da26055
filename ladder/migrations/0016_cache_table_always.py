"""The database cache's table, whatever CACHES says when migrate runs.

Migration 0009 asked ``createcachetable``, which creates only the tables of the caches
configured at that moment: a database migrated with ``REDIS_URL`` set had no ``ladder_cache``,
and serving it later without Redis made every anonymous read answer 500. The table is created
here by name (``ladder.settings``: LOCATION of the database cache), if it is missing.
"""

from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations

TABLE = "ladder_cache"


def create_cache_table(apps, schema_editor):
    connection = schema_editor.connection
    if TABLE not in connection.introspection.table_names():
        command = CreateCacheTable(stdout=None)
        command.verbosity = 0  # set by the command's handle(), which is not run here
        command.create_table(connection.alias, TABLE, dry_run=False)


class Migration(migrations.Migration):
    dependencies = [("ladder", "0015_entry_rating_floor_in_the_database")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
