"""Tournaments at every door (FIDE.md 10.1): a tournament's games are rated in the period that
rates it, with the list in force on its first day; a late report is refused past the third list
after its end (9.1); today's files import as before."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from ladder.exceptions import ImportFailed
from ladder.files import csv_import
from ladder.records import Game, RatingPeriod, Tournament
from ladder.writes import actions
from ratings import selectors
from ratings.models import RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

HEADER = "date,white,black,result,tournament,start,end,rated_in\n"


@pytest.fixture
def club():
    a = PlayerFactory(name="Ann Able", entry_rating=1800)
    b = PlayerFactory(name="Bea Best", entry_rating=1800)
    c = PlayerFactory(name="Cy Cole", entry_rating=2200)
    return a, b, c


def imported(text: str) -> list[Game]:
    return csv_import.import_games(StringIO(text))


def refused(text: str) -> str:
    with pytest.raises(ImportFailed) as caught:
        imported(text)
    return str(caught.value)


def test_a_file_without_tournament_columns_makes_each_event_a_tournament_inside_its_month(club):
    games = imported(
        "date,white,black,result,event\n"
        "2026-03-04,Ann Able,Bea Best,1-0,Spring\n"
        "2026-03-11,Bea Best,Ann Able,1-0,Spring\n"
        "2026-03-12,Ann Able,Cy Cole,0-1,\n"
    )
    spring = Tournament.objects.get(name="Spring")
    assert (spring.start, spring.end, spring.rated_in.label) == (
        date(2026, 3, 1),
        date(2026, 3, 31),
        "2026-03",
    )
    assert {g.tournament.name for g in games} == {"Spring", "Games of 2026-03"}
    assert games[2].event == ""  # a game with no event keeps none


def test_a_tournament_over_the_turn_of_the_month_is_rated_with_the_list_at_its_start(
    club, committed
):
    a, b, c = club
    # October: Ann beats Cy (1800 v 2200: D -400, PD .08): +18 with K 20, 1818 on November's list.
    with committed():
        imported(HEADER + "2025-10-05,Ann Able,Cy Cole,1-0,,,,\n")
    with committed():
        games = imported(
            HEADER
            + "2025-10-31,Ann Able,Bea Best,1/2-1/2,Halloween Open,2025-10-31,2025-11-02,\n"
            + "2025-11-02,Bea Best,Ann Able,1/2-1/2,Halloween Open,2025-10-31,2025-11-02,\n"
        )
    november = RatingPeriod.objects.get(label="2025-11")
    assert {g.period for g in games} == {november}  # the period holding its last day
    halloween = Tournament.objects.get(name="Halloween Open")
    assert halloween.spans_periods
    assert halloween.origin == Tournament.Origin.CSV
    ann = RatingChange.objects.get(player=a, period=november)
    # The October list (Ann 1800, Bea 1800): two draws at PD .50, nothing changes; with the
    # November list Ann would have lost 1 (1818 v 1800: PD .53).
    assert (ann.rating_before, ann.expected_units, ann.change, ann.rating_after) == (
        1818,
        10000,
        0,
        1818,
    )
    lines = selectors.game_lines(a, [november])[november.pk]
    assert [(line.opponent_rating, line.calculation.difference, str(line.calculation.expected))
            for line in lines] == [(1800, 0, "0.50"), (1800, 0, "0.50")]  # fmt: skip


def test_a_late_report_is_rated_in_a_later_period_and_refused_past_the_third_list(club):
    for label, start in (("2026-05", "2026-05-01"), ("2026-06", "2026-06-01")):
        RatingPeriod.objects.create(label=label, start=start, end=start[:8] + "28")
    RatingPeriod.objects.create(label="2026-07", start="2026-07-01", end="2026-07-31")
    games = imported(HEADER + "2026-04-12,Ann Able,Bea Best,1-0,April Cup,2026-04-11,2026-04-12,"
                     "2026-06\n")  # fmt: skip
    assert games[0].period.label == "2026-06"
    assert "2026-04" not in set(RatingPeriod.objects.values_list("label", flat=True))
    message = refused(
        HEADER + "2026-04-19,Ann Able,Bea Best,1-0,Late Cup,2026-04-18,2026-04-19,2026-07\n"
    )
    assert "line 2, column 'rated_in': The period 2026-07 is past the third list after " in (
        message
    )
    assert "FIDE does not rate a report that late (9.1)." in message
    assert not Tournament.objects.filter(name="Late Cup").exists()


@pytest.mark.parametrize(
    ("row", "column", "sentence"),
    [
        ("2026-03-04,Ann Able,Bea Best,1-0,Cup,,2026-03-05,", "start",
         "The tournament's start is missing."),
        ("2026-03-04,Ann Able,Bea Best,1-0,Cup,2026-03-04,,", "end",
         "The tournament's end is missing."),
        ("2026-03-04,Ann Able,Bea Best,1-0,Cup,2026-03-06,2026-03-05,", "end",
         "A tournament cannot end before it starts."),
        ("2026-03-09,Ann Able,Bea Best,1-0,Cup,2026-03-04,2026-03-05,", "date",
         "2026-03-09 lies outside the tournament Cup (2026-03-04 to 2026-03-05)."),
        ("2026-03-04,Ann Able,Bea Best,1-0,Cup,2026-03-04,2026-03-05,2025-13", "rated_in",
         "No rating period is labelled '2025-13'."),
        ("2026-03-04,Ann Able,Bea Best,1-0,Cup,2026-03-04,2026-13-05,", "end",
         "'2026-13-05' is not a date"),
    ],
)  # fmt: skip
def test_a_bad_tournament_in_a_file_names_the_line_and_column(club, row, column, sentence):
    message = refused(HEADER + row + "\n")
    assert f"line 2, column '{column}': {sentence}" in message
    assert not Game.objects.exists()
    assert not Tournament.objects.exists()


def test_a_late_reports_closed_period_is_refused_with_how_to_reopen_it(club):
    a, b, _ = club
    imported(HEADER + "2026-03-04,Ann Able,Bea Best,1-0,,,,\n")
    actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    # A game of March in a tournament rated in April is not a game of the closed March.
    games = imported(HEADER + "2026-03-30,Ann Able,Bea Best,0-1,Easter,2026-03-30,2026-04-01,\n")
    assert games[0].period.label == "2026-04"
    message = refused(HEADER + "2026-03-20,Ann Able,Bea Best,0-1,Ides,2026-03-15,2026-03-20,\n")
    assert "The period 2026-03 is closed; its games are frozen." in message


@pytest.fixture
def api(client):
    admin = User.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(admin)
    return client


def test_the_api_adds_a_tournament_and_a_game_names_it(api, club):
    a, b, _ = club
    answer = api.post(
        "/api/v1/tournaments/",
        {"name": "Autumn Open", "start": "2026-03-30", "end": "2026-04-02"},
        content_type="application/json",
    )
    assert answer.status_code == HTTPStatus.CREATED, answer.content
    body = answer.json()
    assert (body["rated_in"], body["spans_periods"], body["games"]) == ("2026-04", True, 0)
    game = api.post(
        "/api/v1/games/",
        {"date": "2026-03-31", "white": a.pk, "black": b.pk, "result": "1-0",
         "tournament": body["id"]},
        content_type="application/json",
    )  # fmt: skip
    assert game.status_code == HTTPStatus.CREATED, game.content
    assert game.json()["period"]["label"] == "2026-04"
    assert game.json()["event"] == "Autumn Open"
    outside = api.post(
        "/api/v1/games/",
        {"date": "2026-04-09", "white": b.pk, "black": a.pk, "result": "1-0",
         "tournament": body["id"]},
        content_type="application/json",
    )  # fmt: skip
    assert outside.status_code == HTTPStatus.CONFLICT  # the recorded tournament's dates
    assert outside.json()["date"] == [
        "2026-04-09 lies outside the tournament Autumn Open (2026-03-30 to 2026-04-02)."
    ]
    listed = api.get("/api/v1/tournaments/", {"rated_in": "2026-04"}).json()
    assert [(t["name"], t["games"]) for t in listed["results"]] == [("Autumn Open", 1)]
    busy = api.delete(f"/api/v1/tournaments/{body['id']}/")
    assert busy.status_code == HTTPStatus.CONFLICT
    assert "a tournament with games stays" in busy.content.decode()


def test_moving_a_tournament_to_a_later_period_moves_and_rates_its_games_there(
    api, club, committed
):
    a, b, _ = club
    with committed():
        imported(HEADER + "2026-03-28,Ann Able,Bea Best,1-0,Cup,2026-03-28,2026-03-29,\n")
    RatingPeriod.objects.create(label="2026-04", start="2026-04-01", end="2026-04-30")
    cup = Tournament.objects.get(name="Cup")
    with committed():
        answer = api.patch(
            f"/api/v1/tournaments/{cup.pk}/",
            {"rated_in": "2026-04"},
            content_type="application/json",
        )
    assert answer.status_code == HTTPStatus.OK, answer.content
    game = Game.objects.get()
    assert game.period.label == "2026-04"
    assert RatingChange.objects.get(player=a).period.label == "2026-04"
    narrow = api.patch(
        f"/api/v1/tournaments/{cup.pk}/", {"end": "2026-03-28", "start": "2026-03-29"},
        content_type="application/json",
    )  # fmt: skip
    assert narrow.status_code == HTTPStatus.BAD_REQUEST


def test_the_players_card_shows_each_tournaments_sum_and_the_rules_that_rated_it(
    client, club, committed
):
    a, b, c = club
    with committed():
        imported(
            HEADER
            + "2025-10-31,Ann Able,Bea Best,1-0,Halloween Open,2025-10-31,2025-11-02,\n"
            + "2025-11-20,Ann Able,Cy Cole,0-1,November Rapidplay,2025-11-20,2025-11-20,\n"
        )
    page = client.get(f"/players/{a.pk}/").content.decode()
    # Halloween: 1800 v 1800, a win, dR +0.50; November: 1800 v 2200, a loss, dR -0.08.
    assert "Halloween Open (from 31 Oct 2025): 1 game, K × ΣdR = 20 × +0.50 = +10.00" in page
    assert "November Rapidplay (from 20 Nov 2025): 1 game, K × ΣdR = 20 × -0.08 = -1.60" in page
    assert "Rated by FIDE's standard rules in force on 1 Nov 2025" in page
    assert 'href="/rules/?date=2025-11-01&amp;list=standard"' in page


@pytest.mark.parametrize(
    ("start", "end", "field"),
    [("0853-02-01", "0853-02-02", "start"), ("1899-12-31", "1900-01-02", "start"),
     ("2999-12-30", "3000-01-01", "end")],
)  # fmt: skip
def test_a_tournament_dated_where_no_game_can_be_is_refused_and_makes_no_period(
    api, club, start, end, field
):
    # It used to be recorded with a period "853-02" made for it.
    answer = api.post(
        "/api/v1/tournaments/", {"name": "Old", "start": start, "end": end},
        content_type="application/json",
    )  # fmt: skip
    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert answer.json()[field] == ["A tournament must be dated between 1900-01-01 and 2999-12-31."]
    assert not RatingPeriod.objects.exists()
    assert not Tournament.objects.exists()


def test_a_period_before_1900_is_refused():
    with pytest.raises(ValidationError) as refused:
        actions.save_period(
            period=RatingPeriod(label="0853-02", start=date(853, 2, 1), end=date(853, 2, 28))
        )
    assert refused.value.message_dict["start"] == [
        "A rating period cannot start or end before 1900-01-01."
    ]
    assert not RatingPeriod.objects.exists()


def test_a_changed_end_takes_the_period_along_unless_it_was_a_late_report(api, club):
    def change(pk: int, body: dict, method=api.patch) -> dict:
        answer = method(f"/api/v1/tournaments/{pk}/", body, content_type="application/json")
        assert answer.status_code == HTTPStatus.OK, answer.content
        return answer.json()

    days = {"start": "2026-03-06", "end": "2026-03-08"}
    made = api.post("/api/v1/tournaments/", {"name": "Spring Open", **days},
                    content_type="application/json").json()  # fmt: skip
    assert made["rated_in"] == "2026-03"
    # Rated in the period holding its end: a new end moves it (else: refused, 400).
    assert change(made["id"], {"start": "2026-04-10", "end": "2026-04-12"})["rated_in"] == "2026-04"
    assert change(made["id"], {"name": "Spring Open II"})["rated_in"] == "2026-04"
    # A late report keeps the period it names, while it may rate the tournament (FIDE 9.1).
    RatingPeriod.objects.for_date(date(2026, 6, 1))
    assert change(made["id"], {"rated_in": "2026-06"})["rated_in"] == "2026-06"
    assert change(made["id"], {"end": "2026-04-13"})["rated_in"] == "2026-06"
    # A replacement (PUT) without the period takes the default: the period holding its end.
    whole = {"name": "Spring Open", **days, "rating_list": "standard"}
    assert change(made["id"], whole, method=api.put)["rated_in"] == "2026-03"


def test_a_refused_change_makes_no_period(api, club, committed):
    a, b, _ = club
    with committed():
        imported(HEADER + "2026-03-28,Ann Able,Bea Best,1-0,Cup,2026-03-28,2026-03-29,\n")
    cup = Tournament.objects.get(name="Cup")
    periods = set(RatingPeriod.objects.values_list("label", flat=True))
    # Its game stays on 28 March: the tournament cannot leave it out (409), and the period of
    # its new end, made while the request was read, goes with the refusal.
    may = {"start": "2026-05-04", "end": "2026-05-06"}
    answer = api.patch(f"/api/v1/tournaments/{cup.pk}/", may, content_type="application/json")
    assert answer.status_code == HTTPStatus.CONFLICT, answer.content
    assert set(RatingPeriod.objects.values_list("label", flat=True)) == periods
    again = api.post("/api/v1/tournaments/", {"name": "Cup", "start": "2026-03-28",
                     "end": "2026-06-02"}, content_type="application/json")  # fmt: skip
    assert again.status_code == HTTPStatus.CONFLICT, again.content  # recorded already
    assert set(RatingPeriod.objects.values_list("label", flat=True)) == periods
