"""Base corrections: a player's rating on the list in force during a period, as FIDE's rating
staff corrected it (FIDE.md 10.1).

In 6 of 58 multi-tournament months FIDE rated a tournament from a rating other than the one its
list published (2053 where the list said 2052). A base correction records such a rating: an
input an administrator enters with a reason, never inferred. It replaces the player's rating on
the list that opens ``period`` (the list in force during it): the games of every tournament
starting then are rated from it, and their new rating is it plus the period's change.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy
from simple_history.models import HistoricalRecords

from ladder.records.bounds import MAX_RATING
from ladder.records.codes import CONFLICT
from ladder.records.lists import RatingList
from ladder.records.periods import RatingPeriod
from ladder.records.players import Player
from ladder.records.text import refuse_control_characters_but_lines

# FIDE's lowest floor (1000, July 2012 to February 2024): a corrected rating of any era.
BASE_RATING_MIN = 1000
BASE_RATING_MESSAGE = f"A corrected rating lies between {BASE_RATING_MIN} and {MAX_RATING}."


class BaseCorrection(models.Model):
    """A corrected starting rating for a player on a list in a period, with its reason."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="base_corrections")
    rating_list = models.CharField(
        "list", max_length=8, choices=RatingList.choices, default=RatingList.STANDARD
    )
    period = models.ForeignKey(
        RatingPeriod,
        on_delete=models.PROTECT,
        related_name="base_corrections",
        help_text=gettext_lazy(
            "The period whose opening list it corrects (the list in force during it)."
        ),
    )
    rating = models.PositiveIntegerField(
        validators=[
            MinValueValidator(BASE_RATING_MIN, message=BASE_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=BASE_RATING_MESSAGE),
        ],
        help_text=gettext_lazy("The rating FIDE rated the period's tournaments from."),
    )
    reason = models.TextField(validators=[refuse_control_characters_but_lines])
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField(default=timezone.now)

    history = HistoricalRecords()

    class Meta:
        verbose_name = gettext_lazy("base correction")
        verbose_name_plural = gettext_lazy("base corrections")
        ordering = ["period__start", "player_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "rating_list", "period"],
                name="base_correction_once",
                violation_error_message=gettext_lazy(
                    "This player's rating on this list in this period is "
                    "corrected already; change that correction."
                ),
                violation_error_code=CONFLICT,
            ),
            models.CheckConstraint(
                condition=Q(rating__gte=BASE_RATING_MIN, rating__lte=MAX_RATING),
                name="base_correction_rating_range",
                violation_error_message=BASE_RATING_MESSAGE,
            ),
            models.CheckConstraint(
                condition=~Q(reason=""),
                name="base_correction_reason",
                violation_error_message=gettext_lazy("A base correction needs a reason."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.period} {self.rating_list}: {self.rating}"
