"""The rating list as of any period."""

from http import HTTPStatus

import pytest

pytestmark = pytest.mark.django_db

LIST = "/api/v1/rating-list/"


def test_latest_list_by_default(anon, club):
    response = anon.get(LIST)

    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["period"]["label"] == "2026-04"
    assert body["count"] == 3
    names = [row["name"] for row in body["results"]]
    assert names[-1] == "Cleo Carls"  # unrated last
    first = body["results"][0]
    assert set(first) >= {
        "id", "name", "fide_id", "rating_before", "rating", "change", "k", "games",
        "total_games", "status", "level", "inactive",
    }  # fmt: skip


def test_list_as_of_an_earlier_period(anon, club):
    body = anon.get(f"{LIST}?period={club.march.pk}").json()

    assert body["period"]["label"] == "2026-03"
    anna = next(row for row in body["results"] if row["name"] == "Anna Alekhina")
    assert anna == {
        "id": club.anna.pk,
        "name": "Anna Alekhina",
        "fide_id": 4100001,
        "rating_before": 2000,
        "rating": 2005,
        "change": 5,
        "k": 20,
        "k_published": 20,
        "games": 1,
        "total_games": 51,
        "status": "rated",
        "score": "1.00",
        "expected": "0.76",
        "change_exact": "4.80",
        "performance": anna["performance"],
        "inactive": False,
        "level": "",
    }


def test_list_with_no_periods(anon, db):
    body = anon.get(LIST).json()

    assert body == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
        "period": None,
        "rating_list": "standard",
        "publication": None,
    }


def test_list_is_paginated(anon, club):
    body = anon.get(LIST).json()

    assert body["next"] is None
    assert anon.get(f"{LIST}?page=2").status_code == HTTPStatus.NOT_FOUND


def test_unknown_period_is_404(anon, club):
    assert anon.get(f"{LIST}?period=999999").status_code == HTTPStatus.NOT_FOUND


def test_bad_period_is_400(anon, club):
    response = anon.get(f"{LIST}?period=march")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {"period": ["A valid integer is required."]}
