"""Periods: list, detail with the rating report, close and reopen."""

from http import HTTPStatus

import pytest

from ladder.records import PeriodLog, PeriodStatus

pytestmark = pytest.mark.django_db

PERIODS = "/api/v1/periods/"


def test_list_newest_first_with_game_counts(anon, club):
    response = anon.get(PERIODS)

    assert response.status_code == HTTPStatus.OK
    rows = response.json()["results"]
    assert [(r["label"], r["games"], r["status"]) for r in rows] == [
        ("2026-04", 1, "open"),
        ("2026-03", 2, "open"),
    ]
    assert rows[1]["start"] == "2026-03-01"
    assert rows[1]["end"] == "2026-03-31"


@pytest.mark.parametrize(
    ("query", "labels"),
    [
        ("status=closed", ["2026-03"]),
        ("status=open", ["2026-04"]),
        ("label=2026-04", ["2026-04"]),
        ("year=2026&ordering=start", ["2026-03", "2026-04"]),
        ("year=2025", []),
    ],
)
def test_filters(anon, closed_march, query, labels):
    rows = anon.get(f"{PERIODS}?{query}").json()["results"]

    assert [r["label"] for r in rows] == labels


def test_bad_year_is_400(anon, club):
    response = anon.get(f"{PERIODS}?year=0")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "year" in response.json()


def test_detail_carries_the_report(anon, club):
    response = anon.get(f"{PERIODS}{club.march.pk}/")

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["label"] == "2026-03"
    assert body["log"] == []
    by_name = {row["player"]["name"]: row for row in body["report"]}
    assert set(by_name) == {"Anna Alekhina", "Boris Botvin", "Cleo Carls"}
    anna = by_name["Anna Alekhina"]
    assert (anna["rating_before"], anna["change"], anna["rating_after"]) == (2000, 5, 2005)
    assert anna["k_reason"] == "50 rated games, never 2400+"
    assert anna["score"] == "1.00"
    assert by_name["Cleo Carls"]["status"] == "unrated"


def test_unknown_period_is_404(anon, db):
    assert anon.get(f"{PERIODS}4242/").status_code == HTTPStatus.NOT_FOUND


def test_close_a_period(editor, club, committed):
    with committed():
        response = editor.post(f"{PERIODS}{club.march.pk}/close/")

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["status"] == "closed"
    assert body["closed_at"] is not None
    assert body["log"][0]["action"] == "closed"
    assert body["log"][0]["user"] == "editor"


def test_close_out_of_order_is_409(editor, club):
    response = editor.post(f"{PERIODS}{club.april_period.pk}/close/")

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {
        "non_field_errors": [
            "The earlier period 2026-03 is still open; periods close in order, "
            "so close 2026-03 first."
        ]
    }


def test_close_a_closed_period_is_409(editor, closed_march):
    response = editor.post(f"{PERIODS}{closed_march.march.pk}/close/")

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {"non_field_errors": ["The period 2026-03 is already closed."]}


def test_reopen_records_the_reason(editor, closed_march, committed):
    with committed():
        response = editor.post(
            f"{PERIODS}{closed_march.march.pk}/reopen/",
            {"reason": "Round 3 was entered reversed."},
            format="json",
        )

    assert response.status_code == HTTPStatus.OK
    assert response.json()["status"] == "open"
    log = PeriodLog.objects.filter(period=closed_march.march).first()
    assert (log.action, log.reason, log.user.username) == (
        "reopened",
        "Round 3 was entered reversed.",
        "editor",
    )


def test_reopen_needs_a_reason(editor, closed_march):
    response = editor.post(
        f"{PERIODS}{closed_march.march.pk}/reopen/", {"reason": "  "}, format="json"
    )

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {"reason": ["Give a reason to reopen a period; it is recorded."]}
    closed_march.march.refresh_from_db()
    assert closed_march.march.status == PeriodStatus.CLOSED


def test_reopen_without_the_field_is_400(editor, closed_march):
    response = editor.post(f"{PERIODS}{closed_march.march.pk}/reopen/", {}, format="json")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {"reason": ["This field is required."]}


def test_reopen_an_open_period_is_409(editor, club):
    response = editor.post(f"{PERIODS}{club.march.pk}/reopen/", {"reason": "x"}, format="json")

    assert response.status_code == HTTPStatus.CONFLICT
    assert response.json() == {"non_field_errors": ["The period 2026-03 is already open."]}


def test_close_unknown_period_is_404(editor, db):
    assert editor.post(f"{PERIODS}4242/close/").status_code == HTTPStatus.NOT_FOUND


def test_periods_cannot_be_written_directly(superuser, club):
    response = superuser.delete(f"{PERIODS}{club.march.pk}/")

    assert response.status_code == HTTPStatus.METHOD_NOT_ALLOWED


def test_a_reopened_period_takes_games_again(editor, closed_march, committed):
    club = closed_march
    with committed():
        editor.post(
            f"{PERIODS}{club.march.pk}/reopen/", {"reason": "A late result."}, format="json"
        )
        response = editor.post(
            "/api/v1/games/",
            {"date": "2026-03-20", "white": club.cleo.pk, "black": club.anna.pk, "result": "1-0"},
            format="json",
        )

    assert response.status_code == HTTPStatus.CREATED
    assert club.cleo.rating_changes.get(period=club.march).games == 2


def test_the_public_sees_a_role_where_staff_see_the_user_name(editor, anon, club, committed):
    with committed():
        editor.post(f"{PERIODS}{club.march.pk}/close/")

    public = anon.get(f"{PERIODS}{club.march.pk}/").json()
    staff = editor.get(f"{PERIODS}{club.march.pk}/").json()

    assert public["log"][0]["user"] == "Club administrator"
    assert {p["published_by"] for p in public["publications"]} == {"Club administrator"}
    assert "editor" not in str(public)
    assert staff["log"][0]["user"] == "editor"
    assert {p["published_by"] for p in staff["publications"]} == {"editor"}
