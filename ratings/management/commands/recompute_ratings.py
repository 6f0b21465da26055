"""manage.py recompute_ratings [--from LABEL] [--dry-run]: a full recompute as a rating run."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ladder import actions
from ratings import runs
from ratings.models import RatingRun
from ratings.services import recompute_from

from ._periods import period_by_label


class Command(BaseCommand):
    help = (
        "Recompute every rating period from LABEL (default: the first) to the latest, as a "
        "rating run (executed at once, or by a worker when LADDER_RECOMPUTE=background)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from", dest="label", help="First period to recompute (e.g. 2026-03)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Compute and report, then roll everything back."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        period = period_by_label(options["label"]) if options["label"] else None
        if options["dry_run"]:
            summary = recompute_from(period, dry_run=True)
            self.stdout.write(self.style.SUCCESS(str(summary)))
            return
        run = actions.recompute(period=period)
        runs.settle()  # in immediate mode the commit ran it already, unless inside a transaction
        run = RatingRun.objects.get(pk=run.pk)
        self.stdout.write(self.style.SUCCESS(runs.describe(run)))
