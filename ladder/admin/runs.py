"""What the admin says after a change: the rating run's outcome, or that it waits, linked."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from ratings import runs
from ratings.models import RatingRun, RunStatus


def report_run(
    model_admin: Any, request: HttpRequest, *, saved: str = "", level: int = messages.INFO
) -> None:
    """After the commit, say what was ``saved`` and what its rating run did, or that it waits.

    Call it inside the transaction that made the change (it finds the run that change went
    into while the transaction still holds it).
    """

    pending = [saved]  # said with the first run's outcome only

    def report(run: RatingRun | None) -> None:
        prefix = pending.pop() if pending else ""
        if run is None:
            if prefix:
                model_admin.message_user(request, prefix, level)
            return
        if run.status == RunStatus.DONE:
            model_admin.message_user(request, f"{prefix} {runs.describe(run)}".strip(), level)
            return
        url = reverse("admin:ratings_ratingrun_change", args=[run.pk])
        text = format_html('{} {} <a href="{}">See the run.</a>', prefix, runs.describe(run), url)
        failed = run.status == RunStatus.FAILED
        model_admin.message_user(request, text, messages.ERROR if failed else level)

    runs.report_on_commit(report)
