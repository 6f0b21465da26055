"""Forms of the players' pages: the rating calculator and the next-game preview.

They parse and validate input only; every number comes from ``ratings.rules.fide`` or
``ratings.selectors``, called by the views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy

from ladder.records import (
    K_ABOVE_MESSAGE,
    K_BELOW_MESSAGE,
    MAX_ENTRY_RATED_GAMES,
    MAX_K,
    MAX_RATING,
    MIN_BIRTH_YEAR,
    MIN_K,
    MIN_RATING,
    RATING_ABOVE_MESSAGE,
    RATING_BELOW_MESSAGE,
    RatingList,
)
from ladder.records.translations import rules_text, rules_text_lazy
from ratings.rules import calculator, fide

OTHER = "other"


def rating_field(label: Any, **kwargs) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=MIN_RATING,
        max_value=MAX_RATING,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "step": 1}),
        error_messages={
            "required": gettext_lazy("Enter a rating."),
            "invalid": gettext_lazy("Enter a whole number."),
            "min_value": RATING_BELOW_MESSAGE,
            "max_value": RATING_ABOVE_MESSAGE,
        },
        **kwargs,
    )


class CalculatorForm(forms.Form):
    """One game (or a whole event) for one player, with the options FIDE and the seeds offer."""

    MODE_CHOICES = (
        ("single", gettext_lazy("One game")),
        ("event", gettext_lazy("Several games (an event)")),
    )
    RESULT_CHOICES = tuple((k, rules_text_lazy(v)) for k, v in calculator.RESULT_LABELS.items())
    METHOD_CHOICES = tuple((k, rules_text_lazy(v)) for k, v in calculator.METHOD_LABELS.items())
    K_CHOICES = (*((str(k), str(k)) for k in calculator.K_PRESETS), (OTHER, gettext_lazy("Other")))

    mode = forms.ChoiceField(
        label=gettext_lazy("Mode"), choices=MODE_CHOICES, initial="single", widget=forms.RadioSelect
    )
    own = rating_field(gettext_lazy("Your rating"), initial=1500)
    opponent = rating_field(gettext_lazy("Opponent's rating"), initial=1600, required=False)
    result = forms.ChoiceField(
        label=gettext_lazy("Result"),
        choices=RESULT_CHOICES,
        initial="win",
        widget=forms.RadioSelect,
    )
    games = forms.CharField(
        label=gettext_lazy("Games"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "placeholder": "1600 1\n1720 ½\n1550 0"}),
        help_text=gettext_lazy(
            "One game a line: the opponent's rating, then your score (1, ½ or 0)."
        ),
    )
    k_preset = forms.ChoiceField(
        label=gettext_lazy("K-factor"),
        choices=K_CHOICES,
        initial="20",
        widget=forms.RadioSelect,
        help_text="How fast a rating moves. FIDE: 40 for newcomers (under 30 rated games) and "
        "juniors below 2300, 20 for most players, 10 once a player has reached 2400. Many club "
        "and online calculators use 32.",
    )
    k_other = forms.IntegerField(
        label=gettext_lazy("Other K"),
        required=False,
        min_value=MIN_K,
        max_value=MAX_K,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        help_text=format_lazy(gettext_lazy("Any K from {low} to {high}."), low=MIN_K, high=MAX_K),
        error_messages={
            "min_value": K_BELOW_MESSAGE,
            "max_value": K_ABOVE_MESSAGE,
            "invalid": gettext_lazy("Enter a whole number."),
        },
    )
    method = forms.ChoiceField(
        label=gettext_lazy("Expected score from"),
        choices=METHOD_CHOICES,
        initial=fide.METHOD_FIDE,
        widget=forms.RadioSelect,
    )
    apply_cap = forms.BooleanField(
        label=gettext_lazy("400-point rule (8.3.1, FIDE table only)"),
        required=False,
        initial=True,
        help_text=gettext_lazy(
            "Count a difference beyond ±400 as ±400 (not for players rated 2650+)."
        ),
    )
    apply_700 = forms.BooleanField(
        label=gettext_lazy("700 rule (8.3.3, FIDE table only)"),
        required=False,
        initial=True,
        help_text=gettext_lazy("If K × games > 700, K becomes 700 ÷ games, rounded down."),
    )

    def clean_games(self) -> list[tuple[int, int]]:
        """Parse the event's games into (opponent rating, score in UNIT) pairs."""
        text = self.cleaned_data.get("games") or ""
        games = []
        for number, line in enumerate(text.splitlines(), start=1):
            parts = line.replace(",", " ").replace(";", " ").split()
            if not parts:
                continue
            if len(parts) != 2:
                raise ValidationError(
                    gettext(
                        "Line %(number)s: write the opponent's rating and your score, e.g. 1600 ½."
                    )
                    % {"number": number}
                )
            rating, score = parts
            is_number = rating.isascii() and rating.isdigit()
            if not is_number or not MIN_RATING <= int(rating) <= MAX_RATING:
                raise ValidationError(
                    gettext(
                        "Line %(number)s: '%(rating)s' is not a rating from %(low)s to %(high)s."
                    )
                    % {"number": number, "rating": rating, "low": MIN_RATING, "high": MAX_RATING}
                )
            units = calculator.score_units(score)
            if units is None:
                raise ValidationError(
                    gettext("Line %(number)s:") % {"number": number}
                    + " "
                    + rules_text(calculator.score_message(score))
                )
            games.append((int(rating), units))
        if len(games) > calculator.MAX_EVENT_GAMES:
            raise ValidationError(rules_text(calculator.EVENT_TOO_LONG_MESSAGE))
        return games

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        missing_k = data.get("k_preset") == OTHER and data.get("k_other") is None
        if missing_k and "k_other" not in self.errors:
            self.add_error("k_other", rules_text(calculator.K_MISSING_MESSAGE))
        if data.get("mode") == "event":
            if "games" not in self.errors and not data.get("games"):
                self.add_error("games", rules_text(calculator.EVENT_EMPTY_MESSAGE))
        elif data.get("opponent") is None and "opponent" not in self.errors:
            self.add_error("opponent", gettext("Enter the opponent's rating."))
        return data

    @property
    def k(self) -> int:
        data = self.cleaned_data
        return data["k_other"] if data["k_preset"] == OTHER else int(data["k_preset"])

    def options(self) -> dict:
        """Return the keyword options ``fide.event_calculation`` takes."""
        data = self.cleaned_data
        if data["method"] != fide.METHOD_FIDE:  # classic mode: the plain formula, no rules
            return {"k": self.k, "method": data["method"], **calculator.rules_by_default("elo")}
        return {
            "k": self.k,
            "method": data["method"],
            "apply_cap": data["apply_cap"],
            "apply_700": data["apply_700"],
        }


def count_field(label: Any, low: int, high: int, **kwargs) -> forms.IntegerField:
    between = format_lazy(
        gettext_lazy("Enter a whole number from {low} to {high}."), low=low, high=high
    )
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=low,
        max_value=high,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "step": 1}),
        error_messages={"invalid": gettext_lazy("Enter a whole number."), "min_value": between,
                        "max_value": between},
        **kwargs,
    )  # fmt: skip


class KHelperForm(forms.Form):
    """The calculator's K helper: what K FIDE gives a player (8.3.3)."""

    rated_games = count_field(
        gettext_lazy("Rated games so far"),
        0,
        MAX_ENTRY_RATED_GAMES,
        help_text=gettext_lazy("Games on published lists before this one."),
    )
    birth_year = count_field(
        gettext_lazy("Birth year"),
        MIN_BIRTH_YEAR,
        2100,
        help_text=gettext_lazy("Leave blank if not a junior."),
    )
    peak_rating = rating_field(
        gettext_lazy("Highest published rating"),
        required=False,
        help_text=gettext_lazy("Leave blank if never rated."),
    )

    def has_input(self) -> bool:
        return any(self.data.get(name, "").strip() for name in self.fields)


class WhatIfForm(forms.Form):
    """The next-game preview on a player's page, on one of the kept lists."""

    opponent = rating_field("Opponent's rating")
    list = forms.ChoiceField(label=gettext_lazy("List"), required=False)

    def __init__(self, *args, lists: Sequence[str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        kept = lists if lists is not None else [RatingList.STANDARD]
        field = self.fields["list"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(name, RatingList(name).label) for name in kept]
