"""manage.py import_fide_list FILE: FIDE's monthly rating list in, whole or not at all."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, gettext_noop

from ladder.exceptions import ImportFailed
from ladder.files import fide_list
from ladder.records.translations import Help
from ladder.writes import actions


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Import FIDE's rating list as FIDE publishes it (players_list.zip, the per-list "
            "standard/rapid/blitz_rating_list.zip, players_list_xml.zip; zipped or not): keep "
            "it as the month's snapshot, correct the identity of the club's players on it, and "
            "with --federation or --ids add players with their entry data from the list. On any "
            "bad line nothing is imported."
        )
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help=gettext("The list: .zip, .txt or .xml."))
        parser.add_argument(
            "--month",
            help=gettext(
                "The list's month, YYYY-MM (default: the one its name or header "
                "gives, else this month)."
            ),
        )
        parser.add_argument(
            "--federation",
            default="",
            help=gettext(
                "Add the federation's players (a FIDE code, e.g. NOR) not in the club yet."
            ),
        )
        parser.add_argument(
            "--ids", help=gettext("A file of FIDE ids, one a line: add those players.")
        )
        parser.add_argument(
            "--list",
            default="",
            choices=["", "standard", "rapid", "blitz"],
            help=gettext("The list of a one-list file whose name does not say it."),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help=gettext("Report; store nothing.")
        )

    def handle(self, *args, **options):
        path = options["file"]
        ids = read_ids(options["ids"]) if options["ids"] else []
        federation = options["federation"].strip().upper()
        if federation and not (len(federation) == 3 and federation.isalpha()):
            raise CommandError(
                "--federation: "
                + gettext("'%(federation)s' is not a FIDE code (three letters).")
                % {"federation": federation}
            )
        try:
            with (
                open(path, "rb") as file,
                fide_list.open_list(file, path, options["list"]) as listed,
            ):
                month = fide_list.choose_month(options["month"], listed)
                report = actions.import_fide_list(
                    rows=listed.rows,
                    month=month,
                    columns=listed.columns,
                    federation=federation,
                    ids=ids,
                    dry_run=options["dry_run"],
                )
        except OSError as error:
            raise CommandError(
                gettext("Cannot read %(path)s: %(reason)s.")
                % {"path": path, "reason": error.strerror}
            ) from error
        except ValueError as error:
            raise CommandError(str(error)) from error
        except ImportFailed as error:
            raise CommandError(f"{gettext('Nothing was imported.')}\n{error}") from error
        except ValidationError as error:
            said = " ".join(error.messages)
            raise CommandError(f"{gettext('Nothing was imported.')}\n{said}") from error
        for line in report.lines():
            self.stdout.write(line)
        if report.dry_run:
            self.stdout.write(gettext("Dry run: nothing was stored."))


def read_ids(path: str) -> list[int]:
    """The FIDE ids of a file, one a line (blank lines and # comments skipped)."""
    ids = []
    try:
        with open(path, encoding="utf-8-sig") as file:
            for number, line in enumerate(file, 1):
                text = line.split("#", 1)[0].strip()
                if not text:
                    continue
                if not (text.isdigit() and text.isascii()) or int(text) == 0:
                    raise CommandError(
                        gettext("%(path)s, line %(line)s: '%(text)s' is not a FIDE id.")
                        % {"path": path, "line": number, "text": text}
                    )
                ids.append(int(text))
    except OSError as error:
        raise CommandError(
            gettext("Cannot read %(path)s: %(reason)s.") % {"path": path, "reason": error.strerror}
        ) from error
    return ids
