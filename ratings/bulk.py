"""Bulk reads and writes for the recompute, below the ORM where the ORM is measured too slow.

A federation-sized period writes 100,000 RatingChange rows and updates as many players. The
ORM's ``bulk_create`` spends most of its time preparing values field by field, and
``bulk_update`` builds one ``CASE WHEN`` per row and field (quadratic in the batch), so these
few statements are written by hand: COPY on PostgreSQL, ``executemany`` on SQLite; updates
join a COPY-filled scratch table (PostgreSQL) or a ``VALUES`` list per batch (SQLite). Table
and column names come from the models' metadata, never from input.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import date

from django.db import connection
from django.db.models import Model, QuerySet

# SQLite accepts 32,766 variables per statement (3.32+); stay below it.
MAX_VARIABLES = 30_000


def fetch_rows(queryset: QuerySet, *, chunk: int = 50_000) -> Iterator[tuple]:
    """Yield the rows of a ``values_list`` QuerySet as the driver returns them (no converters).

    Dates come back as ``date`` on PostgreSQL and as ISO text on SQLite; ``as_date`` reads both.
    """
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk):
            yield from rows


def as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(value[:10])


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Insert rows (values in ``columns`` order, already in database form); return the count."""
    table = model._meta.db_table
    quoted = ", ".join(connection.ops.quote_name(model._meta.get_field(c).column) for c in columns)
    count = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
            return count
        placeholders = ", ".join(["%s"] * len(columns))
        batch: list[Sequence] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= 10_000:
                cursor.executemany(f"INSERT INTO {table} ({quoted}) VALUES ({placeholders})", batch)
                count += len(batch)
                batch = []
        if batch:
            cursor.executemany(f"INSERT INTO {table} ({quoted}) VALUES ({placeholders})", batch)
            count += len(batch)
    return count


def update_rows(model: type[Model], columns: Sequence[str], rows: Sequence[Sequence]) -> None:
    """Set ``columns`` of the rows whose primary key is the first value of each row."""
    if not rows:
        return
    meta = model._meta
    quote = connection.ops.quote_name
    table = quote(meta.db_table)
    fields = [meta.pk] + [meta.get_field(c) for c in columns]
    names = [quote(f.column) for f in fields]
    key = names[0]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY into a scratch table, then one joined UPDATE: the VALUES form below spent
            # most of its time having 100,000 rows of literals parsed.
            scratch = quote(f"{meta.db_table}_update")
            columns_sql = ", ".join(
                f"{n} {f.rel_db_type(connection) if f.primary_key else f.db_type(connection)}"
                for n, f in zip(names, fields, strict=True)
            )
            cursor.execute(
                f"CREATE TEMPORARY TABLE IF NOT EXISTS {scratch} ({columns_sql}) ON COMMIT DROP"
            )
            cursor.execute(f"TRUNCATE {scratch}")
            with cursor.cursor.copy(f"COPY {scratch} ({', '.join(names)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            assignments = ", ".join(f"{n} = v.{n}" for n in names[1:])
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM {scratch} v WHERE {table}.{key} = v.{key}"
            )
            return
        assignments = ", ".join(f"{n} = v.{n}" for n in names[1:])
        per_row = len(names)
        batch_size = max(1, MAX_VARIABLES // per_row)
        for offset in range(0, len(rows), batch_size):
            batch = rows[offset : offset + batch_size]
            values = ", ".join(["(" + ", ".join(["%s"] * per_row) + ")"] * len(batch))
            cursor.execute(
                f"WITH v ({', '.join(names)}) AS (VALUES {values}) "
                f"UPDATE {table} SET {assignments} FROM v WHERE {table}.{key} = v.{key}",
                [_plain(value) for row in batch for value in row],
            )


def _plain(value):
    """Send dates as ISO text, as SQLite stores them."""
    return value.isoformat() if isinstance(value, date) else value
