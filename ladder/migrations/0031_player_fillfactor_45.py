"""Leave 55 % of each players' page free (fillfactor 45, was 50 since migration 0005).

A rating run rewrites every rated player's row. PostgreSQL keeps the new version on its page,
touching no index (a "HOT" update), only when the page has room for it: at fillfactor 50 a
page half full of rows cannot take a second version of each of them and the page's own
overhead, so the last rows of each page (4 % of 100,000 players) moved to other pages and
went through every index of the table, the trigram index included. At 45 every row stays in
place: ``make bench``'s first recompute 1.79-2.15 s -> 1.62-1.85 s, seven turns each; the
standings' scans of 5,000 players took the same time (docs/benchmarks.md).

Pages filled before this migration get the room as they are rewritten; ``VACUUM FULL
ladder_player`` (which locks the table) does it at once.
"""

from django.db import migrations


def set_fillfactor(apps, schema_editor, value=45):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE ladder_player SET (fillfactor = {int(value)})")


def back_to_50(apps, schema_editor):
    set_fillfactor(apps, schema_editor, value=50)


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0030_player_columns_read_first"),
    ]

    operations = [
        migrations.RunPython(set_fillfactor, back_to_50),
    ]
