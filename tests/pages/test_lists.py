"""The pages on FIDE's three lists (FIDE.md 9): the list selector, a player's ratings and
charts per list, the preview on a chosen list, and the query budgets with games on two lists."""

import re
from datetime import date
from http import HTTPStatus

import pytest
from django.test import override_settings
from django.urls import reverse

from ladder.records import RatingList, Result
from ratings import selectors
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory
from tests.pages.test_markup import audit
from tests.pages.test_pages import text_of

pytestmark = pytest.mark.django_db


def current_links(html: str) -> list[str]:
    return re.findall(r'<a href="[^"]*"\s+aria-current="page">([^<]+)</a>', html)


@pytest.fixture
def two_lists(committed):
    """A player with standard and blitz games, and a rival rated on blitz only."""
    with committed():
        hero = PlayerFactory(
            name="Dual Dana", entry_rating=1900, blitz_entry_rating=2100, birth_year=1990
        )
        rival = PlayerFactory(name="Blitz Bo", entry_rating=None, blitz_entry_rating=2200)
        rook = PlayerFactory(name="Slow Sam", entry_rating=1950)
        GameFactory(white=hero, black=rook, result=Result.WHITE_WIN, date=date(2026, 3, 3))
        for day in (4, 5):
            GameFactory(
                white=hero,
                black=rival,
                result=Result.DRAW,
                date=date(2026, 3, day),
                rating_list=RatingList.BLITZ,
            )
    hero.refresh_from_db()
    return hero


def test_standings_offer_each_kept_list_and_mark_the_current_one(client, two_lists):
    html = client.get(reverse("ladder:standings")).content.decode()
    assert '<nav class="list-selector" aria-label="Rating list">' in html
    assert current_links(html) == ["Standings", "Standard"]
    assert "?list=rapid" in html
    assert "?list=blitz" in html
    text = text_of(client.get(reverse("ladder:standings"), {"list": "blitz"}))
    assert "Standings · Blitz" in text
    rated, unrated = text.split("Unrated players")
    # Blitz ranks and ratings: Bo 2200 before Dana, Slow Sam has no blitz rating.
    assert rated.index("Blitz Bo") < rated.index("Dual Dana")
    assert "Slow Sam" not in rated
    assert "Slow Sam" in unrated
    html = client.get(reverse("ladder:standings"), {"list": "blitz"}).content.decode()
    assert current_links(html) == ["Standings", "Blitz"]
    assert '<input type="hidden" name="list" value="blitz">' in html  # search keeps the list


def test_standings_keep_the_search_when_switching_list(client, two_lists):
    html = client.get(reverse("ladder:standings"), {"q": "Dana", "page": "1"}).content.decode()
    assert "?q=Dana&amp;list=rapid" in html
    assert "page=1&amp;list" not in html  # a new list starts on its first page


@pytest.mark.parametrize("value", ["", "bullet", "STANDARD", "x" * 500, "bul\x00let"])
def test_unknown_list_falls_back_to_the_default(client, two_lists, value):
    for url in (reverse("ladder:standings"), reverse("ladder:period", args=["2026-03"])):
        response = client.get(url, {"list": value})
        assert response.status_code == HTTPStatus.OK
        assert "Standard" in current_links(response.content.decode())
    response = client.get(two_lists.get_absolute_url(), {"opponent": "1900", "list": value})
    assert response.status_code == HTTPStatus.OK


def test_a_nul_in_the_query_is_dropped_before_any_view_reads_it(client, two_lists):
    response = client.get(reverse("ladder:standings"), {"list": "rapid\x00"})
    assert response.status_code == HTTPStatus.OK
    assert "Rapid" in current_links(response.content.decode())


@override_settings(LADDER_LISTS=["standard"])
def test_one_kept_list_shows_no_selector_anywhere(client, two_lists):
    urls = [
        reverse("ladder:standings"),
        reverse("ladder:standings") + "?list=blitz",
        two_lists.get_absolute_url() + "?opponent=1900",
        reverse("ladder:period", args=["2026-03"]),
        reverse("ladder:calculator"),
    ]
    for url in urls:
        html = client.get(url).content.decode()
        assert "list-selector" not in html, url
        assert 'name="list"' not in html, url
        assert "Blitz" not in html.replace("Blitz Bo", ""), url
    html = client.get(two_lists.get_absolute_url()).content.decode()
    assert html.count('data-chart="rating"') == 1


@override_settings(LADDER_LISTS=["blitz"])
def test_a_blitz_only_club_shows_blitz_by_default(client, two_lists):
    text = text_of(client.get(reverse("ladder:standings")))
    rated = text.split("Unrated players")[0]
    assert "1 Blitz Bo" in rated
    assert "Slow Sam" not in rated


def test_player_shows_every_list_and_a_chart_per_list_with_games(client, two_lists):
    response = client.get(two_lists.get_absolute_url())
    html = response.content.decode()
    text = text_of(response)
    blitz = two_lists.on_list(RatingList.BLITZ)
    assert blitz.rating is not None
    assert blitz.rating > 2100
    assert f"Standard {two_lists.rating}" in text
    assert "Rapid unrated" in text
    assert f"Blitz {blitz.rating}" in text
    assert html.count('data-chart="rating"') == 2
    assert 'data-list="standard"' in html
    assert 'data-list="blitz"' in html
    assert 'data-list="rapid"' in html  # its summary row only
    assert 'id="chart-title-blitz"' in html
    assert 'id="chart-title-standard"' in html
    assert "Blitz rating history of Dual Dana" in html
    # Each list's periods and games, with ids unique per list.
    assert 'id="period-standard-2026-03"' in html
    assert 'id="period-blitz-2026-03"' in html
    standard_part, blitz_part = text.split("Blitz list Rating over time")
    assert "Slow Sam" in standard_part
    assert "Blitz Bo" not in standard_part
    assert "Blitz Bo" in blitz_part
    assert "Slow Sam" not in blitz_part


def test_player_preview_takes_the_list(client, two_lists):
    response = client.get(two_lists.get_absolute_url(), {"opponent": "2000", "list": "blitz"})
    expected = selectors.what_if(two_lists, 2000, RatingList.BLITZ)
    assert expected is not None
    text = text_of(response)
    assert "on the blitz list, with the 2 games already rated this period" in text
    win = expected["win"]
    assert f"Win {'+' if win.change_exact > 0 else ''}{win.change_exact} {win.change:+d}" in text
    html = response.content.decode()
    assert re.search(r'<option value="blitz" selected>Blitz</option>', html)
    rapid = text_of(client.get(two_lists.get_absolute_url(), {"opponent": "2000", "list": "rapid"}))
    assert "Dual Dana is unrated on the rapid list" in rapid


def test_another_list_starts_the_period_report_again_on_its_first_page(client, two_lists):
    url = reverse("ladder:period", args=["2026-03"])
    html = client.get(url, {"list": "standard", "rpage": "2", "page": "2"}).content.decode()
    selector = html.split('class="list-selector"')[1].split("</nav>")[0]
    assert 'href="?list=blitz"' in selector
    assert "page" not in selector.replace('aria-current="page"', "")


def test_period_page_shows_the_chosen_list(client, two_lists):
    url = reverse("ladder:period", args=["2026-03"])
    standard = text_of(client.get(url))
    report = standard.split("The list that closes")[0]
    assert "Slow Sam" in report
    assert "Blitz Bo" not in report
    response = client.get(url, {"list": "blitz"})
    html = response.content.decode()
    assert current_links(html) == ["Periods", "Blitz"]
    blitz = text_of(response)
    report, listed = blitz.split("The list that closes March 2026 · Blitz")
    assert "Blitz Bo" in report
    assert "Slow Sam" not in report
    assert "#period-blitz-2026-03" in html
    assert "Blitz Bo" in listed


def build_two_lists(size: int) -> list:
    players = [
        PlayerFactory(
            entry_rating=1500 + 10 * i, blitz_entry_rating=1600 + 10 * i, fide_id=200_000 + i
        )
        for i in range(size)
    ]
    for i in range(size):
        for rating_list, month in ((RatingList.STANDARD, 2), (RatingList.BLITZ, 3)):
            GameFactory(
                white=players[i],
                black=players[(i + 1) % size],
                result=Result.DRAW if i % 3 else Result.WHITE_WIN,
                date=date(2026, month + i % 2, 5),
                rating_list=rating_list,
            )
    UnratedPlayerFactory.create_batch(size // 2 + 1)
    return players


@pytest.mark.parametrize("size", [4, 40])
def test_query_budgets_with_games_on_two_lists(
    client, committed, django_assert_max_num_queries, size
):
    with committed():
        players = build_two_lists(size)
    for rating_list in ("standard", "blitz"):
        # with the official list (its publication, the page's lines), the periods since it and
        # the top movers
        with django_assert_max_num_queries(10):
            response = client.get(reverse("ladder:standings"), {"list": rating_list})
            assert response.status_code == HTTPStatus.OK
        with django_assert_max_num_queries(9):  # + publications, + the players they changed
            response = client.get(reverse("ladder:period", args=["2026-03"]), {"list": rating_list})
            assert response.status_code == HTTPStatus.OK
        # + the official lists (their publications, the player's lines), + the revisions
        # + the base corrections (one query), + FIDE's latest list beside the club's (one),
        # + the players of each list's games and of the next game's period (one each)
        with django_assert_max_num_queries(22):
            response = client.get(
                players[0].get_absolute_url(), {"opponent": "1700", "list": rating_list}
            )
            assert response.status_code == HTTPStatus.OK
    assert response.content.decode().count('data-chart="rating"') == 2


def test_pages_on_two_lists_are_well_formed_and_accessible(client, two_lists):
    urls = [
        reverse("ladder:standings") + "?list=blitz&q=Dana",
        two_lists.get_absolute_url() + "?opponent=2000&list=blitz",
        two_lists.get_absolute_url() + "?opponent=99999&list=rapid",
        reverse("ladder:period", args=["2026-03"]) + "?list=blitz",
    ]
    for url in urls:
        page = audit(client.get(url))
        assert page.problems == [], url
        assert page.stack == [], url
        assert page.headings.count(1) == 1, url
        steps = zip(page.headings, page.headings[1:], strict=False)
        assert all(b <= a + 1 for a, b in steps), f"{url}: a heading level is skipped"
        assert len(page.ids) == len(set(page.ids)), f"{url}: duplicate ids"
        assert [f for f in page.fields if f not in page.labels_for] == [], url
        assert [r for r in page.references if r not in page.ids] == [], url
