"""manage.py import_games FILE: import games from a CSV file, all or nothing, then recompute."""

from django.core.management.base import BaseCommand
from django.db import transaction

from ladder.importers import GAME_COLUMNS, import_games
from ratings.services import recompute_from

from ._csv import import_file


class Command(BaseCommand):
    help = (
        "Import games from a UTF-8 CSV file with a header row. Columns (any order): "
        + ", ".join(GAME_COLUMNS)
        + ". white/black are a FIDE id or the exact name; results 1-0, 0-1, 1/2-1/2 (also ½-½ "
        "and 0.5-0.5), +/-, -/+, 0-0. On any bad row nothing is imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path to the CSV file.")

    def handle(self, *args, **options):
        def import_and_recompute(file):
            with transaction.atomic():
                count, earliest = import_games(file)
                return count, recompute_from(earliest) if earliest else None

        count, summary = import_file(options["file"], import_and_recompute)
        self.stdout.write(self.style.SUCCESS(f"Imported {count} games."))
        if summary:
            self.stdout.write(str(summary))
