"""manage.py unmerge_players OTHER_ID [--reason TEXT] [--user NAME]: undo the merge of a player
(``actions.unmerge_players``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._csv import report_run
from ladder.management.commands._merges import active_user, refusal
from ladder.records.translations import Help
from ladder.writes import actions


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Undo the merge of player OTHER_ID: the games and base corrections it moved go back, "
            "both players are rated again, and a closed list it changes gets a revision back."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "other", metavar="OTHER_ID", help=gettext("The player that was merged.")
        )
        parser.add_argument("--reason", default="", help=gettext("Why (recorded)."))
        parser.add_argument("--user", help=gettext("Unmerge as this user (recorded)."))

    def handle(self, *args: Any, **options: Any) -> None:
        user = active_user(options["user"])
        try:
            outcome = actions.unmerge_players(
                other=options["other"], reason=options["reason"], user=user
            )
        except ValidationError as error:
            raise refusal(error) from error
        self.stdout.write(self.style.SUCCESS(outcome.describe()))
        report_run(self.stdout)
