"""manage.py recompute_ratings [--from LABEL] [--dry-run]: a full recompute as a rating run."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._periods import period_by_label
from ladder.records import RatingList, kept_lists
from ladder.records.translations import Help
from ladder.writes import actions
from ratings import runs
from ratings.models import RatingRun
from ratings.recompute.services import recompute_lists


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Recompute every rating period from LABEL (default: the first) to the latest, as a "
            "rating run (executed at once, or by a worker when LADDER_RECOMPUTE=background)."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from", dest="label", help=gettext("First period to recompute (e.g. 2026-03).")
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help=gettext("Compute and report, then roll everything back."),
        )
        parser.add_argument(
            "--list", dest="rating_list", choices=RatingList.values,
            help=gettext("One list (default: every list the club keeps)."),
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rating_list"] and options["rating_list"] not in kept_lists():
            raise CommandError(
                gettext("The club keeps no %(name)s list (it keeps: %(kept)s).")
                % {"name": options["rating_list"], "kept": ", ".join(kept_lists())}
            )
        period = period_by_label(options["label"]) if options["label"] else None
        lists = [options["rating_list"]] if options["rating_list"] else kept_lists()
        if options["dry_run"]:
            summaries = recompute_lists(period, rating_lists=lists, dry_run=True)
            for rating_list, summary in summaries.items():
                self.stdout.write(self.style.SUCCESS(f"{rating_list}: {summary}"))
                for name, followed in summary.followed.items():  # seeded by it (R&B 7.2.1)
                    self.stdout.write(self.style.SUCCESS(f"{name}: {followed}"))
            return
        requested = actions.recompute(period=period, rating_list=options["rating_list"])
        runs.settle()  # in immediate mode the commit ran them already, unless in a transaction
        for run in RatingRun.objects.filter(pk__in=[r.pk for r in requested]).order_by("pk"):
            prefix = f"{run.rating_list}: " if len(lists) > 1 else ""
            self.stdout.write(self.style.SUCCESS(prefix + runs.describe(run)))
