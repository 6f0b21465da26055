"""manage.py close_period LABEL: close a period; its list is published and its games frozen."""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._periods import period_by_label
from ladder.records.translations import Help
from ladder.writes.actions import close_period


class Command(BaseCommand):
    help = Help(
        gettext_noop("Close a rating period (periods close in order); its games are then frozen.")
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("label", help=gettext("The period, e.g. 2026-03."))

    def handle(self, *args: str, **options: Any) -> None:
        period = period_by_label(options["label"])
        try:
            close_period(period=period)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(
            self.style.SUCCESS(gettext("Closed %(label)s.") % {"label": period.label})
        )
