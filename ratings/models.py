"""RatingChange: one row per player per period in which the player has a game.

The row holds the whole calculation (rating before, K published and applied, n, score, ΣPD,
K × ΣdR, the rounded change, the rating after) and the state the period leaves on the list, so
that the next period can start from it. Per-game lines are derived on read
(``ratings.services.game_lines``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import models

from . import engine, fide

if TYPE_CHECKING:
    from ladder.models import RatingPeriod


class Status(models.TextChoices):
    RATED = engine.STATUS_RATED, "rated"
    FIRST_RATING = engine.STATUS_FIRST_RATING, "first rating"
    UNRATED = engine.STATUS_UNRATED, "unrated"
    BELOW_FLOOR = engine.STATUS_BELOW_FLOOR, "fell below floor"


class RatingChangeQuerySet(models.QuerySet["RatingChange"]):
    def for_period(self, period: RatingPeriod | int) -> RatingChangeQuerySet:
        return self.filter(period=period)


class RatingChange(models.Model):
    # No single-column indexes: the unique (player, period) constraint leads with the player
    # and change_period_idx with the period, so each would be a copy that every recompute
    # writes 100,000 rows into for a federation.
    player = models.ForeignKey(
        "ladder.Player", on_delete=models.CASCADE, related_name="rating_changes", db_index=False
    )
    period = models.ForeignKey(
        "ladder.RatingPeriod",
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
    )
    status = models.CharField(max_length=12, choices=Status.choices)
    rating_before = models.PositiveSmallIntegerField(null=True, blank=True)
    k = models.PositiveSmallIntegerField("K published", null=True, blank=True)
    k_reason = models.CharField(max_length=120, blank=True)
    k_applied = models.PositiveSmallIntegerField("K applied", null=True, blank=True)
    games = models.PositiveIntegerField(
        default=0, help_text="Rated games in the period (unrated: games toward the pool)."
    )
    score_units = models.IntegerField(default=0)
    expected_units = models.IntegerField(default=0)
    change_exact_units = models.BigIntegerField(default=0)
    change = models.IntegerField(default=0)
    rating_after = models.PositiveSmallIntegerField(null=True, blank=True)
    performance = models.IntegerField(null=True, blank=True)
    # State on the list that closes the period.
    rated_games_after = models.PositiveIntegerField(default=0)
    peak_after = models.PositiveSmallIntegerField(null=True, blank=True)
    last_rated_on = models.DateField(null=True, blank=True)
    first_event = models.CharField(max_length=220, blank=True)
    pool = models.JSONField(default=list, blank=True)

    objects = RatingChangeQuerySet.as_manager()

    class Meta:
        ordering = ["period__start", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "period"], name="one_change_per_period"),
            models.CheckConstraint(
                condition=models.Q(status__in=Status.values), name="change_status_valid"
            ),
        ]
        indexes = [models.Index(fields=["period", "-rating_after"], name="change_period_idx")]

    def __str__(self) -> str:
        return f"{self.player} {self.period}: {self.status} {self.change:+d}"

    @property
    def score(self) -> Decimal:
        return fide.units_to_decimal(self.score_units)

    @property
    def expected(self) -> Decimal:
        return fide.units_to_decimal(self.expected_units)

    @property
    def delta(self) -> Decimal:
        """ΣdR: the score minus the expected score, before K."""
        return fide.units_to_decimal(self.score_units - self.expected_units)

    @property
    def change_exact(self) -> Decimal:
        return fide.units_to_decimal(self.change_exact_units)

    @property
    def is_rated(self) -> bool:
        return self.status == Status.RATED
