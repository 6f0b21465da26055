"""Enter a round fast: many results for one date, checked as a whole, then saved all or none.

Rows (white / black / result) and a paste box (one game a line) feed the same checks. Nothing is
saved until every line is valid; then ``ladder.services.record_games`` writes them in one
transaction and one recompute reports what changed.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from ratings.signals import recompute_pending

from .models import (
    FIRST_GAME_DATE,
    GAME_DATE_MESSAGE,
    LAST_GAME_DATE,
    Game,
    Player,
    RatingPeriod,
    Result,
    closed_message,
    parse_fide_id,
)
from .services import record_games

ROWS = 10
# "White Name - Black Name 1-0": the first spaced dash splits the players, the last word is
# the result (names may hold hyphens, as in Jean-Paul, but not a spaced dash).
PASTED_GAME = re.compile(r"^(?P<white>.+?)\s+[-–—]\s+(?P<black>.+?)\s+(?P<result>\S+)$")


class RoundForm(forms.Form):
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    event = forms.CharField(max_length=200, required=False)
    round = forms.CharField(max_length=20, required=False)
    paste = forms.CharField(
        label="Paste games",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 60}),
        help_text="One game a line: 'White Name - Black Name 1-0'. FIDE ids may replace names; "
        "results 1-0, 0-1, 1/2-1/2, ½-½, =, 1/2, +/-, -/+ and 0-0 are understood.",
    )

    def clean_date(self) -> date:
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
    def result_label(self) -> str:
        return Result(self.result).label if self.result else self.result_text


class PlayerIndex:
    """Every player, loaded in one query, found by FIDE id or name as people type them."""

    def __init__(self, players: list[Player]) -> None:
        self.players = players
        self.by_fide_id = {p.fide_id: p for p in players if p.fide_id}
        self.by_label = {str(p).casefold(): p for p in players}
        self.by_name: dict[str, list[Player]] = defaultdict(list)
        for player in players:
            self.by_name[" ".join(player.name.split()).casefold()].append(player)
        self.names = {key: group[0].name for key, group in self.by_name.items()}

    def choices(self) -> list[tuple[str, str]]:
        """Return (value, label) pairs for the datalist: the name, or str() when names clash."""
        pairs = []
        for player in self.players:
            clash = len(self.by_name[" ".join(player.name.split()).casefold()]) > 1
            value = str(player) if clash else player.name
            rating = player.rating if player.rating is not None else "unrated"
            label = f"{rating}, FIDE {player.fide_id}" if player.fide_id else str(rating)
            pairs.append((value, label))
        return pairs

    def find(self, text: str, colour: str) -> tuple[Player | None, str | None]:
        """Return the player meant by ``text``, or the problem in a sentence."""
        text = " ".join(text.split())
        if not text:
            return None, f"{colour} is missing."
        if text.isascii() and text.isdigit():
            fide_id = parse_fide_id(text)
            if fide_id in self.by_fide_id:
                return self.by_fide_id[fide_id], None
            return None, f"No player has the FIDE id {text}."
        key = text.casefold()
        if key in self.by_label:
            return self.by_label[key], None
        matches = self.by_name.get(key, [])
        if len(matches) == 1:
            return matches[0], None
        if matches:
            ids = ", ".join(str(p.fide_id) for p in matches if p.fide_id)
            hint = f" ({ids})" if ids else ""
            return None, f"Several players are named '{text}'; enter the FIDE id instead{hint}."
        close = difflib.get_close_matches(key, list(self.names), n=3, cutoff=0.6)
        message = f"No player is named '{text}'."
        if close:
            message += " Did you mean " + " or ".join(f"'{self.names[c]}'" for c in close) + "?"
        return None, message


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
            line = Line(f"Pasted line {number}", *match.group("white", "black", "result"))
        lines.append(line)
    return lines


def check_lines(lines: list[Line], *, day: date, index: PlayerIndex) -> None:
    """Resolve and check every line in a fixed number of queries, noting each problem."""
    for line in lines:
        if line.problems:
            continue
        line.white, problem_white = index.find(line.white_text, "White")
        line.black, problem_black = index.find(line.black_text, "Black")
        line.problems += [p for p in (problem_white, problem_black) if p]
        try:
            line.result = Result.parse(line.result_text) if line.result_text else ""
        except ValueError as error:
            line.problems.append(str(error))
        if not line.result_text:
            line.problems.append("The result is missing.")
        if line.white and line.white == line.black:
            line.problems.append(
                f"A player cannot play themselves: {line.white.name} is both White and Black."
            )
    _check_duplicates([line for line in lines if line.ok], day=day)


def _check_duplicates(lines: list[Line], *, day: date) -> None:
    """Flag games already recorded (same date, players and colours) or entered twice."""
    existing = {
        (game.white_id, game.black_id): game
        for game in Game.objects.filter(
            date=day,
            white__in=[line.white for line in lines],
            black__in=[line.black for line in lines],
        ).only("pk", "white_id", "black_id", "result")
    }
    seen: dict[tuple[int, int], Line] = {}
    for line in lines:
        pair = (line.white.pk, line.black.pk)
        if pair in existing:
            game = existing[pair]
            line.problems.append(
                f"This game is already recorded: {line.white.name} - {line.black.name} "
                f"{game.result} on {day.isoformat()} (game #{game.pk})."
            )
        elif pair in seen:
            line.problems.append(f"This game repeats {seen[pair].source.lower()}.")
        else:
            seen[pair] = line


def check_date(day: date) -> list[str]:
    """Return the problems of the round's date: a closed period freezes its games, and a date
    that no period holds needs its month's period, which must not overlap another."""
    try:
        period = RatingPeriod.objects.for_date(day, create=False)
    except ValidationError as error:
        return error.messages
    if period is not None and period.is_closed:
        return [closed_message(period)]
    return []


def enter_round_view(request, model_admin):
    """Preview a round's games with each line's problem; save them all once all are valid."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    index = PlayerIndex(list(Player.objects.order_by("name", "pk")))
    lines: list[Line] = []
    problems: list[str] = []
    checked = False
    if request.method == "POST":
        form = RoundForm(request.POST)
        formset = RowFormSet(request.POST, prefix="rows")
        if form.is_valid() and formset.is_valid():
            day = form.cleaned_data["date"]
            lines = collect_lines(formset.cleaned_data, form.cleaned_data["paste"])
            problems = check_date(day)
            if not lines:
                problems.append("Enter at least one game, in the rows or in the paste box.")
            check_lines(lines, day=day, index=index)
            checked = not problems and all(line.ok for line in lines)
            if checked and "_save" in request.POST:
                try:
                    return _save(request, model_admin, form.cleaned_data, lines)
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
        "players": index.choices(),
    }
    return TemplateResponse(request, "admin/ladder/game/enter_round.html", context)


def _invalid_sentence(lines: list[Line]) -> str:
    invalid = sum(not line.ok for line in lines)
    if not invalid:
        return ""
    lines_word = "line needs" if invalid == 1 else "lines need"
    return f"{invalid} {lines_word} correcting (of {len(lines)}); nothing was saved."


def _save(request, model_admin, data: dict, lines: list[Line]):
    with transaction.atomic():
        games = record_games(
            games=[
                {
                    "date": data["date"],
                    "white": line.white,
                    "black": line.black,
                    "result": line.result,
                    "event": data["event"],
                    "round": data["round"],
                }
                for line in lines
            ]
        )
        summary = recompute_pending()
    where = ", ".join(
        part for part in (data["event"], data["round"] and f"round {data['round']}") if part
    )
    count = f"{len(games)} game" if len(games) == 1 else f"{len(games)} games"
    model_admin.message_user(
        request,
        f"Saved {count} of {data['date'].isoformat()}{f' ({where})' if where else ''}. {summary}",
        messages.SUCCESS,
    )
    return HttpResponseRedirect(reverse("admin:ladder_game_changelist"))
