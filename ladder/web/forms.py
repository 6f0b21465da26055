"""Forms of the players' pages: the rating calculator and the next-game preview.

They parse and validate input only; every number comes from ``ratings.rules.fide`` or
``ratings.selectors``, called by the views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from ladder.records import MAX_RATING, MIN_RATING, RatingList
from ratings.rules import calculator, fide

K_PRESETS = (40, 20, 10, 32)
OTHER = "other"
SCORES = calculator.SCORE_WORDS
MAX_EVENT_GAMES = 100


def rating_field(label: str, **kwargs) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=MIN_RATING,
        max_value=MAX_RATING,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "step": 1}),
        error_messages={
            "required": "Enter a rating.",
            "invalid": "Enter a whole number.",
            "min_value": f"A rating cannot be below {MIN_RATING}.",
            "max_value": f"A rating cannot be above {MAX_RATING}.",
        },
        **kwargs,
    )


class CalculatorForm(forms.Form):
    """One game (or a whole event) for one player, with the options FIDE and the seeds offer."""

    MODE_CHOICES = (("single", "One game"), ("event", "Several games (an event)"))
    RESULT_CHOICES = (("win", "Win"), ("draw", "Draw"), ("loss", "Loss"))
    METHOD_CHOICES = (
        (fide.METHOD_FIDE, "FIDE table (8.1.2)"),
        (fide.METHOD_ELO, "Classic Elo formula"),
    )
    K_CHOICES = (*((str(k), str(k)) for k in K_PRESETS), (OTHER, "Other"))

    mode = forms.ChoiceField(
        label="Mode", choices=MODE_CHOICES, initial="single", widget=forms.RadioSelect
    )
    own = rating_field("Your rating", initial=1500)
    opponent = rating_field("Opponent's rating", initial=1600, required=False)
    result = forms.ChoiceField(
        label="Result", choices=RESULT_CHOICES, initial="win", widget=forms.RadioSelect
    )
    games = forms.CharField(
        label="Games",
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "placeholder": "1600 1\n1720 ½\n1550 0"}),
        help_text="One game a line: the opponent's rating, then your score (1, ½ or 0).",
    )
    k_preset = forms.ChoiceField(
        label="K-factor",
        choices=K_CHOICES,
        initial="20",
        widget=forms.RadioSelect,
        help_text="How fast a rating moves. FIDE: 40 for newcomers (under 30 rated games) and "
        "juniors below 2300, 20 for most players, 10 once a player has reached 2400. Many club "
        "and online calculators use 32.",
    )
    k_other = forms.IntegerField(
        label="Other K",
        required=False,
        min_value=1,
        max_value=100,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        help_text="Any K from 1 to 100.",
        error_messages={
            "min_value": "K must be at least 1.",
            "max_value": "K must be at most 100.",
            "invalid": "Enter a whole number.",
        },
    )
    method = forms.ChoiceField(
        label="Expected score from",
        choices=METHOD_CHOICES,
        initial=fide.METHOD_FIDE,
        widget=forms.RadioSelect,
    )
    apply_cap = forms.BooleanField(
        label="400-point rule (8.3.1, FIDE table only)",
        required=False,
        initial=True,
        help_text="Count a difference beyond ±400 as ±400 (not for players rated 2650+).",
    )
    apply_700 = forms.BooleanField(
        label="700 rule (8.3.3, FIDE table only)",
        required=False,
        initial=True,
        help_text="If K × games > 700, K becomes 700 ÷ games, rounded down.",
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
                    f"Line {number}: write the opponent's rating and your score, e.g. 1600 ½."
                )
            rating, score = parts
            is_number = rating.isascii() and rating.isdigit()
            if not is_number or not MIN_RATING <= int(rating) <= MAX_RATING:
                raise ValidationError(
                    f"Line {number}: '{rating}' is not a rating from {MIN_RATING} to {MAX_RATING}."
                )
            if score.lower() not in SCORES:
                raise ValidationError(f"Line {number}: '{score}' is not a score; use 1, ½ or 0.")
            games.append((int(rating), SCORES[score.lower()]))
        if len(games) > MAX_EVENT_GAMES:
            raise ValidationError(f"At most {MAX_EVENT_GAMES} games, please.")
        return games

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        missing_k = data.get("k_preset") == OTHER and data.get("k_other") is None
        if missing_k and "k_other" not in self.errors:
            self.add_error("k_other", "Enter a K from 1 to 100, or pick a preset.")
        if data.get("mode") == "event":
            if "games" not in self.errors and not data.get("games"):
                self.add_error("games", "Enter at least one game.")
        elif data.get("opponent") is None and "opponent" not in self.errors:
            self.add_error("opponent", "Enter the opponent's rating.")
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


def count_field(label: str, low: int, high: int, **kwargs) -> forms.IntegerField:
    between = f"Enter a whole number from {low} to {high}."
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=low,
        max_value=high,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "step": 1}),
        error_messages={"invalid": "Enter a whole number.", "min_value": between,
                        "max_value": between},
        **kwargs,
    )  # fmt: skip


class KHelperForm(forms.Form):
    """The calculator's K helper: what K FIDE gives a player (8.3.3)."""

    rated_games = count_field(
        "Rated games so far", 0, 100_000, help_text="Games on published lists before this one."
    )
    birth_year = count_field("Birth year", 1900, 2100, help_text="Leave blank if not a junior.")
    peak_rating = rating_field(
        "Highest published rating", required=False, help_text="Leave blank if never rated."
    )

    def has_input(self) -> bool:
        return any(self.data.get(name, "").strip() for name in self.fields)


class WhatIfForm(forms.Form):
    """The next-game preview on a player's page, on one of the kept lists."""

    opponent = rating_field("Opponent's rating")
    list = forms.ChoiceField(label="List", required=False)

    def __init__(self, *args, lists: Sequence[str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        kept = lists if lists is not None else [RatingList.STANDARD]
        field = self.fields["list"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(name, RatingList(name).label) for name in kept]
