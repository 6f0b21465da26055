"""A whole number in a query is one the database can compare: beyond a SQL bigint it is a 400
naming the bound (SQLite raised OverflowError, a 500, for ?period=45404858904241512448), and
the schema states the same bounds."""

from http import HTTPStatus

import pytest

from ladder.api.filters import MAX_QUERY_INTEGER, MIN_QUERY_INTEGER

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/v1/games/", "period"),
        ("/api/v1/games/", "player"),
        ("/api/v1/games/", "white"),
        ("/api/v1/players/", "rating_min"),
        ("/api/v1/players/", "rating_max"),
    ],
)
@pytest.mark.parametrize(
    "value", [MAX_QUERY_INTEGER + 1, MIN_QUERY_INTEGER - 1, 45404858904241512448]
)
def test_a_number_beyond_a_bigint_is_a_400(anon, path, name, value):
    response = anon.get(path, {name: value})

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert name in response.json()


def test_the_largest_number_reads_nothing(anon):
    response = anon.get("/api/v1/games/", {"period": MAX_QUERY_INTEGER})

    assert response.status_code == HTTPStatus.OK
    assert response.json()["count"] == 0


def test_the_schema_states_the_bounds(anon):
    paths = anon.get("/api/v1/schema/?format=json").json()["paths"]
    games = {p["name"]: p["schema"] for p in paths["/api/v1/games/"]["get"]["parameters"]}

    assert games["period"] == {
        "type": "integer",
        "minimum": MIN_QUERY_INTEGER,
        "maximum": MAX_QUERY_INTEGER,
    }
