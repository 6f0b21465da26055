"""The data version: a number that moves whenever what any read returns may have changed.

Reads (pages and API) keep their answers under it (``ladder.caching.read_cache``). It is bumped
after
each commit that changed a record of the ladder or ratings apps (a ``post_save`` or
``post_delete`` of any of their models, connected in ``LadderConfig.ready``), after each commit
that requested a rating run (the bulk writes: games entered or imported, players imported) and
when a rating run finishes (its row is saved). Bumping after the commit, never inside it, is
what keeps a cached answer from outliving the data it was read from: a read takes the version
first and the data second, so an answer read before a commit is filed under a version that the
commit's bump then retires. If a process dies between its commit and the bump, the answers of
the old version expire after ``LADDER_READ_CACHE_SECONDS`` (``ladder.caching.read_cache``).

On Redis (``ladder.caching.backends.RedisCache``) each bump also leaves a copy of the version in the
cache (``MIRROR_KEY``, never lowered by a bump landing late), which kept reads read with their
answer in one round trip instead of asking the database. The copy lives
``LADDER_READ_CACHE_SECONDS`` at most: when it is gone (expired, evicted, a Redis restarted),
the next read asks the database and copies it again, so a copy that Redis lost or restored
from an old snapshot is wrong for no longer than a kept answer may live.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, models, transaction
from django.db.models import F, Q
from django.utils import timezone


class DataVersion(models.Model):
    """One row: a number that every committed write and every finished rating run bumps.

    What any read returns depends on the records and the ratings only, so a read's answer can
    be kept under this number and served again until it moves (``ladder.caching.read_cache``); see
    ``ladder.records.versions``.
    """

    value = models.BigIntegerField(default=0)
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="one_data_version")]

    def __str__(self) -> str:
        return f"data version {self.value} ({self.changed_at:%Y-%m-%d %H:%M:%S})"


# Apps whose records reads show; their historical (audit) models are not read by the doors.
_APPS = {"ladder", "ratings"}


@dataclass(frozen=True, slots=True)
class Version:
    value: int
    changed_at: datetime


MIRROR_KEY = "ladder:data-version"


def current() -> Version:
    """The data version now (one query; a copy kept in the cache when it keeps one, see
    ``mirror``); 0 when its row is gone (nothing may be kept then).

    Plain SQL: every kept read asks for it, and the ORM's building of this query cost more
    than the query itself (measured).
    """
    with connection.cursor() as cursor:
        cursor.execute(_CURRENT)
        row = cursor.fetchone()
    version = from_row(row)
    mirror(version)
    return version


def from_row(row: tuple[Any, Any] | None) -> Version:
    """The version from its row as the database gives it (None: the row is gone, 0)."""
    if row is None:  # a database emptied by hand: the next bump makes the row again
        return Version(0, timezone.now())
    value, changed_at = row
    if isinstance(changed_at, str):  # SQLite gives the text it stores
        changed_at = DataVersion._meta.get_field("changed_at").to_python(changed_at)
    if timezone.is_naive(changed_at):
        changed_at = timezone.make_aware(changed_at, dt.UTC)
    return Version(value, changed_at)


def mirror(version: Version) -> None:
    """Copy ``version`` into the cache, if it keeps one (Redis: ``RedisCache.mirror``)."""
    keep = getattr(cache, "mirror", None)
    if keep is not None and version.value and settings.LADDER_READ_CACHE_SECONDS > 0:
        changed = int(version.changed_at.timestamp())
        keep(MIRROR_KEY, version.value, changed, settings.LADDER_READ_CACHE_SECONDS)


def from_mirror(raw: bytes) -> Version:
    """The version as ``mirror`` copied it (``b"version:changed_at"``)."""
    value, changed = raw.split(b":")
    return Version(int(value), datetime.fromtimestamp(int(changed), dt.UTC))


_CURRENT = f"SELECT value, changed_at FROM {DataVersion._meta.db_table} WHERE id = 1"


def bump() -> None:
    """Move the version on (after a commit; in autocommit it is its own transaction)."""
    now = timezone.now()
    if not DataVersion.objects.filter(pk=1).update(value=F("value") + 1, changed_at=now):
        DataVersion.objects.get_or_create(pk=1, defaults={"value": fresh(), "changed_at": now})
    if getattr(cache, "mirror", None) is not None:
        current()  # read back (another bump may have landed meanwhile) and copied


def fresh() -> int:
    """A first value beyond any a lost row can have held: the clock in microseconds (answers
    kept under an earlier number must never be served again)."""
    return time.time_ns() // 1000


def bump_on_commit() -> None:
    """Bump once the current transaction commits (at once outside a transaction).

    Once a transaction: every change after the first finds the bump waiting already (a
    correction's rating run deleted 1,900 rows one signal each, and the 1,900 bumps after its
    commit, each a transaction of its own, took 23 s of its 31 on the history benchmark). A
    bump waiting in a savepoint that rolls back goes with it, as did the changes that asked
    for it; one asked after that rollback is waited for again.
    """
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        bump()
        return
    # One hook a transaction, known by a marker tied to the list of the connection's commit
    # hooks: a commit or a savepoint's rollback makes a new list, so a marker outlives neither;
    # the hook retires its marker when it runs (tests run hooks without committing).
    # (Looking for ``bump`` among the waiting hooks instead missed every bump after the first
    # where hooks are run without a commit, as in tests: a 304 after a change.)
    marker = getattr(connection, "ladder_bump_hooks", None)
    if marker is not None and marker is connection.run_on_commit:
        return
    connection.ladder_bump_hooks = connection.run_on_commit
    transaction.on_commit(lambda: _bump_and_retire(connection), robust=True)


def _bump_and_retire(connection: Any) -> None:
    connection.ladder_bump_hooks = None
    bump()


def record_changed(sender: type, **kwargs: Any) -> None:
    """``post_save``/``post_delete`` receiver: a record of a read app changed."""
    meta = getattr(sender, "_meta", None)
    if meta is None or meta.app_label not in _APPS or sender is DataVersion:
        return
    if meta.model_name.startswith("historical"):
        return
    bump_on_commit()
