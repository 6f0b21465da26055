"""Parallel lists in the admin: a whole list under other rules, compared, written nowhere
(``ratings.recompute.simulate``, the same as ``manage.py simulate_rules``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy

from ladder.records import MAX_K, MAX_RATING, MIN_K, Player, RatingList, RatingPeriod, kept_lists
from ladder.records.translations import rules_text
from ratings.recompute.simulate import THRESHOLDS, simulate_rules
from ratings.rules import eras

SHOWN = 200  # players listed on the page; the summary counts every one


class SimulationForm(forms.Form):
    rules = forms.CharField(
        max_length=10,
        initial="current",
        help_text="The rules in force on a day: a month (2022-01: its first day), a day "
        "(2014-07-01), or current.",
    )
    period = forms.ModelChoiceField(
        RatingPeriod.objects.order_by("start"),
        required=False,
        to_field_name="label",
        empty_label="the first",
        label=gettext_lazy("From period"),
    )
    rating_list = forms.ChoiceField(label=gettext_lazy("List"), choices=())
    k = forms.IntegerField(
        required=False, min_value=MIN_K, max_value=MAX_K, label=gettext_lazy("One K for everyone")
    )
    cap = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_RATING, label=gettext_lazy("Cap")
    )
    floor = forms.IntegerField(required=False, min_value=0, max_value=MAX_RATING)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["rating_list"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(name, RatingList(name).label) for name in kept_lists()]

    def clean_rules(self) -> Any:
        try:
            return eras.parse_rules_setting(self.cleaned_data["rules"])
        except ValueError as error:
            raise forms.ValidationError(rules_text(error)) from None


def simulate_view(request: Any, model_admin: Any) -> Any:
    """Ask for other rules and show what the list would be under them."""
    if not request.user.has_perm("ladder.view_ratingperiod"):
        raise PermissionDenied
    form = SimulationForm(request.GET or None)
    found, names, summary = None, {}, []
    if form.is_valid():
        data = form.cleaned_data
        found = simulate_rules(
            period=data["period"],
            rating_list=data["rating_list"],
            on=data["rules"],
            k=data["k"],
            cap=data["cap"],
            floor=data["floor"],
        )
        shown = found.moves[:SHOWN]
        names = dict(
            Player.objects.filter(pk__in=[m.player for m in shown]).values_list("pk", "name")
        )
        summary = [(t, *found.crossing(t)) for t in THRESHOLDS]
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": "Simulate other rules",
        "form": form,
        "found": found,
        "rows": [
            (m, names.get(m.player, m.player), (m.new - m.old) if m.new and m.old else None)
            for m in (found.moves[:SHOWN] if found else [])
        ],
        "summary": summary,
        "shown": SHOWN,
    }
    return TemplateResponse(request, "admin/ladder/ratingperiod/simulate.html", context)
