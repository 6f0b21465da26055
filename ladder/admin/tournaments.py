"""Import a tournament file in the admin: upload, preview, confirm.

The upload (a TRF, or a PGN's tag pairs) is read and imported as a dry run: the preview is
exactly what the import would do, or every problem with its line and column. Confirming sends
the file's text back (a hidden field) and imports it for real through
``ladder.files.tournaments.import_tournament``; nothing is kept on the server between the two steps.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from ladder.admin.rounds import list_choice
from ladder.admin.runs import report_run
from ladder.exceptions import TrfRefused
from ladder.files import exports, tournaments
from ladder.files.tournament_file import decode
from ladder.records import Game, RatingPeriod

MAX_UPLOAD = 5 * 1024 * 1024  # a 1,000-player TRF is about 200 kB


class TournamentFileForm(forms.Form):
    file = forms.FileField(
        required=False,
        help_text="A FIDE Tournament Report File (TRF-16 or TRF-2026) from Swiss-Manager, Vega, "
        "Sharly-Chess or lichess, or a PGN file (only its tags are read).",
    )
    content = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(required=False, widget=forms.HiddenInput)
    rated_in = forms.CharField(
        max_length=RatingPeriod._meta.get_field("label").max_length,
        required=False,
        label=gettext_lazy("Rated in"),
        help_text="A late report: the label of the period that rates it (default: the period "
        "holding the tournament's last day; at most the third list after it, FIDE 9.1).",
    )
    event = forms.CharField(
        max_length=Game._meta.get_field("event").max_length,
        required=False,
        help_text=gettext_lazy("Leave blank to use the file's (line 012, or the PGN Event tag)."),
    )
    date = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy(
            "For games the file does not date (no line 132); else the end date."
        ),
    )
    rating_list = list_choice(
        help_text=gettext_lazy("Leave blank to follow the file's time control.")
    )
    time_control = forms.CharField(
        max_length=Game._meta.get_field("time_control").max_length,
        required=False,
        help_text=gettext_lazy("e.g. 90+30; leave blank to use the file's (lines 222 or 122)."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload is not None:
            if upload.size > MAX_UPLOAD:
                raise forms.ValidationError(gettext("The file is larger than 5 MB; is it a TRF?"))
            data["data"] = upload.read()
            data["name"] = upload.name or ""
        elif data.get("content"):
            data["data"] = data["content"].encode("utf-8")
        else:
            self.add_error("file", "Choose a file to import.")
        return data


# The games list's filter to one tournament's games (``GameAdmin.lookup_allowed``).
TOURNAMENT_LOOKUP = "tournament__id__exact"


def _imported_games_url(plan: Any) -> str:
    """The games list filtered to the tournament the file's games went into (else its event)."""
    url = reverse("admin:ladder_game_changelist")
    tournament = next((g.tournament_id for g in plan.games if g.tournament_id), None)
    if tournament is not None:
        return f"{url}?{urlencode({TOURNAMENT_LOOKUP: tournament})}"
    return f"{url}?{urlencode({'event__exact': plan.event})}"


def import_tournament_view(request: Any, model_admin: Any) -> Any:
    """Preview a tournament file's import (a dry run); import it once confirmed."""
    if not (
        request.user.has_perm("ladder.add_game") and request.user.has_perm("ladder.add_player")
    ):
        raise PermissionDenied
    plan = None
    problems: list[str] = []
    form = TournamentFileForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = {
            "event": data["event"],
            "day": data["date"],
            "rating_list": data.get("rating_list", ""),
            "time_control": data["time_control"],
            "rated_in": data["rated_in"].strip(),
            "file_name": data.get("name", ""),
        }
        confirm = "_import" in request.POST
        try:
            with transaction.atomic():
                plan = tournaments.read(data["data"], **options)
                tournaments.import_tournament(plan, user=request.user, dry_run=not confirm)
                if confirm:
                    saved = (
                        f"Imported {len(plan.games)} games of '{plan.event}' and "
                        f"{len(plan.new_players)} new players."
                    )
                    report_run(model_admin, request, saved=saved, level=messages.SUCCESS)
        except TrfRefused as error:
            problems = [str(p) for p in error.problems]
            plan = None
        else:
            if confirm:  # land on the games just imported, not on every game of the club
                return HttpResponseRedirect(_imported_games_url(plan))
            text, _ = decode(data["data"])
            form = TournamentFileForm(
                initial={**request.POST.dict(), "content": text, "name": data.get("name", "")}
            )
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": "Import a tournament file",
        "form": form,
        "plan": plan,
        "problems": problems,
    }
    return TemplateResponse(request, "admin/ladder/game/import_tournament.html", context)


@admin.action(description=gettext_lazy("Export the selected games' event as a TRF"))
def export_event_trf(model_admin: Any, request: Any, queryset: Any) -> HttpResponse | None:
    """Download the event of the selected games (one event) as a TRF-16."""
    events = sorted(set(queryset.values_list("event", flat=True)))
    if len(events) != 1 or not events[0]:
        model_admin.message_user(
            request,
            gettext("Select games of one event (with an event name) to export it as a TRF."),
            messages.ERROR,
        )
        return None
    lists = set(queryset.values_list("rating_list", flat=True))
    try:
        text = exports.event_trf(events[0], chosen_list=lists.pop() if len(lists) == 1 else "")
    except LookupError as error:
        model_admin.message_user(request, str(error), messages.ERROR)
        return None
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{exports.filename(events[0])}.trf"'
    return response
