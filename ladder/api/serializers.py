"""Serializers of API v1: shapes and input checks only; the numbers come from ``ratings``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils.serializer_helpers import ReturnList
from rest_framework.validators import UniqueValidator

from ladder.api.exceptions import field_errors
from ladder.api.schema_constraints import score_words, time_control_pattern
from ladder.records import (
    K_ABOVE_MESSAGE,
    K_BELOW_MESSAGE,
    LIST_FIELDS,
    MAX_K,
    MAX_RATING,
    MIN_K,
    MIN_RATING,
    PERIOD_LABEL_VALIDATOR,
    PLAYER_ENTRY_FIELDS,
    RATING_ABOVE_MESSAGE,
    RATING_BELOW_MESSAGE,
    FideListEntry,
    Game,
    PeriodLog,
    Player,
    RatingList,
    RatingPeriod,
    Result,
    Tournament,
    default_list,
    kept_lists,
    latest_birth_year,
    parse_list,
    read_fide_id,
)
from ladder.records.translations import rules_text, rules_text_lazy
from ratings import publication, selectors
from ratings.models import RatingChange, RatingRun
from ratings.publication import official
from ratings.rules import calculator, fide


@extend_schema_field({"type": "string", "format": "decimal", "example": "0.50"})
class DecimalText(serializers.Field):
    """A ``Decimal`` shown as text with its exact digits ("0.5", "12.3456")."""

    def to_representation(self, value: Decimal) -> str:
        return str(value)


class RulesTextField(serializers.CharField):
    """A sentence of the rules (a K's reason, a rule line), in the answer's language."""

    def to_representation(self, value: object) -> str:
        return rules_text(value)


PERIOD_LABEL_PATTERN = "^[0-9A-Za-z][0-9A-Za-z._-]*$"  # PERIOD_LABEL_VALIDATOR's, for the schema


@extend_schema_field(
    {"type": "string", "pattern": PERIOD_LABEL_PATTERN, "maxLength": 20, "example": "2026-03"}
)
class PeriodLabelField(serializers.SlugRelatedField):
    """A period named by its label. A text no label could be (a NUL, a space, too long) is
    refused with the label's own sentence before any lookup: PostgreSQL refuses a NUL in a
    query parameter, and the schema says what a label is."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("queryset", RatingPeriod.objects.all())
        super().__init__(slug_field="label", **kwargs)

    def to_internal_value(self, data: Any) -> RatingPeriod:
        if not isinstance(data, str) or len(data) > 20:
            self.fail("does_not_exist", slug_name=self.slug_field, value=str(data)[:40])
        try:
            PERIOD_LABEL_VALIDATOR(data)
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.messages) from error
        return super().to_internal_value(data)


# --- lists ---------------------------------------------------------------------------------


class ListChoiceField(serializers.ChoiceField):
    """A list the club keeps (FIDE.md 9), as text: the choices are read from ``LADDER_LISTS``
    each time a serializer is built, so that the schema's enum follows the setting. The
    write path's validator checks the value and answers its own message."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_blank", True)
        choices = [(name, RatingList(name).label) for name in kept_lists()]
        super().__init__(choices=choices, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return data.strip()


@extend_schema_field({"type": "string", "enum": RatingList.values})
class ListQueryField(serializers.CharField):
    """``?list=``: a list the club keeps, read by ``parse_list`` (blank: the club's default)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("default", default_list)
        super().__init__(**kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if isinstance(data, str) and not data.strip():  # DRF keeps a blank as it is
            return parse_list("")
        return super().run_validation(data)

    def to_internal_value(self, data: Any) -> str:
        try:
            return parse_list(super().to_internal_value(data))
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from error


class ListQuery(serializers.Serializer):
    """``?list=``: standard, rapid or blitz."""

    list = ListQueryField()

    @classmethod
    def read(cls, query_params: Any) -> str:
        """The list asked for (400 with the field's sentence when the club keeps no such list),
        else the club's default list."""
        query = cls(data={"list": query_params["list"]} if "list" in query_params else {})
        query.is_valid(raise_exception=True)
        return str(query.validated_data["list"])


# --- players -------------------------------------------------------------------------------


class KSerializer(serializers.Serializer):
    value = serializers.IntegerField(help_text="K-factor (FIDE 8.3.3, or the club K).")
    reason = serializers.CharField(help_text="Why this K applies, in words.")


class PlayerRefSerializer(serializers.ModelSerializer):
    title = serializers.CharField(read_only=True, help_text="FIDE title, or empty.")

    class Meta:
        model = Player
        fields = ["id", "name", "fide_id", "title", "rating"]
        read_only_fields = fields


class OfficialListRefSerializer(serializers.Serializer):
    """The published list an official rating is read from."""

    period = serializers.CharField(help_text="The period's label, e.g. 2026-10.")
    period_id = serializers.IntegerField()
    revision = serializers.IntegerField(help_text="1: as first published; 2, 3...: revisions.")
    published_at = serializers.DateTimeField()


OFFICIAL_RATING_HELP = (
    "The official rating: the player's line on the last list published (the latest revision "
    "of the latest period closed); null while unrated there, when the player is not on it or "
    "when no list was published yet."
)
OFFICIAL_LIST_HELP = "Which published list `official_rating` is read from; null: none yet."
PROVISIONAL_HELP = (
    "True when `rating` (the live rating, which counts every game rated so far, the open "
    "period's included) differs from `official_rating`: it is provisional until published."
)


class ListRatingSerializer(serializers.Serializer):
    """A player on one list: the derived state, the K, and the entry data of that list."""

    rating = serializers.IntegerField(
        allow_null=True, help_text="The live rating (provisional); null while unrated."
    )
    official_rating = serializers.IntegerField(allow_null=True, help_text=OFFICIAL_RATING_HELP)
    official_list = OfficialListRefSerializer(allow_null=True, help_text=OFFICIAL_LIST_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    rated_games = serializers.IntegerField()
    peak_rating = serializers.IntegerField(allow_null=True)
    last_rated_on = serializers.DateField(allow_null=True)
    last_change = serializers.IntegerField(allow_null=True)
    k = KSerializer(allow_null=True, help_text="Current K and its reason; null while unrated.")
    inactive = serializers.BooleanField(help_text="No rated game on this list for 12 months.")
    entry_rating = serializers.IntegerField(allow_null=True)
    entry_rated_games = serializers.IntegerField()
    entry_peak_rating = serializers.IntegerField(allow_null=True)


class RatingsSerializer(serializers.Serializer):
    """A player's ratings keyed by list: only the lists the club keeps appear."""

    standard = ListRatingSerializer(required=False)
    rapid = ListRatingSerializer(required=False)
    blitz = ListRatingSerializer(required=False)


def _k(player: Player, year: int | None, rating_list: str) -> dict | None:
    return k_data(selectors.current_k(player, year=year, rating_list=rating_list))


def k_data(k: fide.KFactor | None, language: str | None = None) -> dict | None:
    """A K as the API writes it: its value and its reason, in the reader's language (or
    ``language``, read once by a caller that writes many)."""
    return None if k is None else {"value": k.value, "reason": rules_text(k.reason, language)}


def official_data(standing: official.Standing) -> dict:
    """The official rating, the list it is read from, and whether the live one differs."""
    published = standing.publication
    return {
        "official_rating": standing.official,
        "official_list": None
        if published is None
        else {
            "period": published.period.label,
            "period_id": published.period_id,
            "revision": published.revision,
            "published_at": published.published_at,
        },
        "provisional": standing.provisional,
    }


class FideOnListSerializer(serializers.Serializer):
    rating = serializers.IntegerField(allow_null=True, help_text="null: unrated on FIDE's list.")
    games = serializers.IntegerField(allow_null=True, help_text="Games in FIDE's last period.")
    k = serializers.IntegerField(allow_null=True)


class FideListSerializer(serializers.Serializer):
    """Documents ``PlayerSerializer.fide`` (built as plain values)."""

    month = serializers.CharField(help_text="The list's month, YYYY-MM.")
    name = serializers.CharField()
    federation = serializers.CharField()
    inactive = serializers.BooleanField()
    standard = FideOnListSerializer()
    rapid = FideOnListSerializer()
    blitz = FideOnListSerializer()


def fide_list_data(row: FideListEntry) -> dict:
    """A player's row of FIDE's list, as the API gives it."""
    lists = {}
    for name in ("standard", "rapid", "blitz"):
        rating, games, k = row.on_list(name)
        lists[name] = {"rating": rating, "games": games, "k": k}
    return {"month": f"{row.month:%Y-%m}", "name": row.name, "federation": row.federation,
            "inactive": row.inactive, **lists}  # fmt: skip


class PlayerListSerializer(serializers.ListSerializer):
    """Players read together: the official lists of the whole page in two queries."""

    def to_representation(self, data: Any) -> list:
        players = list(data.all() if hasattr(data, "all") else data)
        cast(dict, self._context)["officials"] = official.official_lists(kept_lists(), players)
        cast(dict, self._context)["fide_rows"] = FideListEntry.objects.latest_for(
            p.fide_id for p in players
        )
        return super().to_representation(players)


def _unique_message(model_field: models.Field) -> str:
    """The model's own sentence for a value another record holds, as the database's refusal
    says it too (``actions.save_player``): DRF would write the model's name in lower case."""
    model = model_field.model
    error = model().unique_error_message(model, (model_field.name,))
    return str(error.message) % error.params


def _bound_messages(model: type[models.Model]) -> dict[str, dict[str, dict[str, str]]]:
    """Each field's own sentence for its bounds (a MinValueValidator or MaxValueValidator
    given a message), as ``extra_kwargs``: DRF turns the validators into ``min_value`` and
    ``max_value`` and would write its own sentence, not the one every other door shows."""
    found: dict[str, dict[str, dict[str, str]]] = {}
    for field in model._meta.concrete_fields:
        for validator in field.validators:
            if type(validator) not in (MinValueValidator, MaxValueValidator):
                continue
            bound = cast(MinValueValidator | MaxValueValidator, validator)
            if bound.message != type(bound).message:
                kind = "min_value" if isinstance(bound, MinValueValidator) else "max_value"
                messages = found.setdefault(field.name, {"error_messages": {}})["error_messages"]
                messages[kind] = str(bound.message)
    return found


class FideIdField(serializers.IntegerField):
    """A FIDE id as every door reads one: a JSON number, or a string through ``read_fide_id``
    (DRF's integer field would take any Unicode digit, "١٢٣٤٥" as 12345)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, str) and data.strip():
            try:
                data = read_fide_id(data)
            except DjangoValidationError as error:
                raise serializers.ValidationError(error.messages) from error
        return super().to_internal_value(data)


class PlayerSerializer(serializers.ModelSerializer):
    """A player: entry data (writable) and the current state derived from every game.

    The flat v1 fields are the standard list's; ``ratings`` has every list the club keeps.
    """

    k = serializers.SerializerMethodField(help_text="Current K and its reason; null while unrated.")
    level = serializers.SerializerMethodField(help_text="FIDE title, else the rating level.")
    inactive = serializers.SerializerMethodField(help_text="No rated game for 12 months.")
    ratings = serializers.SerializerMethodField(
        help_text="The player on each list the club keeps (standard, rapid, blitz): rating, "
        "official rating, games, peak, K, activity and entry data. The flat fields are the "
        "standard list's."
    )
    official_rating = serializers.SerializerMethodField(help_text=OFFICIAL_RATING_HELP)
    official_list = serializers.SerializerMethodField(help_text=OFFICIAL_LIST_HELP)
    provisional = serializers.SerializerMethodField(help_text=PROVISIONAL_HELP)
    fide = serializers.SerializerMethodField(
        help_text="The player on FIDE's newest list imported (null: not on it, or no FIDE id): "
        "its month, and per list FIDE's rating (null: unrated), games in FIDE's last period "
        "and K, beside the club's own ratings."
    )

    # Entry data that agree with each other (a peak at least the rating), as a club enters it.
    field_examples = {
        "entry_rating": 1650, "entry_rated_games": 30, "entry_peak_rating": 1702,
        "rapid_entry_rating": 1610, "rapid_entry_rated_games": 12,
        "rapid_entry_peak_rating": 1640, "blitz_entry_rating": 1580,
        "blitz_entry_rated_games": 20, "blitz_entry_peak_rating": 1625,
    }  # fmt: skip
    field_bounds = {"birth_year": {"maximum": latest_birth_year}}  # the model's clean()

    class Meta:
        model = Player
        list_serializer_class = PlayerListSerializer
        fields = [
            "id", "name", "fide_id", "birth_year", "sex", "federation", "title",
            "national_federation", "national_id",
            "entry_rating", "entry_rated_games", "entry_peak_rating",
            "rapid_entry_rating", "rapid_entry_rated_games", "rapid_entry_peak_rating",
            "blitz_entry_rating", "blitz_entry_rated_games", "blitz_entry_peak_rating",
            "rating", "official_rating", "official_list", "provisional",
            "rated_games", "peak_rating", "last_rated_on", "last_change",
            "k", "level", "inactive", "ratings", "fide", "created", "updated",
        ]  # fmt: skip
        read_only_fields = [
            "rating", "rated_games", "peak_rating", "last_rated_on", "last_change",
            "created", "updated",
        ]  # fmt: skip
        # The model's sentences for its bounds (DRF would write its own).
        extra_kwargs = {
            "rating": {"help_text": "The live rating (provisional); null while unrated."},
            **_bound_messages(Player),
        }

    def build_standard_field(self, field_name: str, model_field: models.Field) -> tuple[type, dict]:
        """The model's fields as DRF builds them, the FIDE id read as every door reads it."""
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        for validator in kwargs.get("validators", []):
            if isinstance(validator, UniqueValidator):
                validator.message = _unique_message(model_field)
        return (FideIdField if field_name == "fide_id" else field_class), kwargs

    def _standings(self, player: Player) -> dict[str, official.Standing]:
        """The player on each kept list's official list: read for the whole page by the view
        (``officials`` in the context), else for this one player (two queries)."""
        officials = self.context.get("officials")
        if officials is None:
            read = cast(dict, self.context).setdefault("officials_read", {})
            if player.pk not in read:
                read[player.pk] = official.official_lists(kept_lists(), [player])
            officials = read[player.pk]
        return {name: o.standing(player) for name, o in officials.items()}

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_official_rating(self, player: Player) -> int | None:
        return self._official_on(player)["official_rating"]

    @extend_schema_field(OfficialListRefSerializer(allow_null=True))
    def get_official_list(self, player: Player) -> dict | None:
        return self._official_on(player)["official_list"]

    def get_provisional(self, player: Player) -> bool:
        return bool(self._official_on(player)["provisional"])

    def _official_on(self, player: Player) -> dict:
        standing = self._standings(player).get(RatingList.STANDARD)
        if standing is None:  # a club without the standard list: nothing official on it
            standing = official.Standing(None, player.rating, None, False)
        return official_data(standing)

    @extend_schema_field(KSerializer(allow_null=True))
    def get_k(self, player: Player) -> dict | None:
        return _k(player, self.context.get("year"), RatingList.STANDARD)

    @extend_schema_field(FideListSerializer(allow_null=True))
    def get_fide(self, player: Player) -> dict | None:
        rows = self.context.get("fide_rows")
        if rows is None:  # one player: one query
            rows = FideListEntry.objects.latest_for([player.fide_id])
        row = rows.get(player.fide_id) if player.fide_id else None
        return fide_list_data(row) if row is not None else None

    @extend_schema_field(RatingsSerializer)
    def get_ratings(self, player: Player) -> dict:
        year = self.context.get("year")
        standings = self._standings(player)
        ratings = {}
        for name in kept_lists():
            fields = LIST_FIELDS[name]
            state = player.on_list(name)
            ratings[name] = {
                "rating": state.rating,
                **official_data(standings[name]),
                "rated_games": state.rated_games,
                "peak_rating": state.peak_rating,
                "last_rated_on": state.last_rated_on,
                "last_change": state.last_change,
                "k": _k(player, year, name),
                "inactive": selectors.is_inactive(player, rating_list=name),
                "entry_rating": getattr(player, fields.entry_rating),
                "entry_rated_games": getattr(player, fields.entry_rated_games),
                "entry_peak_rating": getattr(player, fields.entry_peak_rating),
            }
        # Plain values (the JSON encoder writes the dates as ISO text, as DateField does):
        # a RatingsSerializer per player deep-copied its fields each time (measured: four
        # fifths of a 50-player page). RatingsSerializer documents the shape in the schema.
        return ratings

    def get_level(self, player: Player) -> str:
        return fide.level(player.title, player.rating)

    def get_inactive(self, player: Player) -> bool:
        return selectors.is_inactive(player)

    def validate(self, attrs: dict) -> dict:
        """Run the model's own checks (peak below entry rating, birth year in the future...)."""
        candidate = Player(**{**self._current(), **attrs})
        try:
            candidate.clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(field_errors(error)) from error
        return attrs

    def _current(self) -> dict:
        if self.instance is None:
            return {}
        return {name: getattr(self.instance, name) for name in PLAYER_ENTRY_FIELDS}


# --- periods -------------------------------------------------------------------------------


class PeriodRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingPeriod
        fields = ["id", "label", "start", "end", "status"]
        read_only_fields = fields


class PeriodSerializer(serializers.ModelSerializer):
    games = serializers.IntegerField(source="game_count", read_only=True, help_text="Games.")

    class Meta:
        model = RatingPeriod
        fields = ["id", "label", "start", "end", "status", "closed_at", "games"]
        read_only_fields = fields


class AdministratorField(serializers.CharField):
    """Who did it: the user name for the club's staff (Django staff, or who may close and
    reopen periods); for everyone else only the role, since the administrators' user names
    are the first half of their logins."""

    ROLE = "Club administrator"

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("default", None)
        kwargs.setdefault("help_text", f"The user name for staff; '{self.ROLE}' for everyone else.")
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> str:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        staff = user is not None and (user.is_staff or user.has_perm("ladder.change_ratingperiod"))
        return str(value) if staff else self.ROLE


class PeriodLogSerializer(serializers.ModelSerializer):
    user = AdministratorField(source="user.username")

    class Meta:
        model = PeriodLog
        fields = ["action", "reason", "user", "at"]
        read_only_fields = fields


class ChangeSerializer(serializers.ModelSerializer):
    """One player's period: the whole calculation (a row of ``RatingChange``)."""

    # Text, not an enum: OpenAPI enums are named by field, and "status" already names the
    # period's open/closed.
    status = serializers.CharField(
        read_only=True,
        help_text="rated, first_rating, unrated, below_floor, or adjusted (no game: a one-off "
        "adjustment of the closing list only).",
    )
    adjustment = serializers.IntegerField(
        read_only=True,
        help_text="Points a one-off adjustment of FIDE's (FIDE.md 10.2) added to the rating "
        "after the period's games (0: none); rating_after includes them.",
    )
    adjusted_on = serializers.DateField(
        read_only=True, allow_null=True, help_text="The day FIDE dates that adjustment."
    )
    adjustment_reason = RulesTextField(
        read_only=True, help_text="Why, and the rule that made it (empty: none)."
    )
    score = DecimalText(read_only=True)
    expected = DecimalText(read_only=True, help_text="Sum of PD.")
    change_exact = DecimalText(read_only=True, help_text="K × ΣdR before the one rounding.")
    k_reason = RulesTextField(read_only=True, max_length=120)

    class Meta:
        model = RatingChange
        fields = [
            "status", "rating_before", "k", "k_reason", "k_applied", "games", "score",
            "expected", "change_exact", "change", "rating_after", "performance",
            "rated_games_after", "adjustment", "adjusted_on", "adjustment_reason",
        ]  # fmt: skip
        read_only_fields = fields


class ReportRowSerializer(ChangeSerializer):
    player = PlayerRefSerializer(read_only=True)

    class Meta(ChangeSerializer.Meta):
        fields = ["player", *ChangeSerializer.Meta.fields]
        read_only_fields = fields


class DifferenceSerializer(serializers.Serializer):
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name", default=None, allow_null=True)
    old_rating = serializers.IntegerField(allow_null=True, help_text="As published before.")
    new_rating = serializers.IntegerField(allow_null=True)
    old_change = serializers.IntegerField()
    new_change = serializers.IntegerField()


class PublicationRefSerializer(serializers.Serializer):
    """A publication of a period's list: revision 1 when it closed, then each revision."""

    revision = serializers.IntegerField()
    published_at = serializers.DateTimeField()
    published_by = AdministratorField(source="published_by.username")
    reason = serializers.CharField(help_text="Why the period was reopened (revisions).")
    corrected_in = serializers.CharField(
        source="corrected_in.label", default=None, allow_null=True,
        help_text="The earlier period whose correction flowed into this list.",
    )  # fmt: skip
    players_changed = serializers.IntegerField()


class PublicationSerializer(PublicationRefSerializer):
    """One publication of the period's list with each player's difference."""

    differences = DifferenceSerializer(
        source="changes", many=True, help_text="Each player whose line changed."
    )


class PeriodDetailSerializer(PeriodSerializer):
    """A period with its rating report, the record of closes and reopens, and its list's
    publications (first and revisions)."""

    log = PeriodLogSerializer(many=True, read_only=True)
    rating_list = serializers.SerializerMethodField(help_text="The list the report is of.")
    report = serializers.SerializerMethodField()
    publications = serializers.SerializerMethodField(
        help_text="The list as published when the period closed, then each revision: when, "
        "by whom, why, and each player whose rating or change it changed (old and new)."
    )

    class Meta(PeriodSerializer.Meta):
        fields = [*PeriodSerializer.Meta.fields, "log", "rating_list", "report", "publications"]
        read_only_fields = fields

    @extend_schema_field(PublicationSerializer(many=True))
    def get_publications(self, period: RatingPeriod) -> list:
        found = []
        for p, changes in publication.revisions(period, self.get_rating_list(period)):
            p.changes = changes  # type: ignore[attr-defined]  # the serializer's "differences"
            found.append(p)
        return cast(list, PublicationSerializer(found, many=True, context=self.context).data)

    @extend_schema_field(serializers.ChoiceField(choices=RatingList.choices))
    def get_rating_list(self, period: RatingPeriod) -> str:
        return self.context.get("rating_list") or default_list()

    @extend_schema_field(ReportRowSerializer(many=True))
    def get_report(self, period: RatingPeriod) -> ReturnList:
        report = selectors.period_report(period, self.get_rating_list(period))
        rows = ReportRowSerializer(report, many=True)
        return cast(ReturnList, rows.data)  # many=True builds a ListSerializer; stubs can't tell


class ReasonField(serializers.CharField):
    """Why a period is reopened, checked by the text rules of the record that keeps it
    (PeriodLog). Not blank (the schema says so); a blank one is let through to the write
    path, which refuses it with its own sentence."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("validators", PeriodLog._meta.get_field("reason").validators)
        super().__init__(**kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if isinstance(data, str) and not data.strip():
            return ""
        return super().run_validation(data)


class ReopenSerializer(serializers.Serializer):
    reason = ReasonField(help_text="Why the period is reopened; it is recorded.")


# --- the rating list ----------------------------------------------------------------------


class ListEntrySerializer(serializers.Serializer):
    """A line of the rating list: ``ListEntry.as_dict()`` (the rating_list JSON) plus level."""

    id = serializers.IntegerField(help_text="The player's id.")
    name = serializers.CharField()
    fide_id = serializers.IntegerField(allow_null=True)
    rating_before = serializers.IntegerField(allow_null=True)
    rating = serializers.IntegerField(allow_null=True, help_text="Null while unrated.")
    change = serializers.IntegerField()
    k = serializers.IntegerField(allow_null=True, help_text="K applied (700 rule).")
    k_published = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField(help_text="Rated games in the period.")
    total_games = serializers.IntegerField(help_text="Rated games in all.")
    status = serializers.CharField(help_text="rated, first rating, unrated, fell below floor.")
    score = DecimalText()
    expected = DecimalText()
    change_exact = DecimalText()
    performance = serializers.IntegerField(allow_null=True)
    inactive = serializers.BooleanField()
    level = serializers.CharField(help_text="FIDE title, else the rating level.")

    def to_representation(self, entry: selectors.ListEntry) -> dict:
        return {**entry.as_dict(), "level": entry.level}


class PublishedLineSerializer(serializers.Serializer):
    """A line of a list as published (``as_published``): what the publication kept."""

    id = serializers.IntegerField(source="player_id", help_text="The player's id.")
    name = serializers.CharField(source="player.name")
    fide_id = serializers.IntegerField(source="player.fide_id", allow_null=True)
    rating = serializers.IntegerField(allow_null=True, help_text="Null: unrated on the list.")
    change = serializers.IntegerField()
    k = serializers.IntegerField(allow_null=True, help_text="K applied (700 rule).")
    games = serializers.IntegerField(help_text="Rated games in the period.")
    total_games = serializers.IntegerField(help_text="Rated games in all.")
    status = serializers.CharField(help_text="rated, first rating, unrated, fell below floor.")
    level = serializers.SerializerMethodField(help_text="FIDE title, else the rating level.")
    revision = serializers.SerializerMethodField(
        help_text="The revision of the published list the line is from (a live line has none)."
    )

    def get_level(self, line: Any) -> str:
        return fide.level(line.player.title, line.rating)

    def get_revision(self, line: Any) -> int:
        return int(self.context["revision"])


class RatingListQuery(serializers.Serializer):
    """The rating list's parameters: period, list, the list as published, or in force on a
    date."""

    period = serializers.IntegerField(required=False, min_value=1)
    list = ListQueryField()
    as_published = serializers.BooleanField(required=False, default=False)
    revision = serializers.IntegerField(required=False, min_value=1)
    date = serializers.DateField(required=False)

    def validate(self, attrs: dict) -> dict:
        """A revision is of a published list: with ``as_published=false`` it is refused. A
        date chooses the period and the revision itself: a period or revision given with it
        must be those (the view checks), and ``as_published=false`` is refused."""
        if "date" in attrs:
            if "as_published" in self.initial_data and not attrs["as_published"]:
                raise serializers.ValidationError(
                    {
                        "date": [
                            gettext(
                                "A date chooses the list in force that day as it was "
                                "published: drop as_published=false."
                            )
                        ]
                    }  # fmt: skip
                )
            attrs["as_published"] = True
            return attrs
        if "revision" in attrs:
            if "as_published" in self.initial_data and not attrs["as_published"]:
                raise serializers.ValidationError(
                    {
                        "revision": [
                            gettext(
                                "A revision is of a list as published: drop as_published=false."
                            )
                        ]
                    }
                )
            attrs["as_published"] = True
        return attrs


# --- history -------------------------------------------------------------------------------


class LineSerializer(serializers.Serializer):
    """One game of the period seen from the player's side."""

    game = serializers.IntegerField(source="game.pk")
    date = serializers.DateField(source="game.date")
    colour = serializers.ChoiceField(choices=["white", "black"])
    opponent = PlayerRefSerializer()
    result = serializers.CharField(source="game.result")
    score = DecimalText(allow_null=True, help_text="Null for an unplayed game.")
    opponent_rating = serializers.IntegerField(
        allow_null=True, help_text="The opponent's rating used: the list that opened the period."
    )
    rated = serializers.BooleanField()
    note = serializers.CharField()
    difference = serializers.IntegerField(
        source="calculation.difference", allow_null=True, default=None, help_text="Real D."
    )
    difference_used = serializers.IntegerField(
        source="calculation.difference_used",
        allow_null=True,
        default=None,
        help_text="D used, after the 400-point rule.",
    )
    expected = DecimalText(source="calculation.expected", allow_null=True, default=None)
    delta = DecimalText(source="calculation.delta", allow_null=True, default=None)

    class Meta:
        fields = "__all__"


class HistorySerializer(ChangeSerializer):
    period = PeriodRefSerializer(read_only=True)
    lines = serializers.SerializerMethodField()

    class Meta(ChangeSerializer.Meta):
        fields = ["period", *ChangeSerializer.Meta.fields, "lines"]
        read_only_fields = fields

    @extend_schema_field(LineSerializer(many=True))
    def get_lines(self, change: RatingChange) -> list[dict]:
        lines = self.context.get("lines", {}).get(change.period_id, [])
        # One line serializer for the page's periods (its fields built once, not once a
        # period: a third of an uncached history's time on a 5,000-player club).
        child = cast(dict, self.context).setdefault("line_serializer", LineSerializer())
        return [child.to_representation(line) for line in lines]


# --- games ---------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "enum": Result.values})
class ResultField(serializers.CharField):
    """A result as the other doors take it (``1-0``, ``½-½``, ``draw``...), checked by the write
    path's validator so that every door answers the same sentence."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("help_text", "1-0, 0-1, 1/2-1/2 (also ½-½, =, draw), +/-, -/+ or 0-0.")
        super().__init__(**kwargs)


@extend_schema_field({"type": "string", "pattern": time_control_pattern()})
class TimeControlField(serializers.CharField):
    """A time control, read by the write path's validator (``fide.parse_time_control``)."""


class GameSerializer(serializers.ModelSerializer):
    """A game: write the players as ids, read them back with their names and ratings."""

    period = PeriodRefSerializer(read_only=True)
    # Typed as any field so that GameReadSerializer may read them back as objects.
    white: serializers.Field[Any, Any, Any, Any]
    black: serializers.Field[Any, Any, Any, Any]
    white = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    black = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    result = ResultField()
    rating_list = ListChoiceField(
        required=False,
        help_text="The list the game is rated on. Blank or absent: the time control's list, "
        "else the club's default (standard). A list the time control contradicts is refused.",
    )
    time_control = TimeControlField(
        required=False,
        allow_blank=True,
        max_length=Game._meta.get_field("time_control").max_length,
        help_text="Base minutes + increment seconds, e.g. 90+30 (standard), 15+10 (rapid), "
        "3+2 (blitz); it chooses the list (FIDE.md 9).",
    )
    tournament = serializers.PrimaryKeyRelatedField(
        queryset=Tournament.objects.all(),
        required=False,
        allow_null=True,
        help_text="The tournament it was played in (its id, /api/v1/tournaments/): the list in "
        "force on its first day rates the game, in the period that rates the tournament "
        "(FIDE.md 10.1). Absent or null: the game's event inside its month.",
    )

    field_examples = {
        "date": "2026-03-10", "white": 1, "black": 2, "result": "1/2-1/2", "event": "Club Cup",
        "rating_list": "standard", "time_control": "90+30", "tournament": 1,
    }  # fmt: skip

    class Meta:
        model = Game
        fields = [
            "id", "date", "period", "white", "black", "result", "event", "round",
            "rating_list", "time_control", "tournament", "created", "updated",
        ]  # fmt: skip
        read_only_fields = ["id", "period", "created", "updated"]

    def to_representation(self, game: Game) -> dict:
        data = super().to_representation(game)
        data["white"] = PlayerRefSerializer(game.white).data
        data["black"] = PlayerRefSerializer(game.black).data
        return data


class GameReadSerializer(GameSerializer):
    """The shape of a game in responses (players as objects)."""

    white = PlayerRefSerializer(read_only=True)
    black = PlayerRefSerializer(read_only=True)


# --- calculator ----------------------------------------------------------------------------


@extend_schema_field({"type": "string", "enum": score_words(), "example": "½"})
class ScoreField(serializers.CharField):
    """A score as the calculator page takes it: 1, ½ or 0, or a word (win, draw, loss...)."""

    def to_internal_value(self, data) -> int:  # type: ignore[override]
        word = super().to_internal_value(data)
        units = calculator.score_units(word)
        if units is None:
            raise serializers.ValidationError(rules_text(calculator.score_message(word)))
        return units


class RatingField(serializers.IntegerField):
    """A rating to calculate with: the bounds and sentences of the calculator page."""

    def __init__(self, **kwargs):
        super().__init__(
            min_value=MIN_RATING,
            max_value=MAX_RATING,
            error_messages={"min_value": RATING_BELOW_MESSAGE, "max_value": RATING_ABOVE_MESSAGE},
            **kwargs,
        )


class CalculatorGameSerializer(serializers.Serializer):
    opponent = RatingField(help_text="The opponent's rating.")
    score = ScoreField(help_text=f"Your score: {calculator.SCORE_HELP}.")


class CalculatorSerializer(serializers.Serializer):
    """One game (``opponent``) or a whole event (``games``), never both."""

    # Read by validate(), by the two shapes the schema offers (OneGameCalculatorSerializer,
    # EventCalculatorSerializer) and by the schema's minItems (ValidatorsSchema).
    exactly_one_of = ("opponent", "games")
    non_empty = ("games",)

    rating = RatingField(help_text="Your rating before the game or event.")
    k = serializers.IntegerField(
        min_value=MIN_K,
        max_value=MAX_K,
        error_messages={"min_value": K_BELOW_MESSAGE, "max_value": K_ABOVE_MESSAGE},
        help_text=f"Your K-factor, from {MIN_K} to {MAX_K}.",
    )
    method = serializers.ChoiceField(
        choices=list(calculator.METHOD_LABELS.items()),
        required=False,
        help_text="fide: table 8.1.2; elo: the logistic formula. Default: the club's method.",
    )
    apply_cap = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Apply the 400-point rule (8.3.1). Default: on with fide, off with elo.",
    )
    apply_700 = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Apply the 700 rule: K × n at most 700 (8.3.3). Default: on with fide, off "
        "with elo.",
    )
    exemption = serializers.BooleanField(
        default=True,
        help_text="Players rated 2650+ use the real difference (8.3.1 from 1 October 2025).",
    )
    opponent = RatingField(required=False, help_text="One game: the opponent's rating.")
    # many=True hands max_length on to the ListSerializer; the stubs know only allow_empty.
    games = CalculatorGameSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        max_length=calculator.MAX_EVENT_GAMES,
        error_messages={"max_length": rules_text_lazy(calculator.EVENT_TOO_LONG_MESSAGE)},
        help_text=f"A whole event: at most {calculator.MAX_EVENT_GAMES} games.",
    )

    def validate(self, attrs: dict) -> dict:
        if sum(name in attrs for name in self.exactly_one_of) != 1:
            raise serializers.ValidationError(
                gettext("Give either one opponent's rating or a list of games, not both.")
            )
        for name in self.non_empty:
            if name in attrs and not attrs[name]:
                raise serializers.ValidationError(
                    {name: rules_text(calculator.EVENT_EMPTY_MESSAGE)}
                )
        return attrs


class _OneOfCalculatorSerializer(CalculatorSerializer):
    """The calculator's body with one of ``exactly_one_of`` (``given``), required (schema)."""

    given = ""

    def get_fields(self) -> dict:
        fields = super().get_fields()
        for name in self.exactly_one_of:
            if name != self.given:
                del fields[name]
        fields[self.given].required = True
        return fields


class OneGameCalculatorSerializer(_OneOfCalculatorSerializer):
    """One game: win, draw and loss against ``opponent``."""

    given = "opponent"


class EventCalculatorSerializer(_OneOfCalculatorSerializer):
    """A whole event: ``games``, each an opponent's rating and a score."""

    given = "games"


class CalculatorLineSerializer(serializers.Serializer):
    opponent_rating = serializers.IntegerField()
    score = DecimalText()
    difference = serializers.IntegerField(help_text="Real D.")
    difference_used = serializers.IntegerField(help_text="D used (400-point rule).")
    expected = DecimalText(help_text="PD.")
    delta = DecimalText(help_text="dR = score − PD.")


class CalculationSerializer(serializers.Serializer):
    lines = CalculatorLineSerializer(many=True)
    k = serializers.IntegerField()
    k_applied = serializers.IntegerField(help_text="K after the 700 rule.")
    score = DecimalText()
    expected = DecimalText()
    delta = DecimalText(help_text="ΣdR.")
    change_exact = DecimalText(help_text="K × ΣdR.")
    change = serializers.IntegerField(help_text="Rounded once, half away from zero.")
    rating_after = serializers.IntegerField()


class OutcomesSerializer(serializers.Serializer):
    win = CalculationSerializer()
    draw = CalculationSerializer()
    loss = CalculationSerializer()


class CalculatorResultSerializer(serializers.Serializer):
    method = serializers.ChoiceField(choices=list(calculator.METHOD_LABELS.items()))
    outcomes = OutcomesSerializer(required=False, help_text="One game: win, draw and loss.")
    opponent_outcomes = OutcomesSerializer(
        required=False,
        help_text="One game, the opponent's side with the same K: under `win` what your win "
        "does to the opponent, and so on.",
    )
    event = CalculationSerializer(required=False, help_text="A whole event.")


# --- errors (schema only) ------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """``{"field": ["message", ...]}``; errors not tied to a field go under non_field_errors."""

    non_field_errors = serializers.ListField(child=serializers.CharField(), required=False)


# --- rating runs ---------------------------------------------------------------------------


class RatingRunSerializer(serializers.ModelSerializer):
    """A rating run: what asked for it and what it did (the error text stays in the admin)."""

    from_period = serializers.CharField(
        source="from_period.label", default=None, allow_null=True, help_text="Null: the first."
    )
    status = serializers.CharField(help_text="queued, running, done or failed.")

    class Meta:
        model = RatingRun
        fields = [
            "id", "status", "rating_list", "reason", "changes", "from_period", "requested_at",
            "last_change_at",
            "started_at", "finished_at", "attempts", "periods", "players_changed",
            "rows_written", "summary",
        ]  # fmt: skip
        read_only_fields = fields


class FreshnessSerializer(serializers.Serializer):
    rated_up_to = serializers.DateTimeField(
        allow_null=True, help_text="The latest change that a finished rating run has rated."
    )
    pending = serializers.IntegerField(
        help_text="Rating runs queued or running: results entered since are still being rated."
    )
    failed_run = serializers.IntegerField(
        allow_null=True, help_text="The latest run, when it failed and none has succeeded since."
    )
    current = serializers.BooleanField(help_text="Every change is rated.")
