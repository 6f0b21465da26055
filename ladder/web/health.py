"""``/healthz`` for load balancers and monitors.

It checks that the database answers, every migration is applied, the shared cache answers
(with the database cache: its table exists) and how long the oldest pending rating run has
waited. JSON either way, with ``status``:

- ``ok`` (200): all is well;
- ``degraded`` (200; 503 with ``?strict=1``): the site serves, but something needs a look: a
  rating run has waited longer than ``LADDER_HEALTH_RUN_SECONDS`` (default 600) or the cache
  fails. A load balancer keeps the process (it can serve); a monitor asks ``?strict=1``;
- ``failing`` (503): the database is unreachable or migrations are missing.

No authentication, no throttle, no session; two small queries (the migration check reads the
migration table once per process until it has seen every migration applied), and one cache
read.
"""

from __future__ import annotations

from contextlib import nullcontext

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Min
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ratings.models import RatingRun, RunStatus

_migrated = False  # once every migration is applied, they stay applied for this process


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report: dict[str, object] = {
        "database": "ok", "migrations": "ok", "cache": "ok", "oldest_pending_run": None,
    }  # fmt: skip
    try:
        pending = _unapplied()
        if pending:
            report["migrations"] = f"{pending} not applied"
        waiting = RatingRun.objects.filter(
            status__in=(RunStatus.QUEUED, RunStatus.RUNNING)
        ).aggregate(oldest=Min("requested_at"))["oldest"]
        if waiting is not None:
            report["oldest_pending_run"] = round((timezone.now() - waiting).total_seconds(), 1)
    except DatabaseError as error:
        report["database"] = f"unreachable: {type(error).__name__}"
    report["cache"] = _cache()
    report["status"] = _status(report)
    failing = report["status"] == "failing"
    strict = report["status"] == "degraded" and request.GET.get("strict") == "1"
    return JsonResponse(report, status=503 if failing or strict else 200)


def _status(report: dict[str, object]) -> str:
    if report["database"] != "ok" or report["migrations"] != "ok":
        return "failing"
    waited = report["oldest_pending_run"]
    late = isinstance(waited, float) and waited > settings.LADDER_HEALTH_RUN_SECONDS
    return "degraded" if late or report["cache"] != "ok" else "ok"


def _cache() -> str:
    """Read one key: with the database cache a missing table fails here, with Redis a server
    that does not answer; every anonymous read goes through this cache."""
    try:
        # A failed query of the database cache must not spoil an enclosing transaction.
        cache = caches["default"]
        with transaction.atomic() if isinstance(cache, DatabaseCache) else nullcontext():
            cache.get("ladder:healthz")
    except Exception as error:  # noqa: BLE001 -- any backend's failure is the answer
        return f"unreachable: {type(error).__name__}"
    return "ok"


def _unapplied() -> int:
    global _migrated
    if _migrated:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return 0
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    _migrated = not plan
    return len(plan)
