"""First history versions for records written in bulk.

django-simple-history writes a version on every ``save()``; rows written in bulk
(``bulk_create``, PostgreSQL's COPY) get none by themselves, and a record without a first
version shows an empty "Changes" column at its first correction. Every door that creates in
bulk (CSV imports, club restore, the demo club) calls ``record_created`` in its transaction:
one statement copies the stored rows into the history table, whatever their number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection, models
from django.utils import timezone

from ratings.recompute.bulk import int_array

_HISTORY_FIELDS = {"history_id", "history_date", "history_change_reason", "history_type",
                   "history_user"}  # fmt: skip


def record_created(
    model: type[models.Model], pks: Sequence[int], *, user: Any = None, reason: str | None = None
) -> None:
    """Write the first ("+", created) history version of each ``model`` row in ``pks``, as
    stored, dated now and attributed to ``user`` (None: no one) with ``reason``, in one query.
    """
    if not pks:
        return
    pk = connection.ops.quote_name(str(model._meta.pk.column))
    ids: list[int] | str
    if connection.vendor == "postgresql":
        chosen, ids = f"{pk} = ANY(%s::bigint[])", int_array(pks)
    else:  # one parameter, however many rows: SQLite limits a statement's parameters
        chosen, ids = f"{pk} IN (SELECT value FROM json_each(%s))", json.dumps(list(pks))
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    user_id = user.pk if user is not None and user.is_authenticated else None
    _copy(model, dated="%s", where=chosen, params=[now, reason, user_id, ids])


def record_missing(model: type[models.Model], *, reason: str) -> int:
    """Give every ``model`` row that has no history version at all (written in bulk by an
    older Ladder) a first version, dated when the row was created; return how many.

    Rows that have later versions but no first one are left alone: their first values are
    not known any more.
    """
    quote = connection.ops.quote_name
    history = quote(model.history.model._meta.db_table)  # type: ignore[attr-defined]
    stored = f"{quote(model._meta.db_table)}.{quote(str(model._meta.pk.column))}"
    missing = f"NOT EXISTS (SELECT 1 FROM {history} h WHERE h.id = {stored})"
    return _copy(model, dated=quote("created"), where=missing, params=[reason, None])


def _copy(model: type[models.Model], *, dated: str, where: str, params: list[Any]) -> int:
    """Copy the stored rows ``where`` says into ``model``'s history as created ("+")."""
    history = model.history.model  # type: ignore[attr-defined]
    quote = connection.ops.quote_name
    columns = ", ".join(
        quote(str(field.column))
        for field in history._meta.concrete_fields
        if field.name not in _HISTORY_FIELDS
    )
    statement = (
        f"INSERT INTO {quote(history._meta.db_table)} ({columns}, history_date, "
        "history_change_reason, history_type, history_user_id) "
        f"SELECT {columns}, {dated}, %s, '+', %s FROM {quote(model._meta.db_table)} "
        f"WHERE {where}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount
