"""Players: identity, entry data per list and the derived state the rating runs write."""

from __future__ import annotations

import operator
from datetime import date
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy
from simple_history.models import HistoricalRecords

from ladder.records import player_search
from ladder.records.bounds import (
    ENTRY_RATING_FLOOR,
    ENTRY_RATING_MESSAGE,
    MAX_ENTRY_RATED_GAMES,
    MAX_RATING,
    MIN_BIRTH_YEAR,
    latest_birth_year,
)
from ladder.records.choices import Sex, Title
from ladder.records.lists import (
    LIST_FIELDS,
    ListFields,
    RatingList,
)
from ladder.records.names import search_key
from ladder.records.text import (
    refuse_control_characters,
)


def _entry_rating(name: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        f"{name} entry rating",
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=f"Published {name} rating on entry; blank = unrated on that list.",
    )


def _entry_rated_games(name: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(
        f"{name} entry rated games",
        default=0,
        validators=[MaxValueValidator(MAX_ENTRY_RATED_GAMES)],
        help_text=f"{name.capitalize()} rated games completed before entry.",
    )


def _entry_peak_rating(name: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        f"{name} entry peak rating",
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=f"Highest published {name} rating before entry; blank = the entry rating.",
    )


def rated_on(rating_list: str, *, rated: bool = True) -> Q:
    """The players rated on a list (``rated=False``: unrated), as a condition: what
    ``PlayerQuerySet.rated`` and ``unrated`` filter by, for a query that counts them beside
    others."""
    return Q(**{f"{LIST_FIELDS[rating_list].rating}__isnull": not rated})


class PlayerQuerySet(models.QuerySet["Player"]):
    def bulk_create(self, objs, *args, **kwargs):
        """Create players in bulk, each with the search key of its name (``save`` sets it
        for one)."""
        objs = list(objs)
        for player in objs:
            player.set_search_key()
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs, fields, *args, **kwargs):
        """Update players in bulk; a changed name changes its search key too."""
        objs, fields = list(objs), list(fields)
        if "name" in fields and "search_key" not in fields:
            for player in objs:
                player.set_search_key()
            fields.append("search_key")
        return super().bulk_update(objs, fields, *args, **kwargs)

    def rated(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        return self.filter(rated_on(rating_list))

    def unrated(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        return self.filter(rated_on(rating_list, rated=False))

    def current(self) -> PlayerQuerySet:
        """The players not merged into another (a merged record stays, for its old links)."""
        return self.filter(merged_into__isnull=True)

    def search(self, text: str) -> PlayerQuerySet:
        """Filter by name, tolerant of case, accents, word order, transliteration and typos,
        or by the exact FIDE id or national id (``player_search.matching``)."""
        return player_search.matching(self, text)

    def closest(self, text: str, *, limit: int = 10) -> list[Player]:
        """Return up to ``limit`` players the text names, the closest first."""
        return player_search.closest(self, text, limit=limit)

    def national(self, text: str) -> PlayerQuerySet:
        """Filter by national id: ``12345`` (any federation's), or ``NOR:12345``/``NOR 12345``."""
        return self.filter(player_search.national_id_condition(text.replace("\x00", "").strip()))

    def standings(self, rating_list: str = RatingList.STANDARD) -> PlayerQuerySet:
        """Order rated players first by their rating on the list, then by name."""
        rating = F(LIST_FIELDS[rating_list].rating)
        return self.order_by(rating.desc(nulls_last=True), "name", "pk")


def entry_rating_range(prefix: str) -> models.CheckConstraint:
    """The database's copy of the entry rating's validators: blank, or a published rating."""
    name = f"{prefix}entry_rating"
    published = Q(**{f"{name}__gte": ENTRY_RATING_FLOOR, f"{name}__lte": MAX_RATING})
    return models.CheckConstraint(
        condition=Q(**{f"{name}__isnull": True}) | published,
        name=f"player_{name}_range",
        violation_error_message=ENTRY_RATING_MESSAGE,
    )


class Player(models.Model):
    # Indexed in Meta.indexes, not by db_index: on PostgreSQL, db_index adds a second index for
    # LIKE 'prefix%' that no query of Ladder asks (its searches are trigram, equality or a
    # part of a name), and every player written went through both.
    name = models.CharField(max_length=200, validators=[refuse_control_characters])
    # Derived from the name (ladder.records.names.search_key), set on every save: what a
    # search compares. Trigram-indexed on PostgreSQL (migration 0022).
    search_key = models.TextField(editable=False, default="")
    fide_id = models.PositiveBigIntegerField(
        "FIDE id",
        null=True,
        blank=True,
        unique=True,
        validators=[
            MinValueValidator(1, message=gettext_lazy("A FIDE id is a whole number from 1 up."))
        ],
        help_text=gettext_lazy("Unique when given."),
    )
    birth_year = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_BIRTH_YEAR)],
        help_text=gettext_lazy("FIDE publishes only the year; it is all the junior rule needs."),
    )
    sex = models.CharField(max_length=1, choices=Sex.choices, blank=True)
    federation = models.CharField(
        max_length=3,
        blank=True,
        validators=[refuse_control_characters],
        help_text=gettext_lazy("FIDE code, e.g. ENG."),
    )
    title = models.CharField(
        max_length=3,
        choices=Title.choices,
        blank=True,
        help_text=gettext_lazy("A real FIDE title only."),
    )
    national_federation = models.CharField(
        max_length=3,
        blank=True,
        validators=[refuse_control_characters],
        help_text="The federation that issued the national id (blank: the player's federation).",
    )
    national_id = models.CharField(
        "national id",
        max_length=20,
        blank=True,
        validators=[refuse_control_characters],
        help_text="The national federation's id, beside the FIDE id; unique within it.",
    )
    # Entry data, for players who arrive with a history.
    entry_rating = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=gettext_lazy("Published rating on entry; blank = unrated."),
    )
    entry_rated_games = models.PositiveIntegerField(
        default=0,
        validators=[MaxValueValidator(MAX_ENTRY_RATED_GAMES)],
        help_text=gettext_lazy("Rated games completed before entry."),
    )
    entry_peak_rating = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(ENTRY_RATING_FLOOR, message=ENTRY_RATING_MESSAGE),
            MaxValueValidator(MAX_RATING, message=ENTRY_RATING_MESSAGE),
        ],
        help_text=gettext_lazy("Highest published rating before entry; blank = the entry rating."),
    )
    rapid_entry_rating = _entry_rating("rapid")
    rapid_entry_rated_games = _entry_rated_games("rapid")
    rapid_entry_peak_rating = _entry_peak_rating("rapid")
    blitz_entry_rating = _entry_rating("blitz")
    blitz_entry_rated_games = _entry_rated_games("blitz")
    blitz_entry_peak_rating = _entry_peak_rating("blitz")
    # Derived: written by ratings.recompute.services only (the standard list's, then rapid and
    # blitz).
    rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rated_games = models.PositiveIntegerField(default=0, editable=False)
    peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    last_rated_on = models.DateField(null=True, blank=True, editable=False)
    last_change = models.IntegerField(null=True, blank=True, editable=False)
    rapid_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rapid_rated_games = models.PositiveIntegerField(default=0, editable=False)
    rapid_peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    rapid_last_rated_on = models.DateField(null=True, blank=True, editable=False)
    rapid_last_change = models.IntegerField(null=True, blank=True, editable=False)
    blitz_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    blitz_rated_games = models.PositiveIntegerField(default=0, editable=False)
    blitz_peak_rating = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    blitz_last_rated_on = models.DateField(null=True, blank=True, editable=False)
    blitz_last_change = models.IntegerField(null=True, blank=True, editable=False)
    # Set by a merge (``ladder.writes.merges``): this record's games are the kept player's now.
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="merged_players",
        editable=False,
        help_text="Set by a merge: the player this record was merged into.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = PlayerQuerySet.as_manager()
    history = HistoricalRecords(
        excluded_fields=[
            *(name for fields in LIST_FIELDS.values() for name in fields.derived),
            "search_key",
            "updated",
        ]
    )

    class Meta:
        verbose_name = gettext_lazy("player")
        verbose_name_plural = gettext_lazy("players")
        ordering = ["name", "pk"]
        indexes = [
            models.Index(fields=["name"], name="player_name_idx"),
            models.Index(fields=["search_key"], name="player_search_key_idx"),
        ]
        constraints = [
            entry_rating_range(""),
            models.UniqueConstraint(
                fields=["national_federation", "national_id"],
                condition=~Q(national_id=""),
                name="player_national_id_once",
                violation_error_message="Another player has this national id.",
                # A uniqueness error, as Django codes a unique field's: the doors answer it as
                # a conflict (409) whichever check finds it, the serializer's or full_clean's.
                violation_error_code="unique",
            ),
            models.CheckConstraint(
                condition=Q(birth_year__isnull=True) | Q(birth_year__gte=MIN_BIRTH_YEAR),
                name="player_birth_year_range",
            ),
            models.CheckConstraint(
                condition=Q(entry_rated_games__lte=MAX_ENTRY_RATED_GAMES),
                name="player_entry_rated_games_range",
                violation_error_message=gettext_lazy(
                    "Rated games before entry cannot exceed 100,000."
                ),
            ),
            *(
                constraint
                for prefix in ("rapid_", "blitz_")
                for constraint in (
                    entry_rating_range(prefix),
                    models.CheckConstraint(
                        condition=Q(**{f"{prefix}entry_rated_games__lte": MAX_ENTRY_RATED_GAMES}),
                        name=f"player_{prefix}entry_rated_games_range",
                        violation_error_message=gettext_lazy(
                            "Rated games before entry cannot exceed 100,000."
                        ),
                    ),
                )
            ),
        ]
        # No index on the derived rating: a rating run rewrites every rated player's row, and
        # with no indexed column changing (and room on the page: fillfactor 45, migrations
        # 0005 and 0031) PostgreSQL rewrites it in place without touching the indexes (a
        # "HOT" update): 0.2 s instead of 1.5 s for 100,000 players. The standings sort at
        # read time.

    def __str__(self) -> str:
        return f"{self.name} ({self.fide_id})" if self.fide_id else self.name

    def save(self, *args, **kwargs) -> None:
        self.settle_national_id()
        if self._state.adding:
            self.start_from_entry()
        self.set_search_key()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "search_key"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("ladder:player", args=[self.pk])

    def set_search_key(self) -> None:
        """Set the search key of the player's name (every way players are written sets it)."""
        self.search_key = search_key(self.name)

    def start_from_entry(self) -> None:
        """Set the derived state of a player with no games, on every list: the entry data."""
        for fields in LIST_FIELDS.values():
            setattr(self, fields.rating, getattr(self, fields.entry_rating))
            setattr(self, fields.rated_games, getattr(self, fields.entry_rated_games))
            setattr(self, fields.peak_rating, self.entry_peak_on(fields))
            setattr(self, fields.last_rated_on, None)
            setattr(self, fields.last_change, None)

    def clean(self) -> None:
        errors = {}
        self.settle_national_id()
        if self.national_id and not self.national_federation:
            errors["national_federation"] = (
                "A national id needs the federation that issued it (or the player's federation)."
            )
        this_year = latest_birth_year()
        if self.birth_year is not None and self.birth_year > this_year:
            errors["birth_year"] = (
                f"The birth year {self.birth_year} is in the future (this is {this_year})."
            )
        for fields in LIST_FIELDS.values():
            rating, peak = (
                getattr(self, fields.entry_rating),
                getattr(self, fields.entry_peak_rating),
            )
            if peak is not None and rating is not None and peak < rating:
                errors[fields.entry_peak_rating] = (
                    "The peak rating cannot be lower than the entry rating."
                )
            if peak is not None and rating is None:
                errors[fields.entry_peak_rating] = (
                    "An unrated player has no peak rating; leave it blank or give an entry rating."
                )
        if errors:
            raise ValidationError(errors)

    def settle_national_id(self) -> None:
        """Trim the national id; its federation defaults to the player's (upper case), and
        is blank without an id."""
        self.national_id = self.national_id.strip()
        self.national_federation = self.national_federation.strip().upper()
        if self.national_id and not self.national_federation:
            self.national_federation = self.federation.strip().upper()
        if not self.national_id:
            self.national_federation = ""

    @property
    def entry_peak(self) -> int | None:
        """The peak on entry to the standard list: the one given, else the entry rating."""
        return self.entry_peak_on(LIST_FIELDS[RatingList.STANDARD])

    def entry_peak_on(self, fields: ListFields) -> int | None:
        """The peak on entry to a list: the one given, else the entry rating."""
        peak = getattr(self, fields.entry_peak_rating)
        return peak if peak is not None else getattr(self, fields.entry_rating)

    def on_list(self, rating_list: str) -> ListState:
        """The player's derived state on one list."""
        return ListState(rating_list, *_DERIVED[rating_list](self))


# Each list's derived fields of a player, read at once (a page of players reads a state a list
# a row).
_DERIVED = {name: operator.attrgetter(*fields.derived) for name, fields in LIST_FIELDS.items()}


class ListState(NamedTuple):
    """What one list says of a player now (derived: written by the rating runs).

    A named tuple, not a frozen dataclass, which sets each field through
    ``object.__setattr__``: a page of players makes one a list a row (three for the API's
    list), and the dataclass's were a twentieth of the page."""

    rating_list: str
    rating: int | None
    rated_games: int
    peak_rating: int | None
    last_rated_on: date | None
    last_change: int | None

    @property
    def label(self) -> str:
        return str(RatingList(self.rating_list).label)
