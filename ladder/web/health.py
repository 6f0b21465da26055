"""``/healthz`` for load balancers: the database answers, every migration is applied, and how
long the oldest pending rating run has waited. 200 when healthy, 503 when not; JSON either way.
No authentication, no throttle, no session; two small queries (the migration check reads the
migration table once per process until it has seen every migration applied)."""

from __future__ import annotations

from django.db import DatabaseError, connection
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
    report: dict[str, object] = {"database": "ok", "migrations": "ok", "oldest_pending_run": None}
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
    healthy = report["database"] == "ok" and report["migrations"] == "ok"
    report["status"] = "ok" if healthy else "failing"
    return JsonResponse(report, status=200 if healthy else 503)


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
