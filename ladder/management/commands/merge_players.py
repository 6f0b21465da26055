"""manage.py merge_players KEEP_ID OTHER_ID --reason TEXT [--user NAME]: merge a player's second
record into the one kept (``actions.merge_players``)."""

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
            "Merge player OTHER_ID into player KEEP_ID (ids as the admin and the API show them): "
            "every game and base correction of OTHER_ID becomes KEEP_ID's, who is rated again from "
            "the earliest period it changes; a closed list it changes gets a revision with the "
            "reason. Undo it with unmerge_players OTHER_ID."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("keep", metavar="KEEP_ID", help=gettext("The player kept."))
        parser.add_argument(
            "other", metavar="OTHER_ID", help=gettext("The player merged into KEEP_ID.")
        )
        parser.add_argument(
            "--reason", required=True, help=gettext("Why (recorded; the revisions' reason).")
        )
        parser.add_argument(
            "--user",
            help=gettext(
                "Merge as this user (recorded); a closed list beyond its correction window "
                "needs the permission ladder.reopen_after_window."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = active_user(options["user"])
        try:
            outcome = actions.merge_players(
                keep=options["keep"], other=options["other"], reason=options["reason"], user=user
            )
        except ValidationError as error:
            raise refusal(error) from error
        self.stdout.write(self.style.SUCCESS(outcome.describe()))
        report_run(self.stdout)
