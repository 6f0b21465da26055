"""manage.py export_club [FILE]: the whole club as versioned JSON (no passwords, no tokens)."""

import json

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, gettext_noop

from ladder.files.backup import export_club
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Write the club as JSON, format ladder-club version 2, to FILE or to standard output: "
            "players, periods with their log, games, every published list and revision, the "
            "finished rating runs, and users with their groups and permissions (never password "
            "hashes or tokens)."
        )
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", nargs="?", help=gettext("Where to write (default: standard output).")
        )

    def handle(self, *args, file=None, **options):
        document = export_club()
        if file is None:
            self.stdout.write(json.dumps(document, indent=1, ensure_ascii=False))
            return
        try:
            with open(file, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=1, ensure_ascii=False)
        except OSError as error:
            raise CommandError(
                gettext("Cannot write %(file)s: %(reason)s.")
                % {"file": file, "reason": error.strerror}
            ) from error
        sections = ("players", "periods", "games", "publications", "users")
        counts = ", ".join(f"{len(document[k])} {k}" for k in sections)
        self.stderr.write(
            gettext("Exported %(counts)s to %(file)s.") % {"counts": counts, "file": file}
        )
