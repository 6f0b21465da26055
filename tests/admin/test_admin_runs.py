"""What the admin says after a change in each mode, and the read-only list of runs."""

from datetime import date

import pytest
from django.contrib.messages import get_messages
from django.test import override_settings

from ratings.models import RatingRun

pytestmark = pytest.mark.django_db

BACKGROUND = {
    "LADDER_RECOMPUTE": "background",
    "TASKS": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
}


def add_game(client, club):
    data = {"date": "2026-03-14", "white": club["Alice Brown"].pk, "black": club["Bob Green"].pk,
            "result": "1-0", "event": "", "round": ""}  # fmt: skip
    return client.post("/admin/ladder/game/add/", data)


@override_settings(**BACKGROUND)
def test_in_background_mode_the_message_says_the_run_is_queued_and_links_to_it(
    admin_client, club, march, committed
):
    with committed():
        response = add_game(admin_client, club)
    run = RatingRun.objects.get()
    added, message = [str(m) for m in get_messages(response.wsgi_request)]
    assert "was added successfully" in added
    assert f"Rating run #{run.pk} is queued: a worker (manage.py rating_worker) will rate it." in (
        message
    )
    assert f'href="/admin/ratings/ratingrun/{run.pk}/change/"' in message


def test_in_immediate_mode_the_message_reports_the_runs_summary(admin_client, club, march,
                                                                  committed):  # fmt: skip
    with committed():
        response = add_game(admin_client, club)
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert shown[1:] == ["2026-03 recomputed: 2 players' ratings changed."]
    run = RatingRun.objects.get()
    assert (run.requested_by.username, run.reason) == ("clubadmin", "Game entered in the admin")
    assert run.from_period.start == date(2026, 3, 1)
