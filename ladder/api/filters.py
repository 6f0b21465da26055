"""Query-string filters of the list endpoints (django-filter)."""

from __future__ import annotations

from datetime import MAXYEAR, MINYEAR
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import F, Q
from drf_spectacular.utils import extend_schema_field
from rest_framework.filters import OrderingFilter

from ladder.api.serializers import ListQuery
from ladder.records import (
    LIST_FIELDS,
    FideIdFormField,
    Game,
    PeriodStatus,
    Player,
    RatingList,
    RatingPeriod,
    Result,
    Title,
    parse_list,
)
from ratings.models import RatingRun, RunStatus

LIST_LABEL = "standard, rapid or blitz."


class ListFormField(django_filters.fields.ChoiceField):
    """``?list=`` read by ``parse_list``, as every door reads it; blank stays blank (a filter
    then keeps every list). The choices are FIDE's lists, for the schema."""

    def to_python(self, value: Any) -> str:
        text = forms.CharField().to_python(value)
        if not text:
            return ""
        try:
            return parse_list(text)
        except ValueError as error:
            # The sentence names the value asked, which may hold a "%": as a parameter, never
            # formatted again (django-filter formats every message with its parameters).
            raise forms.ValidationError(
                "%(sentence)s", code="invalid_list", params={"sentence": str(error)}
            ) from error

    def validate(self, value: Any) -> None:
        forms.Field.validate(self, value)  # parse_list has checked the choice


class ListFilter(django_filters.ChoiceFilter):
    field_class = ListFormField

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=RatingList.choices, **kwargs)


def list_filter(field_name: str, label: str = LIST_LABEL) -> ListFilter:
    """``?list=``: one of the lists the club keeps."""
    return ListFilter(field_name=field_name, label=label)


def asked_list(query_params: Any) -> str:
    """The list ``?list=`` names, else the club's default; a list the club does not keep is a
    400 with the field's sentence."""
    return ListQuery.read(query_params)


# The widest whole number the databases compare (a SQL bigint): beyond it SQLite and
# PostgreSQL fail (a 500) rather than find nothing.
MIN_QUERY_INTEGER, MAX_QUERY_INTEGER = -(2**63), 2**63 - 1


# drf-spectacular would say "number" of a NumberFilter, without the bounds.
@extend_schema_field(
    {"type": "integer", "minimum": MIN_QUERY_INTEGER, "maximum": MAX_QUERY_INTEGER}
)
class IntegerFilter(django_filters.NumberFilter):
    """A whole number a database column can hold (django-filter's NumberFilter takes decimals:
    "1e300", "0.5")."""

    field_class = forms.IntegerField

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", MIN_QUERY_INTEGER)
        kwargs.setdefault("max_value", MAX_QUERY_INTEGER)
        super().__init__(**kwargs)


@extend_schema_field({"type": "integer", "minimum": MINYEAR, "maximum": MAXYEAR})
class YearFilter(IntegerFilter):
    """A calendar year, as dates hold one."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=MINYEAR, max_value=MAXYEAR, **kwargs)


class FideIdFilter(django_filters.NumberFilter):
    """A FIDE id, read as every door reads one (``read_fide_id``)."""

    field_class = FideIdFormField


class PlayerFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        method="filter_search", label="Part of the name, or the exact FIDE id or national id."
    )
    national_id = django_filters.CharFilter(
        method="filter_national_id",
        label="A national id: `12345`, or with its federation, `NOR:12345`.",
    )
    rated = django_filters.BooleanFilter(
        method="filter_rated", label="Rated (true) or unrated on the list (`list`)."
    )
    title = django_filters.ChoiceFilter(choices=Title.choices)
    federation = django_filters.CharFilter(lookup_expr="iexact", label="FIDE code, e.g. ENG.")
    fide_id = FideIdFilter()
    rating_min = IntegerFilter(method="filter_rating", label="Rating on the list, at least.")
    rating_max = IntegerFilter(method="filter_rating", label="Rating on the list, at most.")

    class Meta:
        model = Player
        fields: list[str] = []

    def _rating(self) -> str:
        """The rating column of the list asked for (default: the club's default list)."""
        return LIST_FIELDS[parse_list(self.form.cleaned_data.get("list"))].rating

    def filter_search(self, queryset, name, value):
        return queryset.search(value)

    def filter_national_id(self, queryset, name, value):
        return queryset.national(value)

    def filter_list(self, queryset, name, value):
        return queryset  # read by the other filters and by the ordering

    def filter_rated(self, queryset, name, value):
        return queryset.filter(**{f"{self._rating()}__isnull": not value})

    def filter_rating(self, queryset, name, value):
        lookup = "gte" if name == "rating_min" else "lte"
        return queryset.filter(**{f"{self._rating()}__{lookup}": value})


# ``list`` names a builtin: set after the class body, which reads ``list[str]``.
PlayerFilter.base_filters["list"] = ListFilter(
    method="filter_list",
    label="The list that `rated`, `rating_min`, `rating_max` and `ordering=rating` read "
    "(default: the club's default list, standard when it keeps it).",
)


class GameFilter(django_filters.FilterSet):
    period = IntegerFilter(field_name="period_id", label="Period id.")
    period_label = django_filters.CharFilter(field_name="period__label", label="e.g. 2026-03.")
    player = IntegerFilter(method="filter_player", label="Player id, either colour.")
    event = django_filters.CharFilter(lookup_expr="icontains", label="Part of the event name.")
    date_from = django_filters.DateFilter(
        field_name="date", lookup_expr="gte", label="On or after."
    )
    date_to = django_filters.DateFilter(field_name="date", lookup_expr="lte", label="On or before.")
    white = IntegerFilter(field_name="white_id", label="White's player id.")
    black = IntegerFilter(field_name="black_id", label="Black's player id.")
    result = django_filters.ChoiceFilter(choices=Result.choices)

    class Meta:
        model = Game
        fields: list[str] = []

    def filter_player(self, queryset, name, value):
        return queryset.filter(Q(white_id=value) | Q(black_id=value))


GameFilter.base_filters["list"] = list_filter("rating_list", "The list the game is rated on.")


class PeriodFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=PeriodStatus.choices)
    year = YearFilter(field_name="start__year", label="Calendar year of start.")

    class Meta:
        model = RatingPeriod
        fields = ["label"]


class RatingRunFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=RunStatus.choices)

    class Meta:
        model = RatingRun
        fields: list[str] = []


RatingRunFilter.base_filters["list"] = list_filter("rating_list", "The list the run rated.")


class StableOrderingFilter(OrderingFilter):
    """DRF's ``?ordering=``, the same on every database and on every page.

    The databases disagree on where a missing value goes (PostgreSQL puts it first when
    descending, SQLite first when ascending), and rows that tie (two players rated 2000) came
    in whatever order the database read them, so that paging through a list could show a row
    twice and skip another. Here the rows without a value come last either way (an unrated
    player after every rated one), and ties go by id, in the direction of the first field."""

    ordering_description = (
        "Which field to order the results by (`-field` descending; several, comma-separated). "
        "Rows without a value come last either way; ties are ordered by id."
    )

    def get_ordering(self, request, queryset, view):
        terms = self.ordering_terms(request, queryset, view)
        return stable_ordering(terms, queryset.model) if terms else terms

    def ordering_terms(self, request, queryset, view):
        """The fields asked (or the view's default), as DRF reads them."""
        return super().get_ordering(request, queryset, view)


def stable_ordering(terms: list[Any], model: type[models.Model]) -> list[Any]:
    """``terms`` (``order_by``'s arguments) with the nullable fields' missing values last and
    the primary key after them, unless they name it already."""
    ordering: list[Any] = []
    unique = False
    for term in terms:
        if not isinstance(term, str):  # an expression: as it is
            ordering.append(term)
            continue
        name = term.removeprefix("-")
        unique = unique or name in ("pk", model._meta.pk.name)
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:  # a relation's field (``period__start``): as it is
            field = None
        if field is None or not field.null or field.is_relation:
            ordering.append(term)
        elif term.startswith("-"):
            ordering.append(F(name).desc(nulls_last=True))
        else:
            ordering.append(F(name).asc(nulls_last=True))
    if not unique:
        first = terms[0]
        ordering.append("-pk" if isinstance(first, str) and first.startswith("-") else "pk")
    return ordering


class ListOrderingFilter(StableOrderingFilter):
    """Ordering where ``rating`` means the rating on the list ``?list=`` names (default: the
    club's default list)."""

    def ordering_terms(self, request, queryset, view):
        ordering = super().ordering_terms(request, queryset, view)
        column = LIST_FIELDS[asked_list(request.query_params)].rating
        return [_on_list(term, column) for term in ordering or []]


def _on_list(term: str, column: str) -> str:
    descending = term.startswith("-")
    name = term.lstrip("-")
    return ("-" if descending else "") + column if name == "rating" else term
