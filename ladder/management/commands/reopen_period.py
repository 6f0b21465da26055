"""manage.py reopen_period LABEL --reason TEXT [--user NAME]: reopen a closed period for
corrections; beyond the club's correction window only as a user who holds the permission."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._periods import period_by_label
from ladder.records.translations import Help
from ladder.writes.actions import reopen_period


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Reopen a closed rating period so its games can be corrected; the reason is recorded."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("label", help=gettext("The period, e.g. 2026-03."))
        parser.add_argument("--reason", required=True, help=gettext("Why the period is reopened."))
        parser.add_argument(
            "--user",
            help=gettext(
                "Reopen as this user (recorded with the reason); beyond the correction window "
                "the user needs the permission ladder.reopen_after_window."
            ),
        )

    def handle(self, *args: str, **options: Any) -> None:
        period = period_by_label(options["label"])
        user = _active_user(options["user"]) if options["user"] else None
        try:
            reopen_period(period=period, reason=options["reason"], user=user)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(
            self.style.SUCCESS(gettext("Reopened %(label)s.") % {"label": period.label})
        )


def _active_user(username: str) -> Any:
    User = get_user_model()
    user = User.objects.filter(**{User.USERNAME_FIELD: username, "is_active": True}).first()
    if user is None:
        raise CommandError(
            gettext("No active user is called '%(username)s'.") % {"username": username}
        )
    return user
