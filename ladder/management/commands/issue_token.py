"""Issue, list and revoke a user's API tokens (stored hashed: a key is shown once)."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, gettext_noop, ngettext

from ladder.records import ApiToken
from ladder.records.translations import Help
from ladder.writes import tokens as token_writes


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Print a new REST API token for USERNAME, valid --days days (default: the setting "
            "LADDER_TOKEN_DAYS). Send it as 'Authorization: Token <key>'. Only its SHA-256 is "
            "stored: the key is shown this once. --list shows the user's tokens, --revoke PREFIX "
            "revokes one, --revoke-all every one."
        )
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--days", type=int, default=None, help=gettext("Days the token is valid.")
        )
        parser.add_argument("--name", default="", help=gettext("What the token is for."))
        parser.add_argument("--list", action="store_true", help=gettext("List the user's tokens."))
        parser.add_argument(
            "--revoke", metavar="PREFIX", help=gettext("Revoke the token so named.")
        )
        parser.add_argument(
            "--revoke-all", action="store_true", help=gettext("Revoke every token.")
        )

    def handle(self, *args, username: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(
                gettext("No user is named '%(username)s'; create one with createsuperuser.")
                % {"username": username}
            )
        tokens = ApiToken.objects.filter(user=user)
        if options["list"]:
            for token in tokens:
                if token.active:
                    state = gettext("active")
                else:
                    state = gettext("revoked") if token.revoked_at else gettext("expired")
                expires = gettext("expires %(day)s") % {"day": f"{token.expires_at:%Y-%m-%d}"}
                self.stdout.write(f"{token.prefix}  {state}  {expires}  {token.name}")
            return
        if options["revoke_all"] or options["revoke"]:
            chosen = tokens if options["revoke_all"] else tokens.filter(prefix=options["revoke"])
            count = token_writes.revoke_tokens(chosen)
            if options["revoke"] and not chosen.exists():
                raise CommandError(
                    gettext("%(username)s has no token starting '%(revoke)s'.")
                    % {"username": username, "revoke": options["revoke"]}
                )
            self.stdout.write(
                ngettext("Revoked %(count)s token.", "Revoked %(count)s tokens.", count)
                % {"count": count}
            )
            return
        try:
            _, key = token_writes.issue_token(user=user, days=options["days"], name=options["name"])
        except ValidationError as error:
            field, (message, *_) = next(iter(error.message_dict.items()))
            option = {"days": "--days: ", "name": "--name: "}.get(field, "")
            raise CommandError(f"{option}{message}") from None
        self.stdout.write(key)
