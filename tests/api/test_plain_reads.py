"""The API's reads served as plain values (``ladder.api.plain_reads``) answer what the
serializers the schema documents would answer, to the byte."""

from datetime import UTC, date, datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from ladder.api import plain_reads
from ladder.api import serializers as s
from ladder.api.pagination import PageNumbers
from ladder.records import FideListEntry, Player, RatingPeriod
from ladder.writes import actions
from ratings import runs, selectors
from ratings.runs.status import Freshness
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db


def json(data) -> bytes:
    return JSONRenderer().render(data)


@pytest.fixture
def club() -> list[Player]:
    """Players on three lists, a titled one on FIDE's list, an unrated one, a newcomer rated
    from games, a published period (closed, then reopened) and an open one."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        hero = PlayerFactory(fide_id=1503014, title="FM", federation="NOR", sex="m")
        hero.rapid_entry_rating, hero.rapid_entry_rated_games = 1750, 12
        hero.save()
        rated = PlayerFactory.create_batch(3, entry_rating=2100, birth_year=2012)
        newcomer = UnratedPlayerFactory()
        unrated = UnratedPlayerFactory()
        for n, other in enumerate(rated):
            GameFactory(white=hero, black=other, date=date(2026, 2, 3 + n), result="1/2-1/2")
            GameFactory(white=other, black=newcomer, date=date(2026, 2, 3 + n), result="0-1")
            GameFactory(white=newcomer, black=other, date=date(2026, 3, 3 + n), result="0-1")
            GameFactory(white=hero, black=other, date=date(2026, 3, 5 + n), result="+/-")
            GameFactory(
                white=other, black=hero, date=date(2026, 3, 9 + n), result="1-0",
                rating_list="rapid", time_control="15+10",
            )  # fmt: skip
        GameFactory(white=newcomer, black=unrated, date=date(2026, 3, 20), result="1-0")
        user = User.objects.create_user("closer")
        february = RatingPeriod.objects.get(label="2026-02")
        actions.close_period(period=february, user=user)
    FideListEntry.objects.create(
        month=date(2026, 3, 1), fide_id=1503014, name="Hero, A", federation="NOR",
        standard_rating=2250, standard_games=3, standard_k=20,
    )  # fmt: skip
    return [hero, *rated, newcomer, unrated]


def assert_players_as_the_serializer(club):
    """The club's players, as a page and one by one, built as plain values and by
    ``PlayerSerializer``, give the same JSON; returns them."""
    players = list(Player.objects.filter(pk__in=[p.pk for p in club]).order_by("pk"))
    context = {"year": selectors.current_year()}
    expected = s.PlayerSerializer(players, many=True, context=context).data
    assert json(plain_reads.players_data(players)) == json(expected)
    one = s.PlayerSerializer(players[0], context=context).data
    assert json(plain_reads.player_data(players[0])) == json(one)
    # Read as the API reads them: the year K is counted in and FIDE's row with the players.
    read = Player.objects.annotate(**plain_reads.read_with())
    annotated = list(read.filter(pk__in=[p.pk for p in club]).order_by("pk"))
    assert json(plain_reads.players_data(annotated)) == json(expected)
    assert json(plain_reads.player_data(annotated[0])) == json(one)
    return players


def test_fide_s_row_read_with_the_player_is_the_newest_list_s(club):
    """An older month's row, and a row of another FIDE id, are not the player's."""
    FideListEntry.objects.create(
        month=date(2026, 2, 1), fide_id=1503014, name="Hero, Old", standard_rating=2200
    )
    FideListEntry.objects.create(month=date(2026, 3, 1), fide_id=999, name="Someone Else")
    assert_players_as_the_serializer(club)
    client = APIClient()
    detail = client.get(f"/api/v1/players/{club[0].pk}/").json()
    assert (detail["fide"]["name"], detail["fide"]["month"]) == ("Hero, A", "2026-03")
    assert detail["fide"]["standard"] == {"rating": 2250, "games": 3, "k": 20}
    page = client.get("/api/v1/players/", {"ordering": "name", "page_size": 50}).json()
    fide = {p["id"]: p["fide"] for p in page["results"]}
    assert fide.pop(club[0].pk) == detail["fide"]
    assert set(fide.values()) == {None}


@pytest.mark.parametrize("language", ["en", "de"])
def test_players_as_plain_values_are_the_serializers(club, language):
    with translation.override(language):
        players = assert_players_as_the_serializer(club)
    # The builders read every field the serializer writes, in its order.
    assert list(plain_reads.player_data(players[0])) == list(s.PlayerSerializer().fields)


@pytest.mark.parametrize("rating_list", ["standard", "rapid"])
def test_history_as_plain_values_is_the_serializers(club, rating_list):
    for player in club:
        changes = list(selectors.player_history(player, rating_list))
        lines = selectors.game_lines(player, [c.period for c in changes], rating_list)
        with translation.override("fr"):
            expected = s.HistorySerializer(changes, many=True, context={"lines": lines}).data
            assert json(plain_reads.history_data(changes, lines)) == json(expected)
        if changes:
            row = plain_reads.history_data(changes, lines)[0]
            assert list(row) == list(s.HistorySerializer().fields)
            for line in row["lines"]:
                assert list(line) == list(s.LineSerializer().fields)


def test_a_detail_builds_no_filter_form_but_still_refuses_a_bad_filter(club):
    client = APIClient()
    hero = club[0]
    assert client.get(f"/api/v1/players/{hero.pk}/").json()["fide"]["month"] == "2026-03"
    # A filter asked of a detail still filters it, or refuses it, as django-filter does.
    assert client.get(f"/api/v1/players/{hero.pk}/?rating_min=abc").status_code == 400
    assert client.get(f"/api/v1/players/{hero.pk}/?list=bullet").status_code == 400
    assert client.get(f"/api/v1/players/{hero.pk}/?search=nobody").status_code == 404


def answers(paths: list[str]) -> list[tuple[int, bytes, dict[str, str], int]]:
    """Each path's status, body, headers (but the date) and count of queries, anonymously."""
    found = []
    for path in paths:
        client = APIClient()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path, HTTP_ACCEPT_LANGUAGE="de")
        headers = {k: v for k, v in response.headers.items() if k.lower() != "date"}
        found.append((response.status_code, response.content, headers, len(queries)))
    return found


LISTS = [
    "/api/v1/players/",
    "/api/v1/players/?ordering=-rating",
    "/api/v1/players/?ordering=-rating&page=2",
    "/api/v1/players/?ordering=rating,-name&page=3",
    "/api/v1/players/?ordering=-rated_games,fide_id",
    "/api/v1/players/?ordering=bogus&page=2",
    "/api/v1/players/?page=9",
    "/api/v1/players/?page=abc",
    "/api/v1/players/?page=0",
    "/api/v1/players/?list=rapid&ordering=-rating",
    "/api/v1/players/?rated=true&ordering=-rating",
]


@pytest.fixture
def pages_of_two(monkeypatch):
    monkeypatch.setattr(PageNumbers, "page_size", 2)


def test_reads_compiled_once_answer_as_the_orm(club, orm_only, pages_of_two):
    """Byte for byte, header for header, query for query: every player (rated, unrated, on
    FIDE's list, merged, without history), a missing one, an id that is no number, a filter
    asked of a detail (which the compiled lookup leaves to DRF), pages of the list and of a
    history, in each ordering, and a list with filters (left to django-filter)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        actions.merge_players(keep=club[1].pk, other=club[2].pk, reason="One person")
    club.append(PlayerFactory(name="Newly Entered"))
    paths = ["/api/v1/players/99999999/", "/api/v1/players/abc/", "/api/v1/players/0/", *LISTS]
    for player in club:
        paths += [
            f"/api/v1/players/{player.pk}/",
            f"/api/v1/players/{player.pk}/?ordering=name",
            f"/api/v1/players/{player.pk}/?search=nobody",
            f"/api/v1/players/{player.pk}/history/",
            f"/api/v1/players/{player.pk}/history/?list=rapid",
            f"/api/v1/players/{player.pk}/history/?page=2",
        ]
    compiled = answers(paths)
    assert {status for status, *_ in compiled} == {200, 301, 404}
    orm_only()
    assert compiled == answers(paths)


def test_an_empty_club_reads_compiled_as_the_orm(orm_only):
    compiled = answers(LISTS)
    orm_only()
    assert compiled == answers(LISTS)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Oslo", "America/Sao_Paulo"])
def test_time_stamps_as_plain_values_are_the_serializers_in_any_time_zone(club, zone):
    with timezone.override(zone):
        assert_players_as_the_serializer(club)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Oslo"])
@pytest.mark.parametrize(
    "found",
    [
        Freshness(rated_up_to=None, pending=0, failed_run=None),
        Freshness(rated_up_to=datetime(2026, 3, 9, 21, 30, 5, 123456, tzinfo=UTC), pending=2,
                  failed_run=None),
        Freshness(rated_up_to=datetime(2026, 7, 1, tzinfo=UTC), pending=0, failed_run=17),
    ],
)  # fmt: skip
def test_freshness_as_plain_values_is_the_serializers(found, zone):
    with timezone.override(zone):
        data = {**vars(found), "current": found.current}
        assert json(plain_reads.freshness_data(found)) == json(s.FreshnessSerializer(data).data)


def test_the_freshness_read_answers_as_the_runs_stand(club):
    answer = APIClient().get("/api/v1/freshness/")
    assert answer.status_code == 200
    found = runs.freshness()
    assert answer.json() == {
        "rated_up_to": found.rated_up_to.isoformat().replace("+00:00", "Z"),
        "pending": 0,
        "failed_run": None,
        "current": True,
    }
