"""Pages (``ladder.records.paging.Paginator``) are Django's pages, with a short first page
counted by its rows rather than by a query of its own."""

from __future__ import annotations

import pytest
from django.core import paginator as django_paginator
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from ladder.records import Player
from ladder.records.paging import Paginator
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def seen(page: django_paginator.Page) -> tuple:
    """What a page shows: its number, rows, the count, the pages, the links either side."""
    return (
        page.number,
        list(page.object_list),
        page.paginator.count,
        page.paginator.num_pages,
        page.has_previous(),
        page.has_next(),
        page.start_index(),
        page.end_index(),
    )


@pytest.fixture
def players() -> list[Player]:
    return PlayerFactory.create_batch(7)


def ordered():
    return Player.objects.order_by("pk")


@pytest.mark.parametrize("number", [None, 1, "1", "", "abc", "0", "-1", "2", "3", "99", 1.5])
@pytest.mark.parametrize("per_page", [3, 7, 8, 50])
def test_every_page_is_djangos(players, number, per_page):
    expected = django_paginator.Paginator(ordered(), per_page).get_page(number)

    assert seen(Paginator(ordered(), per_page).get_page(number)) == seen(expected)


@pytest.mark.parametrize("number", [1, "1", "2", "99", "abc", 0])
def test_page_raises_what_django_raises(players, number):
    def outcome(kind) -> object:
        try:
            return seen(kind(ordered(), 3).page(number))
        except django_paginator.InvalidPage as error:
            return type(error), str(error)

    assert outcome(Paginator) == outcome(django_paginator.Paginator)


def test_a_short_first_page_asks_no_count(players):
    with CaptureQueriesContext(connection) as queries:
        page = Paginator(ordered(), 50).get_page(None)
        shown = seen(page)

    assert len(queries) == 1  # the page's rows; its count from them
    assert "COUNT" not in queries[0]["sql"].upper()
    assert shown[2:4] == (7, 1)


def test_an_empty_club_is_one_empty_page_without_a_count():
    with CaptureQueriesContext(connection) as queries:
        page = Paginator(ordered(), 50).get_page("1")

    assert len(queries) == 1
    assert seen(page) == (1, [], 0, 1, False, False, 0, 0)


def test_a_full_first_page_is_counted(players):
    with CaptureQueriesContext(connection) as queries:
        page = Paginator(ordered(), 7).get_page(1)
        shown = seen(page)

    assert len(queries) == 2  # the page, then the count: a full page may have more after it
    assert shown[2:4] == (7, 1)
    assert shown[1] == list(ordered())


def test_orphans_are_counted_as_django_counts(players):
    # Orphans let the first page hold more than a page: no shortcut there.
    ours = Paginator(ordered(), 5, orphans=2).get_page(1)

    assert seen(ours) == seen(django_paginator.Paginator(ordered(), 5, orphans=2).get_page(1))
    assert len(ours.object_list) == 7


@given(
    rows=st.integers(min_value=0, max_value=30),
    per_page=st.integers(min_value=1, max_value=12),
    number=st.one_of(st.none(), st.integers(-2, 8), st.text(max_size=3)),
    empty_first=st.booleans(),
)
def test_any_list_pages_as_djangos(rows, per_page, number, empty_first):
    items = list(range(rows))

    def outcome(kind) -> object:
        try:
            return seen(kind(items, per_page, allow_empty_first_page=empty_first).get_page(number))
        except django_paginator.InvalidPage as error:
            return type(error), str(error)

    assert outcome(Paginator) == outcome(django_paginator.Paginator)
