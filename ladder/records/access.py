"""Records of the API's access: tokens, idempotent requests, the throttle's counts."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from ladder.records.text import (
    refuse_control_characters,
)


class ThrottleCount(models.Model):
    """A client's requests counted by the API's anonymous throttle when the cache is the
    database's (``ladder.caching.throttling``; on Redis they are counted there): this window's
    count and the last one's, moved on by one atomic statement per request. Counts that a crash
    loses cost nothing, so on PostgreSQL the table is unlogged (written without the WAL).
    """

    key = models.CharField(max_length=200, primary_key=True)
    slot = models.BigIntegerField(
        help_text=gettext_lazy("The window: seconds since the epoch // its length.")
    )
    count = models.PositiveIntegerField(default=0)
    previous = models.PositiveIntegerField(
        default=0, help_text=gettext_lazy("The window before's count.")
    )

    def __str__(self) -> str:
        return f"{self.key}: {self.count} (+{self.previous} before)"


class IdempotentRequest(models.Model):
    """The first answer to an API POST sent with an ``Idempotency-Key`` header: a retry with the
    same key (a client that timed out) gets this answer again and writes nothing more."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    fingerprint = models.CharField(
        max_length=64, help_text=gettext_lazy("SHA-256 of the request body.")
    )
    status = models.PositiveSmallIntegerField()
    response = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotent_request_user_key")
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.key})"


class ApiToken(models.Model):
    """An API token, stored as the SHA-256 of its key (the key is shown once, when issued),
    with an expiry and a revocation (``manage.py issue_token``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True, validators=[refuse_control_characters])
    prefix = models.CharField(
        max_length=8, help_text=gettext_lazy("The key's first characters, to name it.")
    )
    digest = models.CharField(
        max_length=64, unique=True, help_text=gettext_lazy("SHA-256 of the key.")
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("api token")
        verbose_name_plural = gettext_lazy("api tokens")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @staticmethod
    def hash(key: str) -> str:
        # A key is 256 random bits: a fast hash is enough (nothing to guess by brute force).
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def issue(cls, user: Any, *, days: int, name: str = "") -> tuple[ApiToken, str]:
        """Create a token for ``user`` valid ``days`` days; return it and its key (shown once)."""
        key = secrets.token_urlsafe(32)
        while key.startswith("-"):  # its prefix must not read as an option: --revoke PREFIX
            key = secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, prefix=key[:8], digest=cls.hash(key),
            expires_at=timezone.now() + timedelta(days=days),
        )  # fmt: skip
        return token, key

    @property
    def active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()
