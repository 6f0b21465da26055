"""manage.py import_players FILE: import players from a CSV file, all or nothing."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext, gettext_noop

from ladder.files import csv_import
from ladder.files.csv_import import PLAYER_COLUMNS
from ladder.management.commands._csv import import_file
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Import players from a UTF-8 CSV file with a header row. Columns (any order): "
            "{columns}. Only 'name' is required. On any bad row nothing is imported."
        ),
        columns=", ".join(PLAYER_COLUMNS),
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help=gettext("Path to the CSV file."))

    def handle(self, *args, **options):
        created = import_file(options["file"], csv_import.import_players)
        self.stdout.write(
            self.style.SUCCESS(gettext("Imported %(created)s players.") % {"created": len(created)})
        )
