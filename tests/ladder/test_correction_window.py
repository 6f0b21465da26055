"""The correction window: beyond it a period is reopened only by holders of a distinct
permission, and every door refuses the others with one message that names the holders."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from http import HTTPStatus
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.exceptions import ReopenRefused
from ladder.records import PeriodLog, PeriodStatus, RatingPeriod
from ladder.writes import actions
from ladder.writes.correction_window import window_end
from ratings.models import Publication, PublishedRating
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
REASON = "Round 3 was entered reversed."
LABEL = "Can reopen a period after its correction window"


@pytest.fixture
def window(settings):
    settings.LADDER_CORRECTION_WINDOW_DAYS = 30
    settings.TIME_ZONE = "UTC"


@pytest.fixture
def march(committed) -> RatingPeriod:
    """March with one game, closed, its list first published on 1 April 2026 09:00 UTC."""
    period = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    with committed():
        GameFactory(white=PlayerFactory(), black=PlayerFactory(), date=date(2026, 3, 5))
    actions.close_period(period=period)
    Publication.objects.filter(period=period).update(published_at=PUBLISHED)
    period.refresh_from_db()
    return period


def admin_user(name: str) -> User:
    """A club administrator who may change periods, but not beyond the window."""
    user = User.objects.create_user(name, is_staff=True)
    for codename in ("change_ratingperiod", "view_ratingperiod"):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def grant(user: User) -> User:
    user.user_permissions.add(Permission.objects.get(codename="reopen_after_window"))
    return User.objects.get(pk=user.pk)  # a fresh instance: permissions are cached


def refusal(holders: str) -> str:
    return (
        "The correction window of 2026-03 (30 days after its list was first published) ended "
        f"on 1 May 2026 09:00; reopening it now needs the permission “{LABEL}”, which {holders}"
    )


# --- the action ---------------------------------------------------------------------------------


def test_without_a_window_any_administrator_reopens_at_any_time(march):
    actions.reopen_period(
        period=march, reason=REASON, user=admin_user("ann"), now=PUBLISHED + timedelta(days=900)
    )
    march.refresh_from_db()
    assert march.status == PeriodStatus.OPEN


def test_within_the_window_no_extra_permission_is_needed(window, march):
    assert window_end(march) == PUBLISHED + timedelta(days=30)
    actions.reopen_period(
        period=march, reason=REASON, user=admin_user("ann"), now=PUBLISHED + timedelta(days=30)
    )
    march.refresh_from_db()
    assert march.status == PeriodStatus.OPEN


def test_beyond_the_window_the_refusal_names_the_holders_and_writes_nothing(window, march):
    grant(admin_user("zoe"))
    group = Group.objects.create(name="Arbiters")
    group.permissions.add(Permission.objects.get(codename="reopen_after_window"))
    admin_user("bea").groups.add(group)
    User.objects.create_superuser("root")
    User.objects.create_superuser("gone", is_active=False)
    grant(User.objects.create_user("left", is_active=False))
    history = march.history.count()

    with pytest.raises(ReopenRefused) as refused:
        actions.reopen_period(
            period=march, reason=REASON, user=admin_user("ann"), now=PUBLISHED + timedelta(days=31)
        )

    assert refused.value.messages == [
        refusal("bea, zoe and the administrator (superuser) root hold.")
    ]
    march.refresh_from_db()
    assert march.status == PeriodStatus.CLOSED
    assert not PeriodLog.objects.filter(action=PeriodLog.Action.REOPENED).exists()
    assert march.history.count() == history


def test_when_nobody_holds_the_permission_the_refusal_says_so(window, march):
    with pytest.raises(ReopenRefused) as refused:
        actions.reopen_period(period=march, reason=REASON, now=PUBLISHED + timedelta(days=31))
    assert refused.value.messages == [
        refusal(
            "nobody holds: ask whoever runs the server to create an administrator "
            "(manage.py createsuperuser) who can grant it."
        )
    ]


@pytest.mark.parametrize("how", ["directly", "group", "superuser"])
def test_holders_reopen_beyond_the_window(window, march, how):
    user = admin_user("zoe")
    if how == "directly":
        user = grant(user)
    elif how == "group":
        group = Group.objects.create(name="Arbiters")
        group.permissions.add(Permission.objects.get(codename="reopen_after_window"))
        user.groups.add(group)
        user = User.objects.get(pk=user.pk)
    else:
        user = User.objects.create_superuser("root")
    actions.reopen_period(
        period=march, reason=REASON, user=user, now=PUBLISHED + timedelta(days=400)
    )
    assert PeriodLog.objects.get(action=PeriodLog.Action.REOPENED).user == user


def test_the_window_counts_from_the_first_publication_not_the_last_close(window, march):
    actions.reopen_period(period=march, reason=REASON, now=PUBLISHED + timedelta(days=2))
    actions.close_period(period=march)  # closed again today: a revision, if anything changed
    with pytest.raises(ReopenRefused):
        actions.reopen_period(period=march, reason=REASON, now=PUBLISHED + timedelta(days=31))


def test_a_period_closed_before_lists_were_kept_counts_from_its_close(window, march):
    PublishedRating.objects.filter(publication__period=march).delete()  # lines are protected
    Publication.objects.filter(period=march).delete()
    RatingPeriod.objects.filter(pk=march.pk).update(closed_at=PUBLISHED)
    march.refresh_from_db()
    assert window_end(march) == PUBLISHED + timedelta(days=30)


def test_bad_input_is_refused_before_the_window_is_judged(window, march):
    with pytest.raises(ValidationError) as blank:
        actions.reopen_period(period=march, reason=" ", now=PUBLISHED + timedelta(days=31))
    assert blank.value.message_dict == {
        "reason": ["Give a reason to reopen a period; it is recorded."]
    }
    open_period = PeriodFactory(start=date(2026, 4, 1), end=date(2026, 4, 30))
    with pytest.raises(ValidationError) as already:
        actions.reopen_period(period=open_period, reason=REASON, now=PUBLISHED + timedelta(days=99))
    assert already.value.messages == ["The period 2026-04 is already open."]


# --- the doors ----------------------------------------------------------------------------------


@pytest.fixture
def holders(db):
    """One holder by grant and one superuser: the sentence every door shows."""
    grant(admin_user("zoe"))
    User.objects.create_superuser("root")
    return refusal("zoe and the administrator (superuser) root hold.")


def test_admin_action_shows_the_refusal(client, window, march, holders):
    client.force_login(admin_user("ann"))
    response = client.post(
        "/admin/ladder/ratingperiod/",
        {"action": "reopen_periods", "_selected_action": [march.pk], "apply": "Reopen",
         "reason": REASON},
        follow=True,
    )  # fmt: skip
    assert [str(m) for m in get_messages(response.wsgi_request)] == [holders]
    march.refresh_from_db()
    assert march.status == PeriodStatus.CLOSED


def test_admin_action_reopens_for_a_holder(client, window, march, holders):
    client.force_login(User.objects.get(username="zoe"))
    client.post(
        "/admin/ladder/ratingperiod/",
        {"action": "reopen_periods", "_selected_action": [march.pk], "apply": "Reopen",
         "reason": REASON},
    )  # fmt: skip
    march.refresh_from_db()
    assert march.status == PeriodStatus.OPEN


def test_api_answers_403_with_the_refusal(window, march, holders):
    api = APIClient()
    api.force_authenticate(admin_user("ann"))
    response = api.post(f"/api/v1/periods/{march.pk}/reopen/", {"reason": REASON}, format="json")
    assert response.status_code == HTTPStatus.FORBIDDEN
    assert response.json() == {"detail": holders}
    march.refresh_from_db()
    assert march.status == PeriodStatus.CLOSED


def test_api_reopens_for_a_holder(window, march, holders):
    api = APIClient()
    api.force_authenticate(User.objects.get(username="zoe"))
    response = api.post(f"/api/v1/periods/{march.pk}/reopen/", {"reason": REASON}, format="json")
    assert response.status_code == HTTPStatus.OK
    assert response.json()["status"] == "open"


def test_command_exits_with_the_refusal(window, march, holders):
    with pytest.raises(CommandError) as failed:
        call_command("reopen_period", "2026-03", "--reason", REASON)
    assert str(failed.value) == holders
    admin_user("ann")
    with pytest.raises(CommandError) as as_ann:
        call_command("reopen_period", "2026-03", "--reason", REASON, "--user", "ann")
    assert str(as_ann.value) == holders
    march.refresh_from_db()
    assert march.status == PeriodStatus.CLOSED


def test_command_reopens_as_a_holder_and_records_them(window, march, holders):
    call_command("reopen_period", "2026-03", "--reason", REASON, "--user", "zoe")
    log = PeriodLog.objects.get(action=PeriodLog.Action.REOPENED)
    assert (log.user.username, log.reason) == ("zoe", REASON)
    assert march.history.first().history_user.username == "zoe"


def test_command_refuses_an_unknown_user(window, march):
    with pytest.raises(CommandError, match="No active user is called 'nobody'."):
        call_command("reopen_period", "2026-03", "--reason", REASON, "--user", "nobody")


# --- the setting --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["thirty", "3651"])
def test_a_bad_window_is_refused_at_startup(value):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LADDER_"))}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**env, "LADDER_CORRECTION_WINDOW_DAYS": value},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "LADDER_CORRECTION_WINDOW_DAYS must be a whole number of days from 0 to 3650" in (
        result.stderr
    )


def test_the_period_admin_page_says_how_long_the_window_lasts(client, settings, window, march):
    client.force_login(User.objects.create_superuser("root"))
    page = client.get(f"/admin/ladder/ratingperiod/{march.pk}/change/").content.decode()
    assert f"Ended on 1 May 2026 09:00; reopening needs the permission “{LABEL}”." in page
    Publication.objects.filter(period=march).update(published_at=datetime.now(tz=UTC))
    page = client.get(f"/admin/ladder/ratingperiod/{march.pk}/change/").content.decode()
    assert "Open until " in page
    settings.LADDER_CORRECTION_WINDOW_DAYS = None
    page = client.get(f"/admin/ladder/ratingperiod/{march.pk}/change/").content.decode()
    assert "None: the club sets no correction window." in page
