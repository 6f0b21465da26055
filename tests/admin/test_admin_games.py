"""Games: list, filters, search; corrections and deletions say what the recompute changed;
games of a closed period are refused with a message that says how to reopen it."""

from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.messages import get_messages

from ladder.records import Game, PeriodStatus, Player, RatingPeriod
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

CLOSED_MARCH = (
    "The period 2026-03 is closed; its games are frozen. Reopen it first (admin action "
    "'Reopen', or: manage.py reopen_period 2026-03 --reason '...')."
)


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def close(period: RatingPeriod) -> None:
    RatingPeriod.objects.filter(pk=period.pk).update(status=PeriodStatus.CLOSED)


@pytest.fixture
def game(club, march, make_games):
    return make_games(1, white=club["Alice Brown"], black=club["Bob Green"], result="1-0")[0]


def form_data(game: Game, **changes) -> dict:
    data = {
        "date": game.date.isoformat(),
        "white": game.white_id,
        "black": game.black_id,
        "result": game.result,
        "event": game.event,
        "round": game.round,
    }
    return data | changes


def test_changelist_search_and_filters(admin_client, club, march, april):
    GameFactory(white=club["Alice Brown"], black=club["Bob Green"], event="Spring Open")
    GameFactory(
        date=date(2026, 4, 2), white=club["Carol White"], black=club["Dan Black"], result="0-1"
    )
    url = "/admin/ladder/game/"
    assert admin_client.get(url).context["cl"].result_count == 2
    assert admin_client.get(url, {"q": "carol"}).context["cl"].result_count == 1
    assert admin_client.get(url, {"period__id__exact": april.pk}).context["cl"].result_count == 1
    assert admin_client.get(url, {"event": "Spring Open"}).context["cl"].result_count == 1
    assert admin_client.get(url, {"result": "0-1"}).context["cl"].result_count == 1
    by_month = admin_client.get(url, {"date__year": 2026, "date__month": 3})
    assert by_month.context["cl"].result_count == 1


def test_add_game_says_what_the_recompute_changed(admin_client, club, march, committed):
    data = {
        "date": "2026-03-10",
        "white": club["Alice Brown"].pk,
        "black": club["Bob Green"].pk,
        "result": "1-0",
        "event": "",
        "round": "",
    }
    with committed():
        response = admin_client.post("/admin/ladder/game/add/", data)
    assert response.status_code == HTTPStatus.FOUND
    assert "2026-03 recomputed: 2 players' ratings changed." in messages_of(response)
    assert Game.objects.get().period == march


def test_add_game_refuses_self_play(admin_client, club, march):
    alice = club["Alice Brown"].pk
    data = {"date": "2026-03-10", "white": alice, "black": alice, "result": "1-0"}
    response = admin_client.post("/admin/ladder/game/add/", data)
    assert response.status_code == HTTPStatus.OK
    assert "A player cannot play themselves." in response.content.decode()
    assert not Game.objects.exists()


def test_correction_says_what_the_recompute_changed(admin_client, game, april, committed):
    assert Player.objects.get(name="Alice Brown").rating == 1907  # K 20, D 100: 1 - 0.64 = +7.2
    with committed():
        response = admin_client.post(
            f"/admin/ladder/game/{game.pk}/change/",
            form_data(game, result="0-1", date="2026-04-02"),
        )
    assert response.status_code == HTTPStatus.FOUND
    assert "2026-03 to 2026-04 recomputed: 2 players' ratings changed." in messages_of(response)
    game.refresh_from_db()
    assert (game.result, game.period) == ("0-1", april)
    # Now a loss in April: 0 - 0.64 = -12.8.
    assert Player.objects.get(name="Alice Brown").rating == 1887


def test_change_page_of_a_closed_game_explains_how_to_reopen(admin_client, game, march):
    close(march)
    response = admin_client.get(f"/admin/ladder/game/{game.pk}/change/")
    assert response.status_code == HTTPStatus.OK
    assert CLOSED_MARCH.replace("'", "&#x27;") in response.content.decode()


def test_correcting_a_closed_game_is_refused(admin_client, game, march):
    close(march)
    url = f"/admin/ladder/game/{game.pk}/change/"
    response = admin_client.post(url, form_data(game, result="0-1"))
    assert response.status_code == HTTPStatus.FOUND
    assert messages_of(response) == []  # the page it lands on says why, once
    page = admin_client.get(response.url).content.decode()
    assert page.count("is closed; its games are frozen") == 1
    game.refresh_from_db()
    assert game.result == "1-0"


def test_a_frozen_game_offers_no_save_or_delete_but_a_reopen_button(admin_client, game, march):
    close(march)
    page = admin_client.get(f"/admin/ladder/game/{game.pk}/change/").content.decode()
    assert 'name="_save"' not in page
    assert 'name="_continue"' not in page
    assert "/delete/" not in page
    assert 'action="/admin/ladder/ratingperiod/"' in page
    assert '<input type="hidden" name="action" value="reopen_periods">' in page
    assert f'<input type="hidden" name="_selected_action" value="{march.pk}">' in page
    assert "Reopen 2026-03…" in page
    # The button leads to the existing reopen action, which asks the reason.
    reopen = admin_client.post(
        "/admin/ladder/ratingperiod/", {"action": "reopen_periods", "_selected_action": march.pk}
    )
    assert reopen.status_code == HTTPStatus.OK
    assert "Why the period is reopened" in reopen.content.decode()


def test_a_correction_in_a_reopened_period_offers_to_close_it_again(
    admin_client, game, march, committed
):
    close(march)
    admin_client.post(
        "/admin/ladder/ratingperiod/",
        {"action": "reopen_periods", "_selected_action": march.pk, "apply": "1",
         "reason": "Round 3 was entered reversed."},
    )  # fmt: skip
    with committed():
        response = admin_client.post(
            f"/admin/ladder/game/{game.pk}/change/", form_data(game, result="0-1")
        )
    assert response.status_code == HTTPStatus.FOUND
    reminder = [m for m in messages_of(response) if "reopened for corrections" in m]
    assert reminder == [
        "The period 2026-03 was reopened for corrections. When they are done, "
        '<a href="/admin/ladder/ratingperiod/?status__exact=open">close it again</a> to '
        "publish the corrected list."
    ]


def test_no_reminder_in_a_period_never_closed(admin_client, game, committed):
    with committed():
        response = admin_client.post(
            f"/admin/ladder/game/{game.pk}/change/", form_data(game, result="0-1")
        )
    assert not [m for m in messages_of(response) if "reopened" in m]


def test_changelist_is_newest_first_with_the_result_beside_the_players(admin_client, club, march):
    GameFactory(date=date(2026, 3, 2), white=club["Alice Brown"], black=club["Bob Green"])
    GameFactory(date=date(2026, 3, 20), white=club["Carol White"], black=club["Dan Black"])
    response = admin_client.get("/admin/ladder/game/")
    dates = [g.date.day for g in response.context["cl"].result_list]
    assert dates == [20, 2]
    assert response.context["cl"].list_display[2:5] == ["white", "result", "black"]


def test_moving_a_game_into_a_closed_period_is_refused(admin_client, game, march, april):
    close(march)
    other = GameFactory(date=date(2026, 4, 3), white=game.white, black=game.black)
    response = admin_client.post(
        f"/admin/ladder/game/{other.pk}/change/", form_data(other, date="2026-03-20")
    )
    assert response.status_code == HTTPStatus.OK
    assert CLOSED_MARCH.replace("'", "&#x27;") in response.content.decode()
    other.refresh_from_db()
    assert other.date == date(2026, 4, 3)


def test_deleting_a_closed_game_is_refused(admin_client, game, march):
    close(march)
    url = f"/admin/ladder/game/{game.pk}/delete/"
    for response in (admin_client.get(url), admin_client.post(url, {"post": "yes"})):
        assert response.status_code == HTTPStatus.FOUND
        assert response.url == f"/admin/ladder/game/{game.pk}/change/"
        assert messages_of(response) == []  # the change page says why, once
    assert Game.objects.filter(pk=game.pk).exists()


def test_delete_says_what_the_recompute_changed(admin_client, game, committed):
    with committed():
        response = admin_client.post(f"/admin/ladder/game/{game.pk}/delete/", {"post": "yes"})
    assert response.status_code == HTTPStatus.FOUND
    assert "2026-03 recomputed: 2 players' ratings changed." in messages_of(response)
    assert not Game.objects.exists()
    assert Player.objects.get(name="Alice Brown").rating == 1900


def test_bulk_delete_refuses_games_of_a_closed_period(admin_client, game, march, april):
    close(march)
    other = GameFactory(date=date(2026, 4, 3), white=game.white, black=game.black)
    data = {"action": "delete_selected", "_selected_action": [game.pk, other.pk], "post": "yes"}
    response = admin_client.post("/admin/ladder/game/", data)
    assert messages_of(response) == [f"Nothing was deleted. {CLOSED_MARCH}"]
    assert Game.objects.count() == 2


def test_bulk_delete_of_open_games(admin_client, game, committed):
    data = {"action": "delete_selected", "_selected_action": [game.pk]}
    confirm = admin_client.post("/admin/ladder/game/", data)
    assert confirm.status_code == HTTPStatus.OK
    assert "Yes, I’m sure" in confirm.content.decode()
    with committed():
        response = admin_client.post("/admin/ladder/game/", data | {"post": "yes"})
    assert "2026-03 recomputed: 2 players' ratings changed." in messages_of(response)
    assert not Game.objects.exists()


def test_history_shows_who_changed_a_game(admin_client, club_admin, game, committed):
    with committed():
        admin_client.post(f"/admin/ladder/game/{game.pk}/change/", form_data(game, result="0-1"))
    response = admin_client.get(f"/admin/ladder/game/{game.pk}/history/")
    assert response.status_code == HTTPStatus.OK
    history = list(game.history.order_by("history_date"))
    assert [h.result for h in history] == ["1-0", "0-1"]
    assert history[-1].history_user == club_admin
    assert "clubadmin" in response.content.decode()
