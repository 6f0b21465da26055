"""What the merge commands share: the user they act as, and how a refusal is said."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

# A door's names for the action's fields.
FIELD_NAMES = {"keep": "KEEP_ID", "other": "OTHER_ID", "reason": "--reason"}


def active_user(username: str | None) -> Any:
    """The active user called ``username`` (None: none named); CommandError if unknown."""
    if not username:
        return None
    User = get_user_model()
    user = User.objects.filter(**{User.USERNAME_FIELD: username, "is_active": True}).first()
    if user is None:
        raise CommandError(
            "--user: "
            + gettext("No active user is called '%(username)s'.") % {"username": username}
        )
    return user


def refusal(error: ValidationError) -> CommandError:
    """The action's refusal as the command says it: each field by its argument's name."""
    if hasattr(error, "error_dict"):
        said = [
            f"{FIELD_NAMES.get(name, name)}: {message}"
            for name, messages in error.message_dict.items()
            for message in messages
        ]
        return CommandError(" ".join(said))
    return CommandError(" ".join(error.messages))
