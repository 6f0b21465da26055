"""Files already imported, so that the same file is never imported twice."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class ImportedFile(models.Model):
    """A file imported whole, by its fingerprint: the same file again is refused."""

    class Kind(models.TextChoices):
        PLAYERS = "players", "Players (CSV)"
        GAMES = "games", "Games (CSV)"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    sha256 = models.CharField(max_length=64)
    rows = models.PositiveIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("imported file")
        verbose_name_plural = gettext_lazy("imported files")
        constraints = [
            models.UniqueConstraint(fields=["kind", "sha256"], name="imported_file_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.sha256[:12]} ({self.at:%Y-%m-%d %H:%M})"
