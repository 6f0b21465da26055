"""manage.py import_games FILE: import games from a CSV file, all or nothing, then rate them."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext, gettext_noop

from ladder.files import csv_import
from ladder.files.csv_import import GAME_COLUMNS
from ladder.management.commands._csv import import_file, report_run
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Import games from a UTF-8 CSV file with a header row. Columns (any order): "
            "{columns}. white/black are a FIDE id or the name; results 1-0, 0-1, 1/2-1/2 (also "
            "½-½ and 0.5-0.5), +/-, -/+, 0-0. On any bad row nothing is imported."
        ),
        columns=", ".join(GAME_COLUMNS),
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help=gettext("Path to the CSV file."))

    def handle(self, *args, **options):
        games = import_file(options["file"], csv_import.import_games)
        self.stdout.write(
            self.style.SUCCESS(gettext("Imported %(games)s games.") % {"games": len(games)})
        )
        report_run(self.stdout)
