"""Enter a round fast: many results for one date, checked as a whole, then saved all or none.

Rows (white / black / result) and a paste box (one game a line) feed the same checks. Nothing is
saved until every line is valid; then ``ladder.writes.actions.enter_games`` writes them in one
transaction and one rating run reports what changed. The checks are the write path's own
(``ladder.writes.validation``): the same sentences as every other door.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy

from ladder.admin.runs import report_run
from ladder.records import (
    FIRST_GAME_DATE,
    GAME_DATE_MESSAGE,
    LAST_GAME_DATE,
    Game,
    Player,
    RatingList,
    RatingPeriod,
    Result,
    kept_lists,
)
from ladder.records.names import name_key
from ladder.writes import actions, previews
from ladder.writes.validation import GameEntry, PlayerLookup, check_games

ROWS = 10
# Problems of these fields are the round's, shown once above the lines.
ROUND_FIELDS = ("date", "rating_list", "time_control")
# "White Name - Black Name 1-0": the first spaced dash splits the players, the last word is
# the result (names may hold hyphens, as in Jean-Paul, but not a spaced dash).
# The lookup's "No player is named 'X'. Did you mean 'Y' or 'Z'?", offered as one-click fixes.
UNKNOWN_NAME = re.compile(r"^No player is named '(?P<typed>.+)'\. Did you mean (?P<names>.+)\?$")
PASTED_GAME = re.compile(r"^(?P<white>.+?)\s+[-–—]\s+(?P<black>.+?)\s+(?P<result>\S+)$")


def list_choice(**kwargs: Any) -> forms.ChoiceField:
    """The list of a game or a round: blank lets the time control decide (else the default)."""
    blank = ("", "From the time control (else standard)")
    choices = [blank, *((name, RatingList(name).label) for name in kept_lists())]
    return forms.ChoiceField(label=gettext_lazy("List"), choices=choices, required=False, **kwargs)


class RoundForm(forms.Form):
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    event = forms.CharField(
        max_length=200,
        required=False,
        widget=forms.TextInput(attrs={"list": "ladder-events", "size": 40}),
        help_text=gettext_lazy("Pick an existing event to keep its games together."),
    )
    round = forms.CharField(max_length=20, required=False)
    rating_list = list_choice(
        help_text=gettext_lazy("Standard, rapid or blitz: once for the whole round.")
    )
    time_control = forms.CharField(
        max_length=Game._meta.get_field("time_control").max_length,
        required=False,
        help_text=gettext_lazy(
            "Base minutes + increment seconds (90+30, 15+10, 3+2); it picks the list."
        ),
    )
    paste = forms.CharField(
        label=gettext_lazy("Paste games"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 60}),
        help_text="One game a line: 'White Name - Black Name 1-0'. FIDE ids may replace names; "
        "results 1-0, 0-1, 1/2-1/2, ½-½, =, 1/2, +/-, -/+ and 0-0 are understood.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if len(kept_lists()) == 1:  # a club that keeps one list sees no list
            del self.fields["rating_list"]

    def clean_date(self) -> datetime.date:
        day = self.cleaned_data["date"]
        if not FIRST_GAME_DATE <= day <= LAST_GAME_DATE:
            raise ValidationError(GAME_DATE_MESSAGE)
        return day


class RowForm(forms.Form):
    white = forms.CharField(
        required=False, widget=forms.TextInput(attrs={"list": "ladder-players", "size": 30})
    )
    black = forms.CharField(
        required=False, widget=forms.TextInput(attrs={"list": "ladder-players", "size": 30})
    )
    result = forms.ChoiceField(choices=[("", "---------"), *Result.choices], required=False)


RowFormSet = forms.formset_factory(RowForm, extra=ROWS)


@dataclass
class Line:
    """One game as entered, what it resolved to and what is wrong with it."""

    source: str
    white_text: str
    black_text: str
    result_text: str
    white: Player | None = None
    black: Player | None = None
    result: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def fixes(self) -> list[tuple[str, str]]:
        """Return (typed, suggested name) pairs from the line's "Did you mean" problems."""
        found = []
        for problem in self.problems:
            match = UNKNOWN_NAME.match(problem)
            if match is not None:
                names = re.findall(r"'([^']+)'", match.group("names"))
                found += [(match.group("typed"), name) for name in names]
        return found

    @property
    def result_label(self) -> str:
        return str(Result(self.result).label) if self.result else self.result_text


def player_choices(players: list[Player]) -> list[tuple[str, str]]:
    """Return (value, label) pairs for the datalist: the name, or str() when names clash."""
    counts: dict[str, int] = {}
    for player in players:
        key = name_key(player.name)
        counts[key] = counts.get(key, 0) + 1
    pairs = []
    for player in players:
        clash = counts[name_key(player.name)] > 1
        value = str(player) if clash else player.name
        rating = player.rating if player.rating is not None else "unrated"
        label = f"{rating}, FIDE {player.fide_id}" if player.fide_id else str(rating)
        pairs.append((value, label))
    return pairs


def collect_lines(rows: list[dict], paste: str) -> list[Line]:
    """Turn the filled rows and the pasted lines into lines to check, in entry order."""
    lines = []
    for number, row in enumerate(rows, start=1):
        if any((row.get("white"), row.get("black"), row.get("result"))):
            lines.append(
                Line(f"Row {number}", row.get("white", ""), row.get("black", ""), row["result"])
            )
    for number, text in enumerate(paste.splitlines(), start=1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        match = PASTED_GAME.match(text)
        if match is None:
            line = Line(f"Pasted line {number}", text, "", "")
            line.problems.append(f"'{text}' is not a game; write 'White Name - Black Name 1-0'.")
        else:
            white, black, result = match.group("white", "black", "result")
            line = Line(f"Pasted line {number}", white, black, result)
        lines.append(line)
    return lines


def check_lines(
    lines: list[Line], *, day: date, lookup: PlayerLookup, rating_list: str = "",
    time_control: str = "", event: str = "", round_: str = "",
) -> list[str]:  # fmt: skip
    """Check every line through the write path's validator; note each line's problems.

    Return the problems of the round as a whole (its date, list, time control), which every
    line shares.
    """
    todo = [line for line in lines if line.ok]
    entries = [
        GameEntry(date=day, white=line.white_text, black=line.black_text,
                  result=line.result_text, event=event, round=round_, rating_list=rating_list,
                  time_control=time_control, source=line.source)
        for line in todo
    ]  # fmt: skip
    shared: list[str] = []
    for line, checked in zip(todo, check_games(entries, lookup=lookup), strict=True):
        game = checked.game
        if game is not None:
            line.white, line.black, line.result = game.white, game.black, game.result
        for name, found in checked.problems.items():
            for message in found:
                if name in ROUND_FIELDS:
                    shared.append(message)
                else:
                    line.problems.append(message)
    return list(dict.fromkeys(shared))


def enter_round_view(request, model_admin):
    """Preview a round's games with each line's problem; save them all once all are valid."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    lookup = PlayerLookup.load()
    lines: list[Line] = []
    problems: list[str] = []
    checked = False
    rating_preview = None
    if request.method == "POST":
        data = _apply_fix(request.POST)
        form = RoundForm(data)
        formset = RowFormSet(data, prefix="rows")
        if form.is_valid() and formset.is_valid():
            day = form.cleaned_data["date"]
            lines = collect_lines(formset.cleaned_data, form.cleaned_data["paste"])
            problems = check_lines(
                lines, day=day, lookup=lookup, rating_list=form.cleaned_data.get("rating_list", ""),
                time_control=form.cleaned_data["time_control"], event=form.cleaned_data["event"],
                round_=form.cleaned_data["round"],
            )  # fmt: skip
            if not lines:
                problems.append("Enter at least one game, in the rows or in the paste box.")
            checked = not problems and all(line.ok for line in lines)
            try:
                if checked and "_save" in data:
                    return _save(request, model_admin, form.cleaned_data, lines)
                if checked and _reopened(day):  # a published list would change: say how
                    games = _entries(form.cleaned_data, lines)
                    rating_preview = previews.entry(games=games, user=request.user)
            except ValidationError as error:
                problems += error.messages
                checked = False
    else:
        form = RoundForm(initial={"date": timezone.localdate()})
        formset = RowFormSet(prefix="rows")
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": "Enter a round",
        "form": form,
        "formset": formset,
        "lines": lines,
        "problems": problems,
        "invalid": _invalid_sentence(lines),
        "checked": checked,
        "rating_preview": rating_preview,
        "players": player_choices(lookup.players),
        "events": Game.objects.exclude(event="")
        .order_by("event")
        .values_list("event", flat=True)
        .distinct()[:500],
    }
    return TemplateResponse(request, "admin/ladder/game/enter_round.html", context)


def _apply_fix(post):
    """Put a suggested name in place of the typed one ("Did you mean", one click), then preview.

    The fix button sends ``typed`` and ``name`` joined by a newline: the rows holding exactly the
    typed text, and each pasted line's player part, take the name.
    """
    if "_fix" not in post:
        return post
    typed, _, name = post["_fix"].partition("\n")
    typed, name = typed.strip(), name.strip()  # browsers send the newline as CR LF
    data = post.copy()
    data.pop("_save", None)
    if not typed or not name:
        return data
    wanted = name_key(typed)
    for key in data:
        is_player = key.startswith("rows-") and key.endswith(("-white", "-black"))
        if is_player and name_key(data[key]) == wanted:
            data[key] = name
    pasted = []
    for text in data.get("paste", "").splitlines():
        match = PASTED_GAME.match(text.strip())
        if match is not None and typed in match.group("white", "black"):
            white, black, result = (name if part == typed else part for part in match.groups())
            text = f"{white} - {black} {result}"
        pasted.append(text)
    data["paste"] = "\n".join(pasted)
    return data


def _invalid_sentence(lines: list[Line]) -> str:
    invalid = sum(not line.ok for line in lines)
    if not invalid:
        return ""
    lines_word = "line needs" if invalid == 1 else "lines need"
    return f"{invalid} {lines_word} correcting (of {len(lines)}); nothing was saved."


def _reopened(day: date) -> bool:
    """Whether ``day`` falls in a period reopened for corrections (its list was published)."""
    return RatingPeriod.objects.reopened().containing(day).exists()


def _entries(data: dict, lines: list[Line]) -> list[GameEntry]:
    """The round's checked lines as games to enter."""
    return [
        GameEntry(date=data["date"], white=line.white, black=line.black, result=line.result,
                  event=data["event"], round=data["round"],
                  rating_list=data.get("rating_list", ""), time_control=data["time_control"],
                  source=line.source)
        for line in lines
        if line.white is not None and line.black is not None
    ]  # fmt: skip


def _save(request, model_admin, data: dict, lines: list[Line]):
    with transaction.atomic():
        games = actions.enter_games(
            games=_entries(data, lines),
            user=request.user,
            reason=f"Round entered for {data['date'].isoformat()}",
        )
        where = ", ".join(
            part for part in (data["event"], data["round"] and f"round {data['round']}") if part
        )
        count = f"{len(games)} game" if len(games) == 1 else f"{len(games)} games"
        saved = f"Saved {count} of {data['date'].isoformat()}{f' ({where})' if where else ''}."
        report_run(model_admin, request, saved=saved, level=messages.SUCCESS)
    day = data["date"]
    query = urlencode({"date__year": day.year, "date__month": day.month, "date__day": day.day})
    return HttpResponseRedirect(reverse("admin:ladder_game_changelist") + "?" + query)
