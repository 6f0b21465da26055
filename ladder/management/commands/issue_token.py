"""Print a user's API token, creating it on first use."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = (
        "Print the REST API token of USERNAME (created if the user has none). Send it as "
        "'Authorization: Token <key>'."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user is named '{username}'; create one with createsuperuser.")
        if not user.is_active:
            raise CommandError(f"The user '{username}' is inactive; activate them first.")
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
