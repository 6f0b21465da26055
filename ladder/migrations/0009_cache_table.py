"""The database cache's table (settings CACHES: the API throttle counts there unless REDIS_URL
names a Redis), created by migrate so that no deployment step can be forgotten."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("ladder", "0008_idempotency_and_imported_files")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
