"""manage.py import_players FILE: import players from a CSV file, all or nothing."""

from django.core.management.base import BaseCommand, CommandError

from ladder.importers import PLAYER_COLUMNS, ImportFailed, import_players


class Command(BaseCommand):
    help = (
        "Import players from a UTF-8 CSV file with a header row. Columns (any order): "
        + ", ".join(PLAYER_COLUMNS)
        + ". Only 'name' is required. On any bad row nothing is imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path to the CSV file.")

    def handle(self, *args, **options):
        try:
            with open(options["file"], encoding="utf-8-sig", newline="") as file:
                created = import_players(file)
        except OSError as exc:
            raise CommandError(f"Cannot read {options['file']}: {exc.strerror}.") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{options['file']} is not UTF-8 text.") from exc
        except ImportFailed as exc:
            raise CommandError(f"Nothing was imported.\n{exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"Imported {created} players."))
