"""manage.py base_correction PLAYER --month 2025-04 --rating 1622 [--list standard] --reason TEXT:
a corrected starting rating, as FIDE's staff entered it (FIDE.md 10.1)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._csv import report_run
from ladder.records import BaseCorrection, RatingList, RatingPeriod, kept_lists
from ladder.records.translations import Help
from ladder.writes import actions
from ladder.writes.validation import PlayerLookup


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Record a base correction: the rating PLAYER (a FIDE id or a name) was rated from on "
            "the list in force during MONTH (--month 2025-04: FIDE's April 2025 list, the one that "
            "opens Ladder's period 2025-04 and closes 2025-03), with a reason; the period is rated "
            "again. A second correction of the same player, list and month replaces the first."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("player", help=gettext("A FIDE id or the player's name."))
        parser.add_argument(
            "--month", required=True, help=gettext("The period's label, e.g. 2025-04.")
        )
        parser.add_argument("--rating", required=True, help=gettext("The corrected rating."))
        parser.add_argument("--list", dest="rating_list", choices=RatingList.values)
        parser.add_argument(
            "--reason", required=True, help=gettext("Why (shown with the correction).")
        )
        parser.add_argument("--user", help=gettext("The administrator making it (a user name)."))
        parser.add_argument("--delete", action="store_true", help=gettext("Delete the correction."))

    def handle(self, *args: Any, **options: Any) -> None:
        rating_list = options["rating_list"] or kept_lists()[0]
        try:
            player = PlayerLookup.load().find(options["player"])
        except LookupError as error:
            raise CommandError(gettext("PLAYER: %(error)s") % {"error": error}) from None
        period = RatingPeriod.objects.filter(label=options["month"]).first()
        if period is None:
            raise CommandError(
                gettext("--month: No rating period is labelled '%(month)s'.")
                % {"month": options["month"]}
            )
        user = self._user(options["user"])
        found = BaseCorrection.objects.filter(
            player=player, rating_list=rating_list, period=period
        ).first()
        try:
            if options["delete"]:
                if found is None:
                    raise CommandError(
                        gettext("%(player)s has no base correction in %(label)s.")
                        % {"player": player, "label": period.label}
                    )
                actions.delete_base_corrections(corrections=[found], user=user)
                self.stdout.write(
                    self.style.SUCCESS(
                        gettext("Deleted the base correction of %(player)s.") % {"player": player}
                    )
                )
                report_run(self.stdout)
                return
            correction = found or BaseCorrection(
                player=player, rating_list=rating_list, period=period
            )
            correction.rating = _number(options["rating"])
            correction.reason = options["reason"].strip()
            actions.save_base_correction(correction=correction, user=user)
        except ValidationError as error:
            raise CommandError(_sentences(error)) from None
        self.stdout.write(
            self.style.SUCCESS(
                gettext(
                    "%(player)s is rated from %(rating)s on the %(list)s list in "
                    "%(label)s: %(reason)s"
                )
                % {
                    "player": player,
                    "rating": correction.rating,
                    "list": rating_list,
                    "label": period.label,
                    "reason": correction.reason,
                }  # fmt: skip
            )
        )
        report_run(self.stdout)

    @staticmethod
    def _user(name: str | None) -> Any:
        if not name:
            return None
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise CommandError(gettext("--user: No user is named '%(name)s'.") % {"name": name})
        return user


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CommandError(
            gettext("--rating: '%(text)s' is not a whole number.") % {"text": text}
        ) from None


def _sentences(error: ValidationError) -> str:
    names = {"rating": "--rating", "reason": "--reason", "date": "--month", "__all__": ""}
    if not hasattr(error, "error_dict"):
        return " ".join(error.messages)
    return " ".join(
        f"{names.get(field, field)}: {message}" if names.get(field, field) else message
        for field, messages in error.message_dict.items()
        for message in messages
    )
