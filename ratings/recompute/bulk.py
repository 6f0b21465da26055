"""Bulk reads and writes for the recompute, below the ORM where the ORM is measured too slow.

A federation-sized period writes 100,000 RatingChange rows and updates as many players. The
ORM's ``bulk_create`` spends most of its time preparing values field by field, and
``bulk_update`` builds one ``CASE WHEN`` per row and field (quadratic in the batch), so these
few statements are written by hand: rows go in by COPY (PostgreSQL) or one ``executemany``
(SQLite), and updates join a scratch table filled the same way. Table and column names come
from the models' metadata, never from input.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from itertools import islice, repeat
from typing import Any, TypeAlias

import numpy as np
import psycopg
from django.db import connection
from django.db.models import Field, Model, QuerySet
from django.db.models.options import Options
from psycopg.copy import QueuedLibpqWriter

from ratings.exceptions import StorageError

Row = tuple[Any, ...]


def fetch_rows(queryset: QuerySet[Any, Any], *, chunk: int = 50_000) -> Iterator[Row]:
    """Yield the rows of a ``values_list`` QuerySet as the driver returns them (no converters).

    Dates come back as ``date`` on PostgreSQL and as ISO text on SQLite; ``as_date`` reads both.
    """
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk):
            yield from rows


def fetch_rows_sql(sql: str, params: Sequence[Any], *, chunk: int = 50_000) -> Iterator[Row]:
    """Yield the rows of a SQL query as the driver returns them."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk):
            yield from rows


def fetch_packed(
    sql: str,
    params: Sequence[Any],
    dtype: np.dtype[Any],
    *,
    meanwhile: Callable[[], object] | None = None,
) -> list[tuple[Row, np.ndarray]]:
    """Run a PostgreSQL query whose last column packs rows into a ``bytea``; unpack each.

    The query builds each row with ``int8send``/``int4send`` and joins them with
    ``string_agg`` (per group, when it groups): the server sends a value a group, in binary
    (no text encoding on either side), and numpy decodes every row of it in one pass. A
    million rows read as Python tuples, or as COPY lines one by one, cost seconds; this a
    fraction of one. Returns, for each row of the query, its other columns and the records.

    The query runs on a psycopg cursor of Django's connection, in its transaction: Django's
    own cursors bind parameters on the client, which psycopg allows only with text results.
    ``meanwhile`` is called while the server runs the query (sent in pipeline mode).
    """
    connection.ensure_connection()
    raw = connection.connection
    # Django's error classes, as its own cursors raise them (django.db.DataError, ...).
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
        if meanwhile is None:
            _execute(cursor, sql, params, binary=True)
        else:
            with raw.pipeline():
                _execute(cursor, sql, params, binary=True)
                meanwhile()
        return unpacked(cursor.fetchall(), dtype)


def unpacked(rows: Iterable[Sequence[Any]], dtype: np.dtype[Any]) -> list[tuple[Row, np.ndarray]]:
    """The rows of a packed query (``fetch_packed``): each row's other columns, and its last
    column's records decoded."""
    return [(tuple(values), np.frombuffer(packed or b"", dtype=dtype)) for *values, packed in rows]


def fetch_int_columns(model: type[Model], columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every row's primary key and integer ``columns`` (-1 for NULL; values must fit int4 and
    not be negative), as an array and an array of a row per row, in no particular order.

    On PostgreSQL the rows come packed (``fetch_packed``): 100,000 players' tuples of a dozen
    values cost more than the query.
    """
    meta = model._meta
    quote = connection.ops.quote_name
    key = quote(_column(_pk(meta)))
    names = [quote(_column(_field(meta, c))) for c in columns]
    table = quote(meta.db_table)
    if connection.vendor == "postgresql":
        # Two int4 values share each int8 (the first in the high half): half the sends and
        # concatenations of the server's work, which is most of it.
        wide = [f"COALESCE({name}, -1)::int8" for name in names]
        pairs = [wide[at : at + 2] for at in range(0, len(wide), 2)]
        packed = "".join(
            f" || int8send(({pair[0]} << 32) | ({pair[1]} & 4294967295))"
            if len(pair) == 2
            else f" || int8send({pair[0]} << 32)"
            for pair in pairs
        )
        dtype = np.dtype([("id", ">i8"), ("pairs", ">i8", (len(pairs),))])
        found = fetch_packed(
            f"SELECT string_agg(int8send({key}){packed}, ''::bytea) FROM {table}", [], dtype
        )
        records = found[0][1] if found else np.zeros(0, dtype)
        both = records["pairs"].astype(np.int64).reshape(len(records), len(pairs))
        # The high half by an arithmetic shift, the low half sign-extended the same way.
        halves = np.stack([both >> 32, (both << 32) >> 32], axis=2)
        unpacked = halves.reshape(len(records), 2 * len(pairs))[:, : len(names)]
        return records["id"].astype(np.int64), np.ascontiguousarray(unpacked)
    rows = list(fetch_rows_sql(f"SELECT {key}, {', '.join(names)} FROM {table}", []))
    values = np.array(
        [[-1 if value is None else value for value in row] for row in rows], np.int64
    ).reshape(len(rows), len(names) + 1)
    return values[:, 0].copy(), values[:, 1:]


@contextmanager
def in_background(
    statements: Sequence[tuple[str, Sequence[Any]]], *, settings: dict[str, str] | None = None
) -> Iterator[None]:
    """Run statements (SQL and parameters) while the caller's block runs; return when both
    are done.

    On PostgreSQL the statements are sent in pipeline mode, so the server executes them while
    Python goes on; the block must not use the connection. Elsewhere they run first.
    ``settings``: PostgreSQL settings for these statements only (restored after them).
    """
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    wanted = settings or {}
    names = list(wanted)
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
        was = {}
        if names:
            _execute(cursor, "SELECT " + ", ".join(["current_setting(%s)"] * len(names)), names)
            was = dict(zip(names, cursor.fetchone() or (), strict=True))
        change = "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(names))
        with raw.pipeline():
            if names:
                _execute(cursor, change, [v for name in names for v in (name, wanted[name])])
            for sql, params in statements:
                _execute(cursor, sql, params)
            if names:
                _execute(cursor, change, [v for name in names for v in (name, was[name])])
            yield


def _execute(cursor: psycopg.Cursor[Any], sql: str, params: Sequence[Any], **options: Any) -> None:
    """Execute on a psycopg cursor of Django's connection as Django's own cursors do: through
    the connection's execute wrappers (``connection.execute_wrapper``), and in its query log
    when it keeps one (``DEBUG``, tests counting queries)."""

    def execute(sql: str, params: Any, many: bool, context: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            cursor.execute(sql, params, **options)
        finally:
            if connection.queries_logged:
                connection.queries_log.append(
                    {"sql": sql, "time": f"{time.monotonic() - started:.3f}"}
                )

    executor = execute
    for wrapper in reversed(connection.execute_wrappers):
        executor = functools.partial(wrapper, executor)
    executor(sql, params, False, {"connection": connection, "cursor": cursor})


def as_date(value: date | str | None) -> date | None:
    """Read a date as PostgreSQL (``date``) or SQLite (ISO text) returns it."""
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(value[:10])


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert rows (values in ``columns`` order, already in database form) in one statement.

    COPY on PostgreSQL, one ``executemany`` on SQLite. Returns the number of rows.
    """
    meta = model._meta
    names = [connection.ops.quote_name(_column(_field(meta, c))) for c in columns]
    return _fill(connection.ops.quote_name(meta.db_table), names, rows)


@dataclass(frozen=True, slots=True)
class Same:
    """A column holding one value in every row."""

    value: Any


# A column for ``insert_columns``: integers without nulls as a numpy array, any values in
# database form as a list, or one value for every row.
Column: TypeAlias = "np.ndarray | list[Any] | Same"


def insert_columns(
    model: type[Model], columns: Sequence[str], values: Sequence[Column], count: int
) -> int:
    """``insert_rows`` for rows given as ``count`` values per column (see ``RowWriter``)."""
    with writing(model, columns) as writer:
        return writer.columns(values, count)


class RowWriter:
    """Rows going into one table in one statement: COPY on PostgreSQL, ``executemany`` on
    SQLite (``writing``).

    On PostgreSQL the data goes to the server from a worker thread (psycopg's
    ``QueuedLibpqWriter``) while the caller computes the next rows: the server stores the
    first rows while Python builds the rest (measured: a federation's newcomers are rated in
    the time the server takes to store the rated players' rows).
    """

    def __init__(self, table: str, names: list[str], copy: Any) -> None:
        self.table, self.names, self.copy = table, names, copy

    def columns(self, values: Sequence[Column], count: int) -> int:
        """Write rows given as ``count`` values per column; return ``count``.

        On PostgreSQL the COPY text is built a column at a time (each distinct value encoded
        once) and sent in a few large chunks: a row at a time, tuples and ``write_row`` cost
        more than the server's work for a federation's period.
        """
        if self.copy is None:
            rows = zip(*(_values(column, count) for column in values), strict=True)
            return _fill(self.table, self.names, rows)
        # One format a line: a column of the same value written into it once, integers
        # formatted by ``%d`` (half the time of ``str`` and a join), the others as COPY text.
        parts, sources = [], []
        for column in values:
            if isinstance(column, Same):
                parts.append(_copy_value(column.value).replace("%", "%%"))
            elif isinstance(column, np.ndarray) and column.dtype.kind in "iu":
                parts.append("%d")
                sources.append(column.tolist())
            else:
                parts.append("%s")
                sources.append(_copy_text(column, count))
        line = "\t".join(parts)
        lines: Iterator[str] = (
            (line % row for row in zip(*sources, strict=True))
            if sources
            else repeat(line % (), count)
        )
        while chunk := list(islice(lines, 20_000)):
            self.copy.write(("\n".join(chunk) + "\n").encode())
        return count

    def rows(self, rows: Iterable[Sequence[Any]]) -> int:
        """Write rows (values in the columns' order, in database form); return how many."""
        if self.copy is None:
            return _fill(self.table, self.names, rows)
        count = 0
        for row in rows:
            self.copy.write_row(row)
            count += 1
        return count


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while bulk work builds millions of short-lived objects.

    They hold no reference cycles (reference counting frees them), but their number triggers
    collection after collection over everything alive: about a sixth of a federation-sized
    recompute's time, and a tenth of a 50 MB games file's screening (measured).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def writing(model: type[Model], columns: Sequence[str]) -> Iterator[RowWriter]:
    """A ``RowWriter`` for ``columns`` of ``model``'s table; the rows are stored on exit."""
    meta = model._meta
    names = [connection.ops.quote_name(_column(_field(meta, c))) for c in columns]
    with writing_into(connection.ops.quote_name(meta.db_table), names) as writer:
        yield writer


@contextmanager
def writing_into(table: str, names: list[str]) -> Iterator[RowWriter]:
    """``writing`` for a table by its quoted name and its columns' (a scratch table's)."""
    if connection.vendor != "postgresql":
        yield RowWriter(table, names, None)
        return
    sql = f"COPY {table} ({', '.join(names)}) FROM STDIN"
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(sql, writer=QueuedLibpqWriter(raw)) as copy:
            yield RowWriter(table, names, copy)


def _values(column: Column, count: int) -> Iterable[Any]:
    if isinstance(column, Same):
        return repeat(column.value, count)
    if isinstance(column, np.ndarray):
        return column.tolist()  # type: ignore[no-any-return]
    return column


def _copy_text(column: Column, count: int) -> Iterable[str]:
    """A column's values in COPY's text format."""
    if isinstance(column, Same):
        return repeat(_copy_value(column.value), count)
    if isinstance(column, np.ndarray):
        return map(str, column.tolist())
    encoded = {value: _copy_value(value) for value in set(column)}
    return map(encoded.__getitem__, column)


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_value(value: Any) -> str:
    """One value in COPY's text format: NULL as ``\\N``, special characters escaped."""
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return value.translate(_COPY_ESCAPES)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"no COPY text form for {type(value).__name__}")


def update_rows(model: type[Model], columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Set ``columns`` of the rows whose primary key is the first value of each row.

    The rows go into a scratch table in one statement, then one joined UPDATE applies them.
    """
    if not rows:
        return
    meta = model._meta
    quote = connection.ops.quote_name
    table = quote(meta.db_table)
    fields = [_pk(meta), *(_field(meta, c) for c in columns)]
    names = [quote(_column(f)) for f in fields]
    # One scratch table per set of columns: a connection keeps its temporary tables, and the
    # lists update different columns.
    digest = hashlib.sha1(",".join(columns).encode()).hexdigest()[:8]
    scratch = quote(f"{meta.db_table}_update_{digest}")
    types = [f.rel_db_type(connection) if f.primary_key else f.db_type(connection) for f in fields]
    declarations = ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))
    drop = " ON COMMIT DROP" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {scratch} ({declarations}){drop}")
        cursor.execute(f"DELETE FROM {scratch}")
    _fill(scratch, names, rows)
    key = names[0]
    assignments = ", ".join(f"{name} = v.{name}" for name in names[1:])
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {assignments} FROM {scratch} v WHERE {table}.{key} = v.{key}"
        )


def int_array(ids: Iterable[int]) -> str:
    """``ids`` as the text of a PostgreSQL integer array (``{1,2,3}``), for a parameter read as
    ``%s::bigint[]``.

    Django's cursors bind parameters on the client, where psycopg writes a list element by
    element in Python: 477 µs for 300 ids, against 87 µs for this text (measured), on every
    history page and every period a correction reaches. ``int`` keeps it an array of integers
    whatever the caller passes (a boolean, numpy's integers).
    """
    return "{" + ",".join(map(str, map(int, ids))) + "}"


def bool_array(flags: Iterable[bool]) -> str:
    """``flags`` as the text of a PostgreSQL boolean array (``{t,f}``), for a parameter read as
    ``%s::boolean[]``, for the reason ``int_array`` gives."""
    return "{" + ",".join("t" if flag else "f" for flag in flags) + "}"


def fill_ids(table: str, ids: Iterable[int]) -> str:
    """Fill a scratch table of one ``id`` column with ``ids``; return its quoted name.

    A constant number of statements whatever the number of ids, which ``IN`` lists on SQLite
    (limited in variables) and long parameter lists on PostgreSQL are not.
    """
    name = connection.ops.quote_name(table)
    drop = " ON COMMIT DROP" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {name} (id bigint PRIMARY KEY){drop}")
        cursor.execute(f"DELETE FROM {name}")
    _fill(name, ["id"], ((pk,) for pk in ids))
    return name


def _pk(meta: Options[Any]) -> Field[Any, Any]:
    """The table's primary key, which every bulk statement keys its rows on."""
    if meta.pk is None:
        raise StorageError(f"The table {meta.db_table} has no primary key to write rows by.")
    return meta.pk


def _field(meta: Options[Any], name: str) -> Field[Any, Any]:
    """The model's field ``name``, which must be a column of its table."""
    field = meta.get_field(name)
    if not isinstance(field, Field):
        raise StorageError(f"{name} is not a column of the table {meta.db_table}.")
    return field


def _column(field: Field[Any, Any]) -> str:
    if field.column is None:
        raise StorageError(f"The field {field.name} has no column in the database.")
    return field.column


def _fill(table: str, names: list[str], rows: Iterable[Sequence[Any]]) -> int:
    count = 0

    def counted(rows: Iterable[Sequence[Any]]) -> Iterator[Sequence[Any]]:
        nonlocal count
        for row in rows:
            count += 1
            yield row

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN") as copy:
                for row in counted(rows):
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(names))
            cursor.executemany(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({placeholders})",
                [[_plain(value) for value in row] for row in counted(rows)],
            )
    return count


def _plain(value: Any) -> Any:
    """Send dates as ISO text, as SQLite stores them."""
    return value.isoformat() if isinstance(value, date) else value
