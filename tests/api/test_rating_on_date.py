"""Ratings on any date: ``GET /api/v1/players/{id}/rating/?date=`` and
``GET /api/v1/rating-list/?date=`` (JSON and CSV)."""

import csv
import io
from datetime import UTC, datetime
from http import HTTPStatus

import pytest

from ladder.records import RatingPeriod
from ladder.writes import actions
from ratings.models import Publication
from tests.factories import GameFactory, PlayerFactory

pytestmark = pytest.mark.django_db

LIST = "/api/v1/rating-list/"


def rating(player) -> str:
    return f"/api/v1/players/{player.pk}/rating/"


def published_on(period, revision: int, when: datetime) -> None:
    """Date a publication as if it had been made then (the tests cannot wait for April)."""
    Publication.objects.filter(period=period, revision=revision).update(published_at=when)


@pytest.fixture
def revised_march(closed_march, committed, editor_user):
    """March published on 1 April (Anna 2005), reopened, its game reversed and published
    again on 20 April (revision 2: Anna 1985)."""
    published_on(closed_march.march, 1, datetime(2026, 4, 1, 9, tzinfo=UTC))
    actions.reopen_period(period=closed_march.march, reason="Entered reversed.", user=editor_user)
    with committed():
        actions.correct_game(game=closed_march.win, changes={"result": "0-1"})
    actions.close_period(period=closed_march.march, user=editor_user)
    published_on(closed_march.march, 2, datetime(2026, 4, 20, 18, tzinfo=UTC))
    for player in (closed_march.anna, closed_march.boris):
        player.refresh_from_db()
    return closed_march


def test_no_list_is_in_force_before_the_first_period_ends(anon, closed_march):
    body = anon.get(rating(closed_march.anna), {"date": "2026-03-31"}).json()
    assert (body["date"], body["list"]) == ("2026-03-31", "standard")
    assert (body["official_rating"], body["official_list"], body["on_list"]) == (None, None, False)
    assert body["live"] is None  # not asked for


def test_the_list_in_force_is_the_last_periods_that_ended_before_the_date(anon, revised_march):
    anna = revised_march.anna
    body = anon.get(rating(anna), {"date": "2026-04-10"}).json()
    assert (body["official_rating"], body["on_list"], body["status"]) == (2005, True, "rated")
    assert body["official_list"] == {
        "period": "2026-03", "period_id": revised_march.march.pk, "revision": 1,
        "published_at": "2026-04-01T09:00:00Z", "latest_revision": 2, "revised_since": True,
    }  # fmt: skip
    # From the day revision 2 was published, it is the list in force.
    later = anon.get(rating(anna), {"date": "2026-04-20"}).json()
    assert (later["official_rating"], later["official_list"]["revision"]) == (1985, 2)
    assert later["official_list"]["revised_since"] is False
    assert anon.get(rating(anna), {"date": "2026-06-30"}).json()["official_rating"] == 1985


def test_a_list_published_after_the_date_is_read_as_first_published(anon, revised_march):
    published_on(revised_march.march, 1, datetime(2026, 4, 3, 9, tzinfo=UTC))
    body = anon.get(rating(revised_march.anna), {"date": "2026-04-01"}).json()
    assert (body["official_rating"], body["official_list"]["revision"]) == (2005, 1)


def test_the_live_rating_on_the_day_where_asked(anon, revised_march):
    anna = revised_march.anna
    march = anon.get(rating(anna), {"date": "2026-03-20", "live": "true"}).json()
    # The rating after March as it reads now (the reversed result), while no list is in force.
    assert march["live"] == {"rating": 1985, "period": "2026-03"}
    assert march["official_rating"] is None
    april = anon.get(rating(anna), {"date": "2026-04-10", "live": "1"}).json()
    assert april["live"] == {"rating": anna.rating, "period": "2026-04"}  # the live one now
    assert april["official_rating"] == 2005
    before = anon.get(rating(anna), {"date": "2026-01-01", "live": "1"}).json()
    assert before["live"] == {"rating": 2000, "period": None}  # the entry rating
    # A blank list is the club's default (it was a 500, found by Schemathesis).
    for blank in ("", "  "):
        answer = anon.get(rating(anna), {"date": "2026-01-01", "live": "1", "list": blank})
        assert answer.status_code == 200, answer.content
        assert answer.json()["list"] == "standard"
        assert answer.json()["live"] == before["live"]


def test_a_player_off_the_list_in_force_and_another_list(anon, revised_march, committed):
    newcomer = PlayerFactory(name="Nina New", entry_rating=1700)
    body = anon.get(rating(newcomer), {"date": "2026-04-21"}).json()
    assert (body["official_rating"], body["on_list"], body["status"]) == (None, False, None)
    # The rapid list is published too; Anna is unrated there.
    rapid = anon.get(rating(revised_march.anna), {"date": "2026-04-21", "list": "RAPID"}).json()
    assert (rapid["list"], rapid["official_rating"], rapid["status"]) == ("rapid", None, "unrated")
    assert rapid["official_list"]["period"] == "2026-03"


def test_without_a_date_today(anon, revised_march):
    body = anon.get(rating(revised_march.anna)).json()
    assert (body["official_rating"], body["official_list"]["revision"]) == (1985, 2)
    assert anon.get(rating(revised_march.anna), {"date": ""}).json() == body  # blank: not given


def test_the_first_and_the_last_dates(anon, revised_march):
    last = anon.get(rating(revised_march.anna), {"date": "9999-12-31", "live": "1"}).json()
    assert (last["official_rating"], last["live"]["rating"]) == (1985, revised_march.anna.rating)
    assert anon.get(LIST, {"date": "9999-12-31"}).json()["publication"]["revision"] == 2
    first = anon.get(rating(revised_march.anna), {"date": "0001-01-01"}).json()
    assert (first["official_rating"], first["official_list"]) == (None, None)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"date": "2026-02-30"}, "date"),
        ({"date": "1 March 2026"}, "date"),
        ({"date": "2026/03/01"}, "date"),
        ({"date": "99999-01-01"}, "date"),
        ({"list": "bullet"}, "list"),
        ({"live": "maybe"}, "live"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(anon, closed_march, query, field):
    response = anon.get(rating(closed_march.anna), query)
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert list(response.json()) == [field]


def test_an_unknown_player_is_a_404(anon, closed_march):
    assert anon.get("/api/v1/players/999999/rating/").status_code == HTTPStatus.NOT_FOUND


# --- the whole list in force on a date ----------------------------------------------------


def test_the_list_in_force_on_a_date(anon, revised_march):
    body = anon.get(LIST, {"date": "2026-04-10"}).json()
    assert body["period"]["label"] == "2026-03"
    assert body["publication"]["revision"] == 1
    lines = {row["name"]: row for row in body["results"]}
    assert (lines["Anna Alekhina"]["rating"], lines["Anna Alekhina"]["revision"]) == (2005, 1)
    revised = anon.get(LIST, {"date": "2026-04-21", "list": "standard"}).json()
    assert revised["publication"]["revision"] == 2
    assert {row["name"]: row["rating"] for row in revised["results"]}["Anna Alekhina"] == 1985


def test_the_list_in_force_as_csv(anon, revised_march):
    response = anon.get(LIST, {"date": "2026-04-10", "format": "csv"})
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "rating-list-standard-2026-03-revision-1.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["name"] for row in rows] == ["Anna Alekhina", "Boris Botvin", "Cleo Carls"]
    assert (rows[0]["rating"], rows[0]["revision"], rows[2]["rating"]) == ("2005", "1", "")
    # Asked for by Accept too, and the same columns as the JSON rows.
    negotiated = anon.get(LIST, {"date": "2026-04-10"}, HTTP_ACCEPT="text/csv")
    assert negotiated.content == response.content
    json_row = anon.get(LIST, {"date": "2026-04-10"}).json()["results"][0]
    assert list(rows[0]) == list(json_row)


def test_every_list_of_the_endpoint_as_csv_whole(anon, club, committed):
    with committed():
        players = PlayerFactory.create_batch(60)
        for n, player in enumerate(players):
            GameFactory(white=player, black=club.anna, round=str(n))
    response = anon.get(LIST, {"format": "csv"})  # the latest period, live: every line
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 63  # not a page of 50
    assert "score" in rows[0]


def test_formula_cells_are_neutralised(anon, revised_march):
    PlayerFactory(name="=HYPERLINK(1)", entry_rating=1900)
    revised = anon.get(LIST, {"period": revised_march.april_period.pk, "format": "csv"})
    assert "'=HYPERLINK(1)" in revised.content.decode()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"date": "2026-04-10", "as_published": "false"}, "drop as_published=false."),
        ({"date": "2026-03-31"}, "No standard list was in force on 2026-03-31"),
        ({"date": "2026-04-31"}, "Date has wrong format"),
    ],
)
def test_a_bad_date_is_a_400_naming_it(anon, revised_march, query, message):
    response = anon.get(LIST, query)
    assert response.status_code == HTTPStatus.BAD_REQUEST
    (text,) = response.json()["date"]
    assert message in text
    as_csv = anon.get(LIST, {**query, "format": "csv"})
    assert as_csv.status_code == HTTPStatus.BAD_REQUEST
    assert as_csv.content.decode().startswith("field,message\ndate,")


def test_a_period_or_revision_with_a_date_must_be_the_one_in_force(anon, revised_march):
    """A date chooses the list; a period or revision sent with it is checked against it."""
    march = revised_march.march
    agreed = anon.get(LIST, {"date": "2026-04-10", "period": march.pk, "revision": 1})
    assert agreed.status_code == HTTPStatus.OK, agreed.content
    assert agreed.json()["publication"]["revision"] == 1
    other = anon.get(LIST, {"date": "2026-04-10", "revision": 2})
    assert other.status_code == HTTPStatus.BAD_REQUEST
    assert other.json() == {
        "revision": [
            "The standard list in force on 2026-04-10 is revision 1: drop revision, or ask "
            "for that one."
        ]
    }
    elsewhere = anon.get(LIST, {"date": "2026-04-10", "period": march.pk + 1, "format": "csv"})
    assert elsewhere.status_code == HTTPStatus.BAD_REQUEST
    assert f"is period {march.pk} (2026-03)" in elsewhere.content.decode()


# --- query budgets and the schema -----------------------------------------------------------


@pytest.mark.parametrize("size", [3, 80])
def test_a_constant_number_of_queries(anon, club, committed, django_assert_max_num_queries, size):
    with committed():
        players = PlayerFactory.create_batch(size)
        for n, player in enumerate(players):
            GameFactory(white=player, black=club.boris, round=str(n))
    actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    # The player, the list in force, the player's line on it, the live row.
    with django_assert_max_num_queries(4):
        response = anon.get(rating(players[-1]), {"date": "2026-04-02", "live": "1"})
    assert response.json()["official_rating"] is not None
    with django_assert_max_num_queries(3):  # the list in force, the publication, its lines
        response = anon.get(LIST, {"date": "2026-04-02"})
    assert response.json()["count"] == size + 3
    with django_assert_max_num_queries(3):
        response = anon.get(LIST, {"date": "2026-04-02", "format": "csv"})
    assert response.content.decode().count("\n") == size + 4


def test_the_schema_documents_both(anon):
    paths = anon.get("/api/v1/schema/?format=json").json()["paths"]
    operation = paths["/api/v1/players/{id}/rating/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"id", "date", "list", "live"}
    assert set(operation["responses"]) == {"200", "301", "400", "404"}  # 301: a merged player's id
    listed = paths["/api/v1/rating-list/"]["get"]
    assert {"date", "format"} <= {p["name"] for p in listed["parameters"]}
    assert "text/csv" in listed["responses"]["200"]["content"]
