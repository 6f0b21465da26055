"""Query-string filters of the list endpoints (django-filter)."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q

from ladder.models import Game, PeriodStatus, Player, RatingPeriod, Result, Title
from ratings.models import RatingRun, RunStatus


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (django-filter's NumberFilter takes decimals: "1e300", "0.5")."""

    field_class = forms.IntegerField


class PlayerFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        method="filter_search", label="Part of the name, or the exact FIDE id."
    )
    rated = django_filters.BooleanFilter(
        field_name="rating", lookup_expr="isnull", exclude=True, label="Rated (true) or unrated."
    )
    title = django_filters.ChoiceFilter(choices=Title.choices)
    federation = django_filters.CharFilter(lookup_expr="iexact", label="FIDE code, e.g. ENG.")
    fide_id = IntegerFilter()
    rating_min = IntegerFilter(field_name="rating", lookup_expr="gte")
    rating_max = IntegerFilter(field_name="rating", lookup_expr="lte")

    class Meta:
        model = Player
        fields: list[str] = []

    def filter_search(self, queryset, name, value):
        return queryset.search(value)


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


class PeriodFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=PeriodStatus.choices)
    year = IntegerFilter(
        field_name="start__year", min_value=1, max_value=9999, label="Calendar year of start."
    )

    class Meta:
        model = RatingPeriod
        fields = ["label"]


class RatingRunFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=RunStatus.choices)

    class Meta:
        model = RatingRun
        fields: list[str] = []
