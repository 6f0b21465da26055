"""manage.py erase_player ID --reason TEXT [--user NAME]: replace a person's name and personal
fields by a pseudonym, keeping every game and rating (ID: their id or FIDE id)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.files import player_export
from ladder.records.translations import Help
from ladder.writes.actions import erase_player


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Erase a player's personal data: the name becomes 'Erased player #ID', the FIDE id, "
            "sex, federation and title are removed (the birth year too unless the junior rule "
            "needs it), also from their history; games and ratings stay, so nobody's history "
            "changes. Recorded in the player's history with the reason."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "id", help=gettext("The player's id or FIDE id (pk:N or fide:N to say which).")
        )
        parser.add_argument(
            "--reason", required=True, help=gettext("Why; recorded in the history.")
        )
        parser.add_argument(
            "--user", help=gettext("Erase as this user (recorded with the reason).")
        )

    def handle(self, *args: str, **options: Any) -> None:
        user = _active_user(options["user"]) if options["user"] else None
        try:
            player = player_export.find_player(options["id"])
        except LookupError as error:
            raise CommandError(str(error)) from error
        try:
            erasure = erase_player(player=player, reason=options["reason"], user=user)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        kept = (
            "the birth year is kept (the junior rule reads it)"
            if erasure.kept_birth_year
            else "the birth year is removed"
        )
        self.stdout.write(
            self.style.SUCCESS(
                gettext(
                    "Erased player #%(pk)s: now '%(name)s'; %(kept)s; %(versions)s history "
                    "versions and %(texts)s other records rewritten. Games and ratings are "
                    "unchanged."
                )
                % {
                    "pk": erasure.player.pk,
                    "name": erasure.player.name,
                    "kept": kept,
                    "versions": erasure.versions_scrubbed,
                    "texts": erasure.texts_rewritten,
                }  # fmt: skip
            )
        )


def _active_user(username: str) -> Any:
    User = get_user_model()
    user = User.objects.filter(**{User.USERNAME_FIELD: username, "is_active": True}).first()
    if user is None:
        raise CommandError(
            gettext("No active user is called '%(username)s'.") % {"username": username}
        )
    return user
