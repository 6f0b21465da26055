"""manage.py record_first_versions: give players and games written in bulk by an older Ladder
(CSV imports, club restores, the demo club) the first history version they lack."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext, gettext_noop

from ladder.records.translations import Help
from ladder.writes import actions


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Give every player and game without any history version a first one ('Created', "
            "dated when it was created), so that its History shows what each later change did. "
            "Safe to run again: it only adds what is missing."
        )
    )

    def handle(self, *args, **options):
        counts = actions.record_first_versions()
        self.stdout.write(
            self.style.SUCCESS(
                gettext("Recorded a first version of %(players)s players and %(games)s games.")
                % {"players": counts["players"], "games": counts["games"]}
            )
        )
