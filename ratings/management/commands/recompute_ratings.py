"""manage.py recompute_ratings [--from LABEL] [--dry-run]."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings.services import recompute_from

from ._periods import period_by_label


class Command(BaseCommand):
    help = "Recompute every rating period from LABEL (default: the first) to the latest."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from", dest="label", help="First period to recompute (e.g. 2026-03)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Compute and report, then roll everything back."
        )

    def handle(self, *args: str, **options: Any) -> None:
        period = period_by_label(options["label"]) if options["label"] else None
        summary = recompute_from(period, dry_run=options["dry_run"])
        self.stdout.write(self.style.SUCCESS(str(summary)))
