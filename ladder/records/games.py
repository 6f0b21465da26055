"""Games: who played whom, when, on which list, with which result."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy
from simple_history.models import HistoricalRecords

from ladder.records.bounds import (
    FIRST_GAME_DATE,
    GAME_DATE_MESSAGE,
    LAST_GAME_DATE,
)
from ladder.records.choices import Result
from ladder.records.lists import (
    RatingList,
)
from ladder.records.periods import (
    RatingPeriod,
)
from ladder.records.players import Player
from ladder.records.text import (
    refuse_control_characters,
)
from ladder.records.tournaments import Tournament, game_problems


class GameQuerySet(models.QuerySet["Game"]):
    def in_period(self, period: RatingPeriod) -> GameQuerySet:
        return self.filter(period=period)

    def with_players(self) -> GameQuerySet:
        return self.select_related("white", "black", "period")

    def for_player(self, player: Player | int) -> GameQuerySet:
        return self.filter(Q(white=player) | Q(black=player))

    def on_list(self, rating_list: str) -> GameQuerySet:
        return self.filter(rating_list=rating_list)


class Game(models.Model):
    # Indexed with the list (game_period_list_idx): a rating run reads one list of a period.
    period = models.ForeignKey(
        RatingPeriod,
        on_delete=models.PROTECT,
        related_name="games",
        editable=False,
        db_index=False,
    )
    date = models.DateField(
        db_index=True,
        validators=[
            MinValueValidator(FIRST_GAME_DATE, message=GAME_DATE_MESSAGE),
            MaxValueValidator(LAST_GAME_DATE, message=GAME_DATE_MESSAGE),
        ],
    )
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.PROTECT,
        related_name="games",
        null=True,
        blank=True,
        help_text=gettext_lazy(
            "The tournament it was played in: its start chooses the list that rates it "
            "and its period is the game's."
        ),
    )
    # Indexed with the list and the period (game_white_list_period_idx and its Black twin):
    # a player's games are read a list at a time, and a correction reads a few dozen players'
    # games of one period after another.
    white = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_white", db_index=False
    )
    black = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_black", db_index=False
    )
    result = models.CharField(max_length=7, choices=Result.choices)
    event = models.CharField(max_length=200, blank=True, validators=[refuse_control_characters])
    round = models.CharField(max_length=20, blank=True, validators=[refuse_control_characters])
    rating_list = models.CharField(
        "list",
        max_length=8,
        choices=RatingList.choices,
        default=RatingList.STANDARD,
        help_text=gettext_lazy(
            "The list the game is rated on (from the time control when one is given)."
        ),
    )
    time_control = models.CharField(
        max_length=20,
        blank=True,
        help_text=gettext_lazy("Base minutes + increment seconds, e.g. 90+30, 15+10, 3+2."),
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = GameQuerySet.as_manager()
    history = HistoricalRecords()

    class Meta:
        verbose_name = gettext_lazy("game")
        verbose_name_plural = gettext_lazy("games")
        ordering = ["date", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(white=F("black")),
                name="game_white_is_not_black",
                violation_error_message=gettext_lazy("A player cannot play themselves."),
            ),
            models.CheckConstraint(
                condition=Q(result__in=Result.values),
                name="game_result_valid",
                violation_error_message=gettext_lazy("Unknown result."),
            ),
            models.CheckConstraint(
                condition=Q(date__gte=FIRST_GAME_DATE, date__lte=LAST_GAME_DATE),
                name="game_date_range",
                violation_error_message=GAME_DATE_MESSAGE,
            ),
            models.CheckConstraint(
                condition=Q(rating_list__in=RatingList.values),
                name="game_rating_list_valid",
                violation_error_message=gettext_lazy("Unknown list."),
            ),
        ]
        indexes = [
            models.Index(fields=["period", "rating_list"], name="game_period_list_idx"),
            models.Index(fields=["white", "rating_list", "period"], name="game_white_list_idx"),
            models.Index(fields=["black", "rating_list", "period"], name="game_black_list_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.white.name} - {self.black.name} {self.result}"

    def save(self, *args, **kwargs) -> None:
        # The period always follows the tournament (the one it is rated in), or without one the
        # date, whichever door the game came through.
        if self.tournament is not None:
            self.period_id = self.tournament.rated_in_id
        elif self.date and (self.period_id is None or not self.period.contains(self.date)):
            self.period = RatingPeriod.objects.for_date(self.date)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # Periods (closed, overlapping) and duplicates are batch checks: ladder.writes.validation.
        if self.white_id and self.black_id and self.white_id == self.black_id:
            raise ValidationError({"black": gettext_lazy("A player cannot play themselves.")})
        if self.tournament_id is not None:
            try:
                tournament = self.tournament
            except Tournament.DoesNotExist:  # the foreign key's own check names it
                return
            if tournament is None:
                return
            problems = game_problems(tournament, self.date, self.rating_list)
            if problems:
                raise ValidationError(problems)
