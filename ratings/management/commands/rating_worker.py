"""manage.py rating_worker: a background worker that executes rating runs (django-tasks-db).

It checks the database first (and exits non-zero when it cannot reach it), sweeps once for runs
that wait without a live executor (queued runs, or runs abandoned by a worker that was killed)
and enqueues their task, then drains the task queue with django-tasks-db's ``db_worker``. While
it waits it sweeps again every ``--sweep`` seconds, so a run abandoned by another worker is
retried without anyone acting.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, close_old_connections, connection
from django.utils.translation import gettext, gettext_noop

from ladder.records.translations import Help
from ratings import runs


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Execute rating runs from the database queue (LADDER_RECOMPUTE=background). Run as "
            "many as you like, on any machine that reaches the database: one run executes at a "
            "time per database."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--sweep",
            type=float,
            default=30.0,
            help=gettext("Seconds between sweeps (default 30)."),
        )
        parser.add_argument(
            "--batch", action="store_true", help=gettext("Execute what is queued, then exit.")
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=1.0,
            help=gettext("Seconds between looks when idle."),
        )

    def handle(
        self, *args: Any, sweep: float, batch: bool, interval: float, **options: Any
    ) -> None:
        if settings.LADDER_RECOMPUTE != "background":
            raise CommandError(
                "Rating runs execute in the web process (LADDER_RECOMPUTE is "
                f"'{settings.LADDER_RECOMPUTE}'); set LADDER_RECOMPUTE=background for workers."
            )
        try:
            connection.ensure_connection()
            runs.sweep()
        except DatabaseError as error:
            raise CommandError(
                (gettext("Cannot reach the database: %(error)s") % {"error": error}).strip()
            ) from error
        if not batch and sweep > 0:
            threading.Thread(target=_sweep_every, args=(sweep,), daemon=True).start()
        call_command(
            "db_worker",
            batch=batch,
            interval=interval,
            reload=False,
            startup_delay=False,
            verbosity=options["verbosity"],
        )


def _sweep_every(seconds: float) -> None:
    stop = threading.Event()
    while not stop.wait(seconds):
        try:
            runs.sweep()
        except DatabaseError:  # the database went away; the main loop reports it
            pass
        finally:
            close_old_connections()
