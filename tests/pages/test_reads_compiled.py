"""The standings without a search read by SQL compiled once (``ladder.web.views``'
``_compiled_reads``) render what the QuerySets render, to the byte."""

from datetime import date

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from ladder.records import RatingPeriod
from ladder.web import views
from ladder.writes import actions
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db

STANDINGS = [
    "/",
    "/?page=2",
    "/?page=3&upage=2",
    "/?page=abc",
    "/?page=99&upage=99",
    "/?inactive=1",
    "/?inactive=1&page=2",
    "/?list=rapid",
    "/?list=blitz&upage=2",
    "/?q=Player",
]


def pages(paths: list[str]) -> list[tuple[int, bytes, int]]:
    """Each page's status, body and count of queries, anonymously, in German."""
    found = []
    for path in paths:
        with CaptureQueriesContext(connection) as queries:
            response = Client().get(path, HTTP_ACCEPT_LANGUAGE="de")
        found.append((response.status_code, response.content, len(queries)))
    return found


@pytest.fixture
def pages_of_two(monkeypatch):
    monkeypatch.setattr(views, "PER_PAGE", 2)


def test_the_standings_compiled_render_as_the_orm(committed, orm_only, pages_of_two):
    """Rated players (one inactive, ties), unrated ones, a published list, pages, lists, the
    inactive shown, and a search (left to the ORM)."""
    with committed():
        hero = PlayerFactory(name="Hero", title="FM")
        rated = PlayerFactory.create_batch(4, entry_rating=2100)
        old = PlayerFactory(name="Long Gone", entry_rating=2300)
        UnratedPlayerFactory.create_batch(3)
        GameFactory(white=old, black=rated[0], date=date(2024, 5, 2), result="1-0")
        for n, other in enumerate(rated):
            GameFactory(white=hero, black=other, date=date(2026, 2, 3 + n), result="1/2-1/2")
            GameFactory(
                white=other, black=hero, date=date(2026, 3, 9 + n), result="1-0",
                rating_list="rapid", time_control="15+10",
            )  # fmt: skip
        for label in ("2024-05", "2026-02"):
            actions.close_period(period=RatingPeriod.objects.get(label=label), user=None)
    compiled = pages(STANDINGS)
    assert {status for status, *_ in compiled} == {200}
    orm_only()
    assert compiled == pages(STANDINGS)


def test_an_empty_club_s_standings_compiled_render_as_the_orm(orm_only):
    compiled = pages(STANDINGS)
    orm_only()
    assert compiled == pages(STANDINGS)
