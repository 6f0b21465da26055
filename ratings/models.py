"""RatingChange: one row per player per period in which the player has a game.

The row holds the whole calculation (rating before, K published and applied, n, score, ΣPD,
K × ΣdR, the rounded change, the rating after) and the state the period leaves on the list, so
that the next period can start from it. Per-game lines are derived on read
(``ratings.recompute.services.game_lines``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy

from ladder.records import RatingList
from ratings.rules import engine, eras, fide

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    from ladder.records import RatingPeriod


class Status(models.TextChoices):
    RATED = engine.STATUS_RATED, "rated"
    FIRST_RATING = engine.STATUS_FIRST_RATING, "first rating"
    UNRATED = engine.STATUS_UNRATED, "unrated"
    BELOW_FLOOR = engine.STATUS_BELOW_FLOOR, "fell below floor"
    ADJUSTED = engine.STATUS_ADJUSTED, "adjusted"  # no game: a one-off adjustment only


class JSONTextField(models.JSONField):
    """A JSONField kept on PostgreSQL as ``json`` (the text as written, checked) rather than
    ``jsonb`` (parsed into a binary form on the way in).

    For a column written far more often than it is searched: a rating run writes a row a
    player and period, each with a pool (``[]`` for all but the unrated), and parsing it into
    ``jsonb`` was about a twentieth of ``make bench``'s first recompute (docs/benchmarks.md).
    ``json`` has no equality: such a column cannot be filtered on, grouped or made distinct,
    and its JSON lookups (``has_key``, ``contains``) are ``jsonb``'s only. Elsewhere it is
    Django's JSONField as it is.
    """

    def db_type(self, connection: BaseDatabaseWrapper) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(
        self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False
    ) -> Any:
        adapted = super().get_db_prep_value(value, connection, prepared)
        if connection.vendor == "postgresql":
            from psycopg.types.json import Json, Jsonb

            if isinstance(adapted, Jsonb):  # sent as json: no cast from jsonb on the server
                return Json(adapted.obj, dumps=adapted.dumps)
        return adapted

    def from_db_value(self, value: Any, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        # psycopg parses json itself (Django has it hand jsonb over as text only).
        if value is None or isinstance(value, str):
            return super().from_db_value(value, expression, connection)
        return value


class RatingChangeQuerySet(models.QuerySet["RatingChange"]):
    def for_period(self, period: RatingPeriod | int) -> RatingChangeQuerySet:
        return self.filter(period=period)


class RatingChange(models.Model):
    # No single-column indexes: the unique (player, period) constraint leads with the player
    # and change_period_idx with the period, so each would be a copy that every recompute
    # writes 100,000 rows into for a federation. No foreign-key constraints in the database
    # either: these rows are derived, written only by a rating run from the players and
    # periods it reads in the same transaction, and deleted with them by Django's cascade;
    # checking 100,000 new rows' keys at each run's commit cost 0.6 s (measured).
    player = models.ForeignKey(
        "ladder.Player",
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    period = models.ForeignKey(
        "ladder.RatingPeriod",
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    rating_list = models.CharField(
        "list", max_length=8, choices=RatingList.choices, default=RatingList.STANDARD
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
    # The sum of the ratings the period's counted games met (the performance's Ra x n): what a
    # correction rates an opponent of a moved player again from, game by game, without their
    # other opponents (``engine.rate_again``). None on rows written before it was kept.
    opponents_total = models.IntegerField(null=True, blank=True)
    # A one-off adjustment of FIDE's (FIDE.md 10.2) made to the list that closes the period:
    # the points it added to the rating after the period's games, and the day FIDE dates it.
    adjustment = models.IntegerField(default=0)
    adjusted_on = models.DateField(null=True, blank=True)
    # State on the list that closes the period.
    rated_games_after = models.PositiveIntegerField(default=0)
    peak_after = models.PositiveSmallIntegerField(null=True, blank=True)
    last_rated_on = models.DateField(null=True, blank=True)
    first_event = models.CharField(max_length=220, blank=True)
    pool = JSONTextField(default=list, blank=True)

    objects = RatingChangeQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("rating change")
        verbose_name_plural = gettext_lazy("rating changes")
        ordering = ["period__start", "player_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "rating_list", "period"], name="one_change_per_period"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=Status.values), name="change_status_valid"
            ),
        ]
        indexes = [
            # A period's rows on a list, by their change, largest first: the standings' top
            # movers read the first few (a scan of the latest period's rows was a millisecond
            # of the server's a request at 5,000 players). By the rating after, as it was, it
            # ordered nothing: a period's report sorts NULL ratings last and ties by name.
            models.Index(fields=["period", "rating_list", "-change"], name="change_period_idx")
        ]

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

    @property
    def adjustment_reason(self) -> str:
        """Why the rating after the period was adjusted, with the rule that did (or "")."""
        if self.adjusted_on is None:
            return ""
        return eras.adjustment_reason(self.adjusted_on, self.rating_list)


class AppliedAdjustment(models.Model):
    """A one-off adjustment (FIDE.md 10.2) made to the list closing a period, whether or not it
    raised anyone: a later run then knows it is made and may rate incrementally
    (``services.adjustment_missing``). Written by the full replays that make it."""

    period = models.ForeignKey(
        "ladder.RatingPeriod", on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    rating_list = models.CharField("list", max_length=8, choices=RatingList.choices)
    adjusted_on = models.DateField()

    class Meta:
        verbose_name = gettext_lazy("one-off adjustment made")
        verbose_name_plural = gettext_lazy("one-off adjustments made")
        constraints = [
            models.UniqueConstraint(
                fields=["period", "rating_list", "adjusted_on"], name="adjustment_made_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.period_id} {self.rating_list} {self.adjusted_on}"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


class RatingRun(models.Model):
    """One recompute: what asked for it, from which period, and what it did.

    Changes record a queued run in their own transaction (``ratings.runs.request_recompute``);
    while a run is queued every further change merges into it, so at most one run waits. Runs
    execute one at a time per database (``ratings.runs.execute_pending``).
    """

    status = models.CharField(max_length=8, choices=RunStatus.choices, default=RunStatus.QUEUED)
    rating_list = models.CharField(
        "list", max_length=8, choices=RatingList.choices, default=RatingList.STANDARD
    )
    from_period = models.ForeignKey(
        "ladder.RatingPeriod",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Blank: from the first period.",
    )
    players = models.JSONField(
        null=True, blank=True, help_text="Players whose own games or data changed; blank: all."
    )
    reason = models.CharField(max_length=300, blank=True)
    changes = models.PositiveIntegerField(default=1, help_text="Changes merged into this run.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    requested_at = models.DateTimeField(default=timezone.now)
    last_change_at = models.DateTimeField(
        default=timezone.now, help_text="The latest change this run rates."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    periods = models.CharField(max_length=60, blank=True, help_text="The periods recomputed.")
    players_changed = models.PositiveIntegerField(null=True, blank=True)
    rows_written = models.PositiveIntegerField(null=True, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    error = models.TextField(blank=True)
    folded_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="A failed run's work, taken on again by this later run.",
    )
    task_id = models.CharField(
        max_length=64, blank=True, help_text="The queued task that will execute it (background)."
    )

    class Meta:
        verbose_name = gettext_lazy("rating run")
        verbose_name_plural = gettext_lazy("rating runs")
        ordering = ["-pk"]
        constraints = [
            # Requests coalesce: at most one run waits per list; changes merge into it.
            models.UniqueConstraint(
                fields=["rating_list", "status"],
                condition=models.Q(status="queued"),
                name="one_queued_run",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="run_status_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "-finished_at"], name="run_status_idx"),
            # The latest change a finished run rated (``runs.status.freshness``, every page).
            models.Index(
                fields=["-last_change_at"], condition=models.Q(status="done"), name="run_done_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"Rating run #{self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("admin:ratings_ratingrun_change", args=[self.pk])

    @property
    def is_pending(self) -> bool:
        return self.status in (RunStatus.QUEUED, RunStatus.RUNNING)


class Publication(models.Model):
    """A period's list on one rating list as published, kept as it was (never updated).

    Revision 1 is published when the period closes; each later one when the list that closes
    the period changed and was published again: the period closed again after a correction
    (``reason``: why it was reopened), or a correction made in an earlier period flowed into it
    (``corrected_in``). ``differences`` holds, per player whose line changed, the line before
    and after: ``[player id, old rating, new rating, old change, new change]``.
    """

    # Published means published: nothing deletes a list through the rows it names (PROTECT);
    # the actions refuse such deletes with a sentence first (ladder.writes.validation).
    period = models.ForeignKey(
        "ladder.RatingPeriod", on_delete=models.PROTECT, related_name="publications"
    )
    rating_list = models.CharField(
        max_length=8, choices=RatingList.choices, default=RatingList.STANDARD
    )
    revision = models.PositiveIntegerField()
    published_at = models.DateTimeField(default=timezone.now)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="+",
    )  # fmt: skip
    reason = models.TextField(blank=True)
    corrected_in = models.ForeignKey(
        "ladder.RatingPeriod", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    players_changed = models.PositiveIntegerField(default=0)
    differences = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = gettext_lazy("publication")
        verbose_name_plural = gettext_lazy("publications")
        ordering = ["period__start", "rating_list", "revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["period", "rating_list", "revision"], name="one_publication_revision"
            )
        ]

    def __str__(self) -> str:
        return f"{self.period} {self.rating_list} revision {self.revision}"


class PublishedRating(models.Model):
    """One player's line on a published list (``Publication``), as published."""

    publication = models.ForeignKey(Publication, on_delete=models.PROTECT, related_name="lines")
    player = models.ForeignKey(
        "ladder.Player", on_delete=models.PROTECT, related_name="+", db_constraint=False
    )
    status = models.CharField(max_length=20)
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    change = models.IntegerField(default=0)
    k = models.PositiveSmallIntegerField(null=True, blank=True, help_text="K applied.")
    games = models.PositiveIntegerField(default=0, help_text="Rated games in the period.")
    total_games = models.PositiveIntegerField(default=0, help_text="Rated games in all.")
    # What a one-off adjustment (FIDE.md 10.2) added to the rating after the period's games:
    # the rating before them is the rating less the change and this.
    adjustment = models.IntegerField(default=0)

    class Meta:
        verbose_name = gettext_lazy("published rating")
        verbose_name_plural = gettext_lazy("published ratings")
        constraints = [
            models.UniqueConstraint(fields=["publication", "player"], name="one_published_line")
        ]

    def __str__(self) -> str:
        return f"{self.publication}: {self.player_id} {self.rating}"
