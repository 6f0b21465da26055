"""Periods: counts without N+1, close / reopen (with a recorded reason) / recompute, the report."""

from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.messages import get_messages

from ladder.admin import periods
from ladder.records import PeriodLog, PeriodStatus, RatingPeriod

pytestmark = pytest.mark.django_db

URL = "/admin/ladder/ratingperiod/"


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def shown(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def act(client, action, *periods, **extra):
    """Run an action and follow its redirect, so each response carries only its own messages."""
    data = {"action": action, "_selected_action": [p.pk for p in periods], **extra}
    return client.post(URL, data, follow=True)


@pytest.fixture
def two_months(club, march, april, make_games):
    alice, bob, carol = club["Alice Brown"], club["Bob Green"], club["Carol White"]
    make_games(1, white=alice, black=bob, result="1-0")
    make_games(1, white=bob, black=carol, result="1/2-1/2")
    make_games(1, white=alice, black=carol, result="0-1", date=date(2026, 4, 4))
    return march, april


def test_changelist_shows_status_games_players_and_dates(admin_client, two_months):
    response = admin_client.get(URL)
    rows = {
        p.label: (p.status, p.game_count, p.player_count, p.start)
        for p in response.context["cl"].result_list
    }
    assert rows == {
        "2026-03": ("open", 2, 3, date(2026, 3, 1)),
        "2026-04": ("open", 1, 2, date(2026, 4, 1)),
    }


def test_close_in_order(admin_client, two_months):
    march, april = two_months
    response = act(admin_client, "close_periods", april)
    assert shown(response) == [
        "The earlier period 2026-03 is still open; periods close in order, so close 2026-03 first."
    ]
    response = act(admin_client, "close_periods", march, april)
    closed = shown(response)
    assert [m.split(" Published:")[0] for m in closed] == [
        "The period 2026-03 is closed; its games are frozen.",
        "The period 2026-04 is closed; its games are frozen.",
    ]
    assert "standard list, revision 1" in closed[0]  # what closing published, linked
    assert set(RatingPeriod.objects.values_list("status", flat=True)) == {PeriodStatus.CLOSED}
    assert PeriodLog.objects.filter(action="closed").count() == 2


def test_closing_a_closed_period_is_refused(admin_client, march):
    act(admin_client, "close_periods", march)
    response = act(admin_client, "close_periods", march)
    assert shown(response) == ["The period 2026-03 is already closed."]


def test_reopen_asks_for_a_reason_records_and_shows_it(admin_client, club_admin, march):
    act(admin_client, "close_periods", march)
    form = act(admin_client, "reopen_periods", march)
    assert form.status_code == HTTPStatus.OK
    assert "Reopen rating periods" in form.content.decode()
    march.refresh_from_db()
    assert march.is_closed
    blank = act(admin_client, "reopen_periods", march, apply="Reopen", reason="  ")
    assert "Give a reason to reopen a period; it is recorded." in blank.content.decode()
    march.refresh_from_db()
    assert march.is_closed
    response = act(
        admin_client, "reopen_periods", march, apply="Reopen", reason="Board 3 result was swapped."
    )
    assert response.redirect_chain == [(URL, HTTPStatus.FOUND)]
    assert shown(response) == [
        "The period 2026-03 is reopened; its games can be corrected. Close it again when they are."
    ]
    march.refresh_from_db()
    assert not march.is_closed
    log = PeriodLog.objects.get(action="reopened")
    assert (log.reason, log.user) == ("Board 3 result was swapped.", club_admin)
    page = admin_client.get(f"{URL}{march.pk}/change/").content.decode()
    assert "Board 3 result was swapped." in page


def test_the_period_history_says_who_closed_and_reopened_it_and_why(
    admin_client, club_admin, march
):
    act(admin_client, "close_periods", march)
    act(admin_client, "reopen_periods", march, apply="Reopen", reason="Board 3 result was swapped.")
    act(admin_client, "reopen_periods", march, apply="Reopen", reason="x" * 300)  # already open
    versions = list(march.history.order_by("history_date", "history_id"))
    assert [(v.status, v.history_change_reason, v.history_user) for v in versions] == [
        ("open", None, None),
        ("closed", "Closed: its list is published.", club_admin),
        ("open", "Reopened: Board 3 result was swapped.", club_admin),
    ]
    page = admin_client.get(f"{URL}{march.pk}/history/").content.decode()
    assert "Reopened: Board 3 result was swapped." in page
    assert "Closed: its list is published." in page


def test_a_long_reopen_reason_is_shortened_in_the_history_and_kept_whole_in_the_log(
    admin_client, march
):
    act(admin_client, "close_periods", march)
    act(admin_client, "reopen_periods", march, apply="Reopen", reason="Swapped. " * 40)
    reason = march.history.first().history_change_reason
    assert len(reason) == 100
    assert reason.startswith("Reopened: Swapped. Swapped.")
    assert reason.endswith("…")
    assert PeriodLog.objects.get(action="reopened").reason == ("Swapped. " * 40).strip()


def test_reopening_an_open_period_is_refused(admin_client, march):
    response = act(admin_client, "reopen_periods", march, apply="Reopen", reason="Typo.")
    assert shown(response) == ["The period 2026-03 is already open."]


@pytest.mark.django_db(transaction=True)
def test_recompute_says_what_changed(admin_client, two_months):
    # Real commits: the run executes after the action's commit, before the redirect is shown.
    march, _ = two_months
    response = act(admin_client, "recompute_periods", march)
    assert shown(response) == [  # one run a list
        "2026-03 to 2026-04 recomputed: 0 players' ratings changed.",
        "Rapid list: 2026-03 to 2026-04 recomputed: 0 players' ratings changed.",
        "Blitz list: 2026-03 to 2026-04 recomputed: 0 players' ratings changed.",
    ]


def test_change_page_shows_the_full_rating_report(admin_client, two_months):
    march, _ = two_months
    response = admin_client.get(f"{URL}{march.pk}/change/")
    assert response.status_code == HTTPStatus.OK
    report = response.context["report"]
    assert [(r.player.name, r.rating_before, r.change, r.rating_after) for r in report] == [
        ("Alice Brown", 1900, 7, 1907),
        ("Bob Green", 1800, -10, 1790),
        ("Carol White", 1700, 3, 1703),
    ]
    content = response.content.decode()
    assert "Rating report for 2026-03" in content
    assert "20: 50 rated games, never 2400+" in content
    assert "+7" in content
    assert "-10" in content


def test_change_page_shows_the_rating_report_a_page_at_a_time(
    admin_client, two_months, monkeypatch
):
    monkeypatch.setattr(periods, "REPORT_PER_PAGE", 2)
    march, _ = two_months
    first = admin_client.get(f"{URL}{march.pk}/change/")
    second = admin_client.get(f"{URL}{march.pk}/change/", {"rpage": "2"})

    assert [r.player.name for r in first.context["report"]] == ["Alice Brown", "Bob Green"]
    assert [r.player.name for r in second.context["report"]] == ["Carol White"]
    assert "Page 1 of 2" in first.content.decode()
    assert 'href="?rpage=2"' in first.content.decode()
    # not a number, or past the end: the first or the last page, never an error
    assert admin_client.get(f"{URL}{march.pk}/change/", {"rpage": "x"}).status_code == 200
    assert (
        admin_client.get(f"{URL}{march.pk}/change/", {"rpage": "9"}).context["report"].number == 2
    )


def test_closed_period_dates_are_read_only(admin_client, march):
    act(admin_client, "close_periods", march)
    form = admin_client.get(f"{URL}{march.pk}/change/").context["adminform"].form
    assert "start" not in form.fields


def test_changing_a_period_s_dates_says_what_the_recompute_changed(
    admin_client, two_months, committed
):
    march, _ = two_months
    data = {
        "label": "2026-03",
        "start": "2026-03-01",
        "end": "2026-03-30",
        "log-TOTAL_FORMS": "0",
        "log-INITIAL_FORMS": "0",
        "log-MIN_NUM_FORMS": "0",
        "log-MAX_NUM_FORMS": "0",
    }
    with committed():
        response = admin_client.post(f"{URL}{march.pk}/change/", data)
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:3000]
    assert "2026-03 to 2026-04 recomputed: 0 players' ratings changed." in messages_of(response)


def test_overlapping_period_is_refused(admin_client, march):
    data = {
        "label": "March bis",
        "start": "2026-03-15",
        "end": "2026-04-14",
        "log-TOTAL_FORMS": "0",
        "log-INITIAL_FORMS": "0",
        "log-MIN_NUM_FORMS": "0",
        "log-MAX_NUM_FORMS": "0",
    }
    response = admin_client.post(f"{URL}add/", data)
    assert (
        "The period 2026-03-15 to 2026-04-14 overlaps 2026-03 (2026-03-01 to 2026-03-31); "
        "periods cannot overlap." in response.content.decode()
    )
