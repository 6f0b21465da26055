"""manage.py reopen_period LABEL --reason TEXT: reopen a closed period for corrections."""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.actions import reopen_period

from ._periods import period_by_label


class Command(BaseCommand):
    help = "Reopen a closed rating period so its games can be corrected; the reason is recorded."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("label", help="The period, e.g. 2026-03.")
        parser.add_argument("--reason", required=True, help="Why the period is reopened.")

    def handle(self, *args: str, **options: Any) -> None:
        period = period_by_label(options["label"])
        try:
            reopen_period(period=period, reason=options["reason"])
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(self.style.SUCCESS(f"Reopened {period.label}."))
