"""manage.py import_club FILE [--replace]: restore an export_club file, then rate it."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from ladder.exceptions import NotAnExport
from ladder.files.backup import read_club
from ladder.records.translations import Help
from ladder.writes import actions
from ratings import runs
from ratings.models import RatingRun


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Restore a club written by export_club (format ladder-club, versions 1 to 5) into an "
            "empty database, all or nothing: the whole file is checked first and every problem is "
            "named by where it is. Published lists are restored as published; the ratings are "
            "recomputed. Users get no usable password: set one with changepassword."
        )
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument(
            "--replace",
            action="store_true",
            help=gettext(
                "Replace everything the club holds (in the same transaction as the restore)."
            ),
        )

    def handle(self, *args, file: str, replace: bool = False, **options):
        try:
            with open(file, encoding="utf-8") as source:
                document = json.load(source)
        except OSError as error:
            raise CommandError(
                gettext("Cannot read %(file)s: %(reason)s.")
                % {"file": file, "reason": error.strerror}
            ) from error
        except UnicodeDecodeError as error:
            raise CommandError(gettext("%(file)s is not UTF-8 text.") % {"file": file}) from error
        except (ValueError, RecursionError) as error:
            raise CommandError(
                gettext("%(file)s is not JSON: %(error)s.") % {"file": file, "error": error}
            ) from error
        started = timezone.now()
        try:
            counts = actions.restore_club(plan=read_club(document), replace=replace)
        except (NotAnExport, ValidationError) as error:
            messages = getattr(error, "messages", [str(error)])
            raise CommandError(
                gettext("Nothing was restored.") + "\n" + "\n".join(messages)
            ) from error
        said = gettext(
            "Restored %(users)s users, %(players)s players, %(periods)s periods, %(games)s "
            "games, %(publications)s publications"
        )
        extra = {  # what a club with these records holds besides (backup version 5)
            "base_corrections": gettext("%(n)s base corrections"),
            "merges": gettext("%(n)s merges"),
            "not_duplicates": gettext("%(n)s not-duplicate answers"),
            "fide_list_rows": gettext("%(n)s FIDE list rows"),
        }
        said += "".join(", " + text % {"n": counts[key]} for key, text in extra.items()
                        if key in counts)  # fmt: skip
        self.stdout.write(said % counts + ".")
        runs.settle()  # immediate mode: rate it now; background mode: the workers will
        # The runs the restore asked for (one a list); the restored ones are older.
        for run in RatingRun.objects.filter(requested_at__gte=started).order_by("pk"):
            self.stdout.write(runs.describe(run))
