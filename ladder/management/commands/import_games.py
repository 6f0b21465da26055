"""manage.py import_games FILE: import games from a CSV file, all or nothing, then recompute."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ladder.importers import GAME_COLUMNS, ImportFailed, import_games
from ratings.services import recompute_from


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
        try:
            with (
                open(options["file"], encoding="utf-8-sig", newline="") as file,
                transaction.atomic(),
            ):
                count, earliest = import_games(file)
                summary = recompute_from(earliest) if earliest else None
        except OSError as exc:
            raise CommandError(f"Cannot read {options['file']}: {exc.strerror}.") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{options['file']} is not UTF-8 text.") from exc
        except ImportFailed as exc:
            raise CommandError(f"Nothing was imported.\n{exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"Imported {count} games."))
        if summary:
            self.stdout.write(str(summary))
