"""manage.py export_trf --event NAME [--list LIST] [--output FILE]: write an event as a TRF-16."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, gettext_noop

from ladder.files import exports
from ladder.records import RatingList
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Write an event's games as a FIDE Tournament Report File (TRF-16): header from what "
            "the ladder knows, player lines with the ratings of the list that opened the event's "
            "period, points and ranks computed, round blocks from the games."
        )
    )

    def add_arguments(self, parser):
        parser.add_argument("--event", required=True, help=gettext("The event's name, exactly."))
        parser.add_argument(
            "--list",
            default="",
            choices=RatingList.values,
            help=gettext("The list, when the event has games on several."),
        )
        parser.add_argument(
            "--output", default="", help=gettext("Write to this file (default: stdout).")
        )

    def handle(self, *args, **options):
        try:
            text = exports.event_trf(options["event"], chosen_list=options["list"])
        except LookupError as error:
            raise CommandError(str(error)) from error
        if not options["output"]:
            self.stdout.write(text, ending="")
            return
        try:
            with open(options["output"], "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:
            raise CommandError(
                gettext("Cannot write %(output)s: %(reason)s.")
                % {"output": options["output"], "reason": error.strerror}
            ) from error
        self.stdout.write(
            gettext("Wrote '%(event)s' to %(output)s.")
            % {"event": options["event"], "output": options["output"]}
        )
