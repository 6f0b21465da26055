"""The task that executes rating runs, through Django's task interface (django-tasks).

``LADDER_RECOMPUTE=immediate`` runs it in the process that enqueues it; ``background`` puts it
on a database queue that ``manage.py rating_worker`` processes drain.
"""

from __future__ import annotations

from django_tasks import task

from ratings.runs.executor import execute_pending


@task()
def execute_runs() -> list[int]:
    """Execute every queued rating run; return the ids of the runs executed."""
    return [run.pk for run in execute_pending()]
