"""Official and provisional ratings in the API, and the rating list as published."""

from http import HTTPStatus

import pytest

from ladder.records import Player
from ladder.writes import actions
from ratings.models import Publication
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

PLAYERS = "/api/v1/players/"
LIST = "/api/v1/rating-list/"


@pytest.fixture
def revised_march(closed_march, committed, editor_user):
    """March closed, reopened, its game reversed and closed again: revision 2."""
    actions.reopen_period(period=closed_march.march, reason="Entered reversed.", user=editor_user)
    with committed():
        actions.correct_game(game=closed_march.win, changes={"result": "0-1"})
    actions.close_period(period=closed_march.march, user=editor_user)
    return closed_march


def test_a_player_carries_the_official_rating_beside_the_live_one(anon, closed_march):
    anna = closed_march.anna
    published = Publication.objects.get(period=closed_march.march, rating_list="standard")
    body = anon.get(f"{PLAYERS}{anna.pk}/").json()
    assert body["rating"] == anna.rating  # live: April's loss counted
    assert body["official_rating"] == 2005  # March's list as published
    assert body["official_list"] == {
        "period": "2026-03",
        "period_id": closed_march.march.pk,
        "revision": 1,
        "published_at": body["official_list"]["published_at"],
    }
    assert body["official_list"]["published_at"].startswith(f"{published.published_at:%Y-%m-%d}")
    assert body["provisional"] is (anna.rating != 2005) is True
    standard = body["ratings"]["standard"]
    assert (standard["official_rating"], standard["provisional"]) == (2005, True)
    # Cleo is unrated on the published list and live: nothing provisional.
    cleo = anon.get(f"{PLAYERS}{closed_march.cleo.pk}/").json()
    assert (cleo["official_rating"], cleo["provisional"]) == (None, False)


def test_the_player_list_carries_the_official_ratings(anon, revised_march):
    body = anon.get(PLAYERS).json()
    official = {row["name"]: row for row in body["results"]}
    anna = official["Anna Alekhina"]
    assert anna["official_list"]["revision"] == 2
    assert anna["official_rating"] == 1985  # as revised: she lost the March game
    # A player added since the last publication is on no published list.
    newcomer = PlayerFactory(name="Nina New", entry_rating=1700)
    row = next(r for r in anon.get(PLAYERS).json()["results"] if r["id"] == newcomer.pk)
    assert (row["rating"], row["official_rating"], row["provisional"]) == (1700, None, True)


def test_before_any_publication_there_is_no_official_list(anon, club):
    body = anon.get(f"{PLAYERS}{club.anna.pk}/").json()
    assert (body["official_rating"], body["official_list"], body["provisional"]) == (
        None, None, True
    )  # fmt: skip


def test_the_rating_list_as_published_defaults_to_the_official_list(anon, revised_march):
    body = anon.get(LIST, {"as_published": "true"}).json()
    assert body["period"]["label"] == "2026-03"
    assert body["publication"]["revision"] == 2
    assert body["publication"]["reason"] == "Entered reversed."
    assert body["publication"]["players_changed"] == 2
    first = body["results"][0]
    assert first == {
        "id": revised_march.anna.pk,
        "name": "Anna Alekhina",
        "fide_id": 4100001,
        "rating": 1985,
        "change": -15,
        "k": 20,
        "games": 1,
        "total_games": first["total_games"],
        "status": "rated",
        "level": "",
        "revision": 2,
    }
    # The list read live carries no publication.
    assert anon.get(LIST).json()["publication"] is None


def test_the_first_publication_stays_readable(anon, revised_march):
    march = revised_march.march.pk
    as_first = anon.get(LIST, {"period": march, "as_published": "1", "revision": "1"}).json()
    assert {line["revision"] for line in as_first["results"]} == {1}  # live lines have none
    assert as_first["publication"]["revision"] == 1
    anna = next(r for r in as_first["results"] if r["name"] == "Anna Alekhina")
    assert (anna["rating"], anna["change"]) == (2005, 5)
    # revision alone implies as_published
    alone = anon.get(LIST, {"period": march, "revision": "1"}).json()
    assert alone["results"] == as_first["results"]
    latest = anon.get(LIST, {"period": march, "as_published": "yes"}).json()
    anna = next(r for r in latest["results"] if r["name"] == "Anna Alekhina")
    assert (anna["rating"], anna["change"]) == (1985, -15)


@pytest.mark.parametrize(
    ("params", "errors"),
    [
        ({"as_published": "maybe"}, {"as_published": ["Must be a valid boolean."]}),
        ({"revision": "0"}, {"revision": ["Ensure this value is greater than or equal to 1."]}),
        ({"revision": "two"}, {"revision": ["A valid integer is required."]}),
        (
            {"as_published": "false", "revision": "1"},
            {"revision": ["A revision is of a list as published: drop as_published=false."]},
        ),
        (
            {"revision": "3"},
            {
                "revision": [
                    "The standard list of 2026-03 has no revision 3: it has revisions 1 to 2."
                ]
            },
        ),  # fmt: skip
    ],
)
def test_bad_as_published_values_are_400_naming_the_field(anon, revised_march, params, errors):
    response = anon.get(LIST, params)
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == errors


def test_a_list_never_published_is_400(anon, closed_march):
    april = closed_march.april_period.pk
    response = anon.get(LIST, {"period": april, "as_published": "true"})
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "as_published": ["The standard list of 2026-04 has not been published: a period's "
                         "list is published when the period closes."]
    }  # fmt: skip


def test_with_no_publication_at_all_as_published_is_400(anon, club):
    response = anon.get(LIST, {"as_published": "true", "list": "rapid"})
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "as_published": ["No rapid list has been published yet: a period's list is published "
                         "when the period closes."]
    }  # fmt: skip


@pytest.mark.parametrize("size", [3, 30])
def test_official_reads_keep_a_constant_number_of_queries(
    anon, revised_march, django_assert_num_queries, size
):
    PlayerFactory.create_batch(size)
    # the page (the current year and FIDE's rows with it; fewer players than a page: counted
    # by its rows), official list (2)
    with django_assert_num_queries(3):
        assert anon.get(PLAYERS).status_code == HTTPStatus.OK
    # the latest publication (its period with it), that revision read, its lines
    with django_assert_num_queries(3):
        assert anon.get(LIST, {"as_published": "true"}).status_code == HTTPStatus.OK
    # the period, its publication, its lines
    with django_assert_num_queries(3):
        response = anon.get(LIST, {"period": revised_march.march.pk, "revision": "1"})
    assert response.status_code == HTTPStatus.OK


def test_the_schema_documents_official_ratings_and_as_published(anon):
    body = anon.get("/api/v1/schema/?format=json").json()
    player = body["components"]["schemas"]["Player"]["properties"]
    assert {"official_rating", "official_list", "provisional"} <= set(player)
    params = {p["name"] for p in body["paths"]["/api/v1/rating-list/"]["get"]["parameters"]}
    assert {"period", "list", "as_published", "revision"} <= params
    assert "PublishedLine" in body["components"]["schemas"]


def test_a_closed_periods_list_is_read_as_published(anon, closed_march, committed):
    march = closed_march.march.pk
    before = anon.get(LIST, {"period": march}).json()
    assert before["publication"]["revision"] == 1
    # A newcomer with no closed-period game may set entry data at will: March's list stays.
    with committed():
        nina = actions.save_player(player=Player(name="Nina New", entry_rating=1700))
        nina.entry_rating = 1750
        actions.save_player(player=nina)
    after = anon.get(LIST, {"period": march}).json()
    assert after == before
    assert "Nina New" not in {row["name"] for row in after["results"]}
    # The open April's list reads live: she is on it.
    april = anon.get(LIST, {"period": closed_march.april_period.pk}).json()
    assert april["publication"] is None
    nina_line = next(row for row in april["results"] if row["name"] == "Nina New")
    assert nina_line["rating"] == 1750
