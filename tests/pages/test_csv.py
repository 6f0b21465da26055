"""CSV downloads from the pages: a period's list and games, a player's history."""

from http import HTTPStatus
from io import StringIO

import pytest
from django.core.management import call_command

from ladder.records import RatingPeriod

pytestmark = pytest.mark.django_db


def test_the_period_list_as_the_command_writes_it(client, example_a):
    response = client.get("/periods/2026-03/list.csv")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert (
        response["Content-Disposition"] == 'attachment; filename="rating-list-standard-2026-03.csv"'
    )
    out = StringIO()
    call_command("rating_list", "--period", "2026-03", "--format", "csv", stdout=out)
    assert response.content.decode().splitlines() == out.getvalue().splitlines()


def test_the_period_games_in_the_import_format(client, example_a):
    lines = client.get("/periods/2026-03/games.csv").content.decode().splitlines()
    assert lines[0] == "date,white,black,result,event,round,list,time_control"
    assert lines[1] == "2026-03-02,Ada Example,Opponent 1420,1-0,,,standard,"
    assert len(lines) == 10


def test_a_players_history(client, example_a):
    response = client.get(f"/players/{example_a.pk}/history.csv")
    header, row = response.content.decode().splitlines()
    assert header.startswith("period,start,end,rating_before,k,games,score,expected")
    assert row == "2026-03,2026-03-01,2026-03-31,1850,20,9,5.50,4.78,14.40,14,1864,rated,1908"


def test_the_pages_link_to_the_downloads(client, example_a):
    assert b"/periods/2026-03/list.csv?list=standard" in client.get("/periods/2026-03/").content
    page = client.get(f"/players/{example_a.pk}/").content
    assert f"/players/{example_a.pk}/history.csv?list=standard".encode() in page


@pytest.mark.parametrize("url", ["/periods/1999-01/list.csv", "/periods/1999-01/games.csv",
                                 "/players/999999/history.csv"])  # fmt: skip
def test_unknown_ones_are_404(client, db, url):
    assert client.get(url).status_code == HTTPStatus.NOT_FOUND


def test_a_constant_number_of_queries(client, build_ladder, django_assert_max_num_queries):
    build_ladder(30)
    label = RatingPeriod.objects.order_by("start").first().label
    with django_assert_max_num_queries(4):
        client.get(f"/periods/{label}/list.csv")
    with django_assert_max_num_queries(4):
        client.get(f"/periods/{label}/games.csv")


def test_a_closed_periods_list_is_the_published_one(client, example_a, committed):
    from ladder.records import Player
    from ladder.writes import actions

    with committed():
        idle = actions.save_player(player=Player(name="Idle Member", entry_rating=1600))
        actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    published = client.get("/periods/2026-03/list.csv").content.decode()
    with committed():  # entry data of a member with no game, and a newcomer
        idle.entry_rating = 2400
        actions.save_player(player=idle)
        actions.save_player(player=Player(name="Later Arrival", entry_rating=1700))

    assert client.get("/periods/2026-03/list.csv").content.decode() == published
    assert "Idle Member" in published
    assert "Later Arrival" not in published


def test_a_formula_in_a_name_is_neutralised(client, example_a):
    example_a.name = '=HYPERLINK("http://evil.example")'
    example_a.save()

    body = client.get("/periods/2026-03/list.csv").content.decode()

    assert "'=HYPERLINK" in body
    assert ",=HYPERLINK" not in body
