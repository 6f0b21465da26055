"""API tokens issued and revoked: the one code behind ``manage.py issue_token`` and the admin's
API tokens page. A token is stored as the SHA-256 of its key (``ApiToken``); the key is
returned once, to be shown once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ladder.records import ApiToken

MAX_DAYS = 3660


def token_problems(*, user: Any, days: int, name: str = "") -> dict[str, list[str]]:
    """What is wrong with issuing a token so (by field: user, days, name); empty when fine."""
    errors: dict[str, list[str]] = {}
    if not user.is_active:
        errors["user"] = [f"The user '{user}' is inactive; activate them first."]
    if not 1 <= days <= MAX_DAYS:
        errors["days"] = [f"Days must be from 1 to {MAX_DAYS}."]
    try:
        ApiToken._meta.get_field("name").clean(name, None)
    except ValidationError as error:
        errors["name"] = error.messages
    return errors


def issue_token(*, user: Any, days: int | None = None, name: str = "") -> tuple[ApiToken, str]:
    """Issue a token for ``user`` valid ``days`` days (default ``LADDER_TOKEN_DAYS``); return it
    and its key. Raises ValidationError naming the field (user, days, name) and the reason."""
    days = settings.LADDER_TOKEN_DAYS if days is None else days
    errors = token_problems(user=user, days=days, name=name)
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        return ApiToken.issue(user, days=days, name=name)


def revoke_tokens(tokens: Iterable[ApiToken]) -> int:
    """Revoke the tokens not yet revoked; return how many were."""
    ids = [token.pk for token in tokens]
    with transaction.atomic():
        chosen = ApiToken.objects.filter(pk__in=ids, revoked_at__isnull=True)
        return chosen.update(revoked_at=timezone.now())
