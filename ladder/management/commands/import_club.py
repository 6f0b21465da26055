"""manage.py import_club FILE: restore an export_club file into an empty club, then rate it."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from ladder.files.backup import NotAnExport
from ladder.management.commands._csv import report_run
from ladder.writes import actions


class Command(BaseCommand):
    help = (
        "Restore a club written by export_club into an empty database, all or nothing, then "
        "recompute every list. Users get no usable password: set one with changepassword."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")

    def handle(self, *args, file: str, **options):
        try:
            with open(file, encoding="utf-8") as source:
                document = json.load(source)
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from error
        except (ValueError, RecursionError) as error:
            raise CommandError(f"{file} is not JSON: {error}.") from error
        try:
            counts = actions.restore_club(document)
        except (NotAnExport, ValidationError) as error:
            messages = getattr(error, "messages", [str(error)])
            raise CommandError("Nothing was restored. " + " ".join(messages)) from error
        self.stdout.write(
            "Restored " + ", ".join(f"{n} {what}" for what, n in counts.items()) + "."
        )
        report_run(self.stdout)
