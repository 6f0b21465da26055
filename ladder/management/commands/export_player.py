"""manage.py export_player ID [--format json|csv] [--output FILE]: everything Ladder stores
about one player (ID: their id or FIDE id), as JSON or as a zip of CSV files."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.files import player_export
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Export everything stored about one player: identity and entry data per list, games, "
            "rating changes, published lines, history and the admin's log. ID is the player's id "
            "or FIDE id (pk:N or fide:N to say which)."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("id", help=gettext("The player's id or FIDE id."))
        parser.add_argument(
            "--format",
            choices=("json", "csv"),
            default="json",
            help=gettext("json (default), or csv: a zip with one CSV file a section."),
        )
        parser.add_argument(
            "--output",
            default="",
            help=gettext("Write to this file (default: stdout; a zip needs one)."),
        )

    def handle(self, *args: str, **options: Any) -> None:
        zipped = options["format"] == "csv"
        if zipped and not options["output"]:
            raise CommandError(
                gettext("A CSV export is a zip file; give --output FILE to write it to.")
            )
        try:
            player = player_export.find_player(options["id"])
        except LookupError as error:
            raise CommandError(str(error)) from error
        data = player_export.player_data(player)
        if not options["output"]:
            self.stdout.write(player_export.as_json(data))
            return
        try:
            if zipped:
                with open(options["output"], "wb") as file:
                    file.write(player_export.as_zip(data))
            else:
                with open(options["output"], "w", encoding="utf-8") as file:
                    file.write(player_export.as_json(data) + "\n")
        except OSError as error:
            raise CommandError(
                gettext("Cannot write %(output)s: %(reason)s.")
                % {"output": options["output"], "reason": error.strerror}
            ) from error
        self.stdout.write(
            gettext("Wrote the data of player #%(pk)s to %(output)s.")
            % {"pk": player.pk, "output": options["output"]}
        )
