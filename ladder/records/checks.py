"""System checks of what the records' storage relies on (``manage.py check --database default``).

Django runs checks tagged ``database`` only when asked for a database, so these cost nothing on
an ordinary start; ``docs/deployment.md`` asks for them after a restore or a migration.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks
from django.db import connections

from ladder.records.players import Player

# The players' pages are kept 55 % empty (migrations ladder.0005, then 0031): a rating run
# rewrites every rated player's row, and the room lets PostgreSQL keep each new version on its
# page without touching the table's indexes (an update five times slower without it, and a
# first recompute 10-17 % slower at 50, where a page's last rows did not fit: measured,
# docs/benchmarks.md).
PLAYERS_FILLFACTOR = 45


@checks.register(checks.Tags.database)
def players_fillfactor(
    app_configs: Iterable[Any] | None = None,
    databases: Iterable[str] | None = None,
    **kwargs: Any,
) -> list[checks.CheckMessage]:
    """Warn when the players' table on PostgreSQL has lost its fillfactor (a table rebuilt by a
    tool that drops storage settings): every rating run would rewrite its players slowly."""
    found: list[checks.CheckMessage] = []
    table = Player._meta.db_table
    for alias in databases or ():
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.oid IS NOT NULL, (SELECT option_value FROM "
                "pg_options_to_table(c.reloptions) WHERE option_name = 'fillfactor') "
                "FROM (SELECT to_regclass(%s) AS oid) r LEFT JOIN pg_class c ON c.oid = r.oid",
                [table],
            )
            exists, value = cursor.fetchone() or (False, None)
        if not exists:
            continue  # not migrated yet: migrate sets it
        fillfactor = int(value) if value is not None else 100
        if fillfactor > PLAYERS_FILLFACTOR:
            found.append(
                checks.Warning(
                    f"The players' table ({table}) on database '{alias}' has fillfactor "
                    f"{fillfactor}; Ladder's migrations make it {PLAYERS_FILLFACTOR}. Without "
                    "that room, a rating run's update of the players cannot stay in place "
                    "and is several times slower.",
                    hint=f"ALTER TABLE {table} SET (fillfactor = {PLAYERS_FILLFACTOR}); then "
                    f"VACUUM FULL {table} (it locks the table) or let the rows move over the "
                    "next runs.",
                    id="ladder.W001",
                )
            )
    return found
