"""What import_trf and import_pgn share: read the file, preview, import or refuse."""

import os
from collections.abc import Callable
from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext

from ladder.exceptions import TrfRefused
from ladder.files import tournaments
from ladder.files.tournament_file import Tournament, decode
from ladder.files.tournaments import prepare
from ladder.management.commands._csv import report_run

MAX_SHOWN = 30  # problems printed; the rest are counted


def read_file(path: str) -> tuple[str, str]:
    """Return the text of the file at ``path`` and a note on its encoding."""
    try:
        with open(path, "rb") as file:
            return decode(file.read())
    except OSError as exc:
        raise CommandError(
            gettext("Cannot read %(path)s: %(reason)s.") % {"path": path, "reason": exc.strerror}
        ) from exc


def refused(error: TrfRefused) -> CommandError:
    shown = [str(p) for p in error.problems[:MAX_SHOWN]]
    more = len(error.problems) - MAX_SHOWN
    if more > 0:
        shown.append(f"... and {more} more problems.")
    return CommandError(gettext("Nothing was imported.") + "\n" + "\n".join(shown))


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(
            gettext("--date: '%(text)s' is not a date in the form YYYY-MM-DD.") % {"text": text}
        ) from exc


class ImportCommand(BaseCommand):
    """Import a tournament file read by ``reader`` (``trf.parse`` or ``pgn.parse``)."""

    reader: Callable[..., Tournament]

    def add_arguments(self, parser):
        parser.add_argument("file", help=gettext("Path to the file."))
        parser.add_argument(
            "--event", default="", help=gettext("Event name (default: the file's).")
        )
        parser.add_argument(
            "--date",
            default="",
            help=gettext("Date of rounds the 132 line does not date (YYYY-MM-DD)."),
        )
        parser.add_argument("--list", default="", help=gettext("standard, rapid or blitz."))
        parser.add_argument(
            "--time-control", default="", help=gettext("e.g. 90+30 (default: the file's).")
        )
        parser.add_argument(
            "--rated-in",
            default="",
            help=gettext(
                "A late report: the label of the period that rates it (default: the period "
                "holding the tournament's last day; at most the third list after it, FIDE 9.1)."
            ),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help=gettext("Check and preview; write nothing.")
        )

    def handle(self, *args, **options):
        text, note = read_file(options["file"])
        day = iso_date(options["date"]) if options["date"] else None
        try:
            plan = prepare(
                type(self).reader(text, encoding_note=note),
                event=options["event"],
                day=day,
                rating_list=options["list"],
                time_control=options["time_control"],
                rated_in=options["rated_in"].strip(),
                file_name=os.path.basename(options["file"]),
            )
            for line in plan.describe():
                self.stdout.write(line)
            tournaments.import_tournament(plan, dry_run=options["dry_run"])
        except TrfRefused as error:
            raise refused(error) from error
        if plan.dry_run:
            self.stdout.write(
                gettext("Dry run: %(entries)s games checked; nothing was written.")
                % {"entries": len(plan.entries)}
            )
            return
        self.stdout.write(
            self.style.SUCCESS(
                gettext("Imported %(games)s games of '%(event)s' and %(players)s new players.")
                % {
                    "games": len(plan.games),
                    "event": plan.event,
                    "players": len(plan.new_players),
                }  # fmt: skip
            )
        )
        report_run(self.stdout)
