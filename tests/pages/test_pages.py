"""Client tests of the players' pages: content, numbers, empty states and query budgets."""

import re
from datetime import date
from html import unescape
from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ladder.records import Player, RatingPeriod
from ladder.web import views
from ratings import selectors
from tests.factories import GameFactory, PeriodFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    """Return the page's HTML with tags removed and spaces collapsed."""
    html = response.content.decode()
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def row(response, marker: str) -> str:
    """Return the text of the table row whose opening tag contains ``marker``."""
    html = response.content.decode()
    match = re.search(rf"<tr[^>]*{re.escape(marker)}[^>]*>(.*?)</tr>", html, re.S)
    assert match, f"no row with {marker}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(1))).strip()


# --- the standings -------------------------------------------------------------------------


def test_standings_show_rank_level_title_rating_k_and_games(client):
    PlayerFactory(name="Imre Level", entry_rating=2450, entry_rated_games=200)
    PlayerFactory(name="Tina Titled", entry_rating=2210, title="FM", entry_rated_games=80)
    PlayerFactory(name="Junior Jo", entry_rating=1700, birth_year=2013, entry_rated_games=40)
    response = client.get(reverse("ladder:standings"))
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert text.index("Imre Level") < text.index("Tina Titled") < text.index("Junior Jo")
    # The level (or title) shows under the name on a phone and in its own column on a desktop.
    assert "1 Imre Level IM level IM level 2450" in text
    assert "2 Tina Titled FM FM 2210" in text  # a real title, not "CM level"
    assert "IM level" in text
    assert "CM level" not in text
    assert "3 Junior Jo 1700 — 40 40" in text  # junior K 40, 40 games
    assert "1 Imre Level IM level IM level 2450 — 10 200" in text  # published 2400+: K 10


def test_standings_hide_inactive_players_unless_asked(client):
    PlayerFactory(name="Active Al", entry_rating=1900)
    gone = PlayerFactory(name="Sleepy Sam", entry_rating=2000)
    Player.objects.filter(pk=gone.pk).update(last_rated_on=date(2020, 1, 31))
    hidden = text_of(client.get(reverse("ladder:standings")))
    assert "Active Al" in hidden
    assert "Sleepy Sam" not in hidden
    assert "1 Active Al" in hidden
    shown = text_of(client.get(reverse("ladder:standings"), {"inactive": "1"}))
    assert "1 Sleepy Sam inactive" in shown
    assert "2 Active Al" in shown


def test_standings_search_by_name_or_fide_id_keeps_ladder_rank(client):
    PlayerFactory(name="Magnus Top", entry_rating=2800, fide_id=1503014)
    PlayerFactory(name="Hikaru Second", entry_rating=2780, fide_id=2016192)
    UnratedPlayerFactory(name="Hikaru Junior")
    text = text_of(client.get(reverse("ladder:standings"), {"q": "hikaru"}))
    assert "2 Hikaru Second" in text
    assert "Magnus Top" not in text
    assert "Unrated players (1)" in text
    assert "Hikaru Junior" in text
    by_id = text_of(client.get(reverse("ladder:standings"), {"q": "1503014"}))
    assert "1 Magnus Top" in by_id
    assert "Hikaru" not in by_id
    none = text_of(client.get(reverse("ladder:standings"), {"q": "nobody"}))
    assert "No rated player matches “nobody”" in none


def test_standings_list_unrated_players_apart(client):
    PlayerFactory(name="Rated Rita", entry_rating=1600)
    UnratedPlayerFactory(name="New Ned")
    text = text_of(client.get(reverse("ladder:standings")))
    rated, unrated = text.split("Unrated players")
    assert "Rated Rita" in rated
    assert "New Ned" not in rated
    assert "New Ned" in unrated


def test_standings_paginate(client):
    for i in range(55):
        PlayerFactory(name=f"P{i:02d}", entry_rating=2000 - i)
    first = client.get(reverse("ladder:standings"))
    assert "Page 1 of 2" in text_of(first)
    assert "P49" in text_of(first)
    assert "P50" not in text_of(first)
    second = text_of(client.get(reverse("ladder:standings"), {"page": "2"}))
    assert "51 P50" in second
    assert "P49" not in second


def test_standings_page_the_rated_and_the_unrated_apart(client, monkeypatch):
    """Each list's links move its own page and keep the other's (and the search)."""
    monkeypatch.setattr(views, "PER_PAGE", 2)
    for i in range(3):
        PlayerFactory(name=f"Rated {i}", entry_rating=2000 - i)
        UnratedPlayerFactory(name=f"New {i}")
    page = client.get(reverse("ladder:standings"), {"page": "2", "upage": "1"}).content.decode()
    assert 'href="?page=1&amp;upage=1"' in page  # the rated players' previous page
    assert 'href="?page=2&amp;upage=2"' in page  # the unrated players' next page


def test_standings_count_the_rated_shown_and_the_unrated_of_a_ladder_of_pages(client, monkeypatch):
    """A ladder longer than a page counts its two lists in one query: the rated it shows
    (active, or every one when asked), the unrated, never a player merged into another."""
    monkeypatch.setattr(views, "PER_PAGE", 2)
    kept = PlayerFactory.create_batch(3, entry_rating=1900)
    sleepy = PlayerFactory(name="Sleepy Sam", entry_rating=2000)
    Player.objects.filter(pk=sleepy.pk).update(last_rated_on=date(2020, 1, 31))
    PlayerFactory(entry_rating=2100, merged_into=kept[0])
    UnratedPlayerFactory.create_batch(2)
    UnratedPlayerFactory(merged_into=kept[1])
    shown = text_of(client.get(reverse("ladder:standings")))
    assert "Rated players (3)" in shown
    assert "Unrated players (2)" in shown
    every = text_of(client.get(reverse("ladder:standings"), {"inactive": "1", "page": "2"}))
    assert "Rated players (4)" in every
    assert "Unrated players (2)" in every


def test_standings_read_no_unrated_page_when_every_player_is_rated(client, monkeypatch):
    """Counted with the rated, none unrated: their empty page costs no query."""
    monkeypatch.setattr(views, "PER_PAGE", 2)
    PlayerFactory.create_batch(3, entry_rating=1900)
    client.get(reverse("ladder:standings"))  # the club's settings and the like read once
    with CaptureQueriesContext(connection) as queries:
        text = text_of(client.get(reverse("ladder:standings")))
    assert "Rated players (3)" in text
    assert "Every player has a rating" in text
    unrated = [q["sql"] for q in queries if re.search(r'"rating" IS NULL\b', q["sql"])]
    assert len(unrated) == 1, unrated  # the counts', none of a page
    assert "COUNT(*) FILTER" in unrated[0]


def test_standings_show_last_change_after_games(client, example_a):
    text = text_of(client.get(reverse("ladder:standings")))
    assert "Ada Example 1864 +14 20 59" in text


def test_standings_empty_state(client):
    text = text_of(client.get(reverse("ladder:standings")))
    assert "No rated players yet" in text
    assert "Every player has a rating" in text


@pytest.mark.parametrize("size", [5, 60])
def test_standings_query_budget(client, build_ladder, django_assert_max_num_queries, size):
    build_ladder(size)
    # One of them reads how fresh the ratings are (a line on every page that shows ratings),
    # one the periods since the official list ("as of"), two the official list (its
    # publication, the page's lines), two the top movers (their rows, then their players: one
    # statement hashed every player for three rows).
    with django_assert_max_num_queries(10):
        assert client.get(reverse("ladder:standings")).status_code == HTTPStatus.OK
    # A search asks first whether any name holds the words typed (the rated, the unrated),
    # then, only when none does, looks for typos.
    with django_assert_max_num_queries(12):
        client.get(reverse("ladder:standings"), {"q": "Player", "inactive": "1", "page": "2"})
    with django_assert_max_num_queries(15):
        client.get(reverse("ladder:standings"), {"q": "Plyaer", "inactive": "1", "page": "2"})


# --- a player's page -----------------------------------------------------------------------


def test_player_page_explains_worked_example_a(client, example_a):
    response = client.get(example_a.get_absolute_url())
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "Ada Example" in text
    assert "1864" in text
    # The period row: rating before, K and why, games, score, expected, change, after.
    assert "March 2026 rated 1850 20" in text  # periods named by their month
    assert "9 5.50 4.78 +14 1864 1908" in text
    # The card: D, D used (400-point rule both ways), PD, dR per game.
    assert "Opponent 1420 white 1.00 1420 +430 +400 0.92 +0.08" in text
    assert "Opponent 2310 white 0.50 2310 -460 -400 0.08 +0.42" in text
    assert "Opponent 1845 white 0.50 1845 +5 +5 0.51 -0.01" in text
    # The rounding step, once per period.
    assert "K × ΣdR = 20 × +0.72 = +14.40 → +14" in text
    assert "1850 +14 = 1864" in text


def test_player_page_draws_the_chart_on_a_time_axis(client, example_a):
    html = client.get(example_a.get_absolute_url()).content.decode()
    assert '<svg viewBox="0 0 640 256" role="img"' in html
    assert re.search(r'<polyline class="line" points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"', html)
    assert "Rating from 1850 on 1 Mar 2026 to 1864 on 31 Mar 2026" in html  # the page's day
    assert "Mar 2026" in html  # a date tick


def test_player_page_previews_the_next_game(client, example_a):
    response = client.get(example_a.get_absolute_url(), {"opponent": "1850"})
    expected = selectors.what_if(example_a, 1850)
    text = text_of(response)
    assert "with the 9 games already rated this period" in text
    for name in ("win", "draw", "loss"):
        calc = expected[name]
        assert f"{name.capitalize()} " in text
        assert f"{calc.change:+d} {calc.rating_after}" in text
    # ΣdR so far +0.72; against 1850 (PD .50): win 20 × 1.22 = 24.4, draw 14.4, loss 4.4.
    assert "Win +24.40 +24 1874" in text
    assert "Draw +14.40 +14 1864" in text
    assert "Loss +4.40 +4 1854" in text


def test_player_page_rejects_a_bad_preview_rating(client, example_a):
    text = text_of(client.get(example_a.get_absolute_url(), {"opponent": "9999"}))
    assert "A rating cannot be above 3500." in text


def test_player_page_without_games(client):
    player = UnratedPlayerFactory(name="Fresh Fay")
    text = text_of(client.get(player.get_absolute_url()))
    assert "Fresh Fay has no games yet" in text
    assert "the chart appears once" in text
    assert "A preview needs a rating" in text


def test_missing_player_is_a_friendly_404(client):
    response = client.get(reverse("ladder:player", args=[999999]))
    assert response.status_code == HTTPStatus.NOT_FOUND
    text = text_of(response)
    assert "Page not found" in text
    assert "The standings" in text


@pytest.mark.parametrize("size", [4, 40])
def test_player_query_budget(client, build_ladder, django_assert_max_num_queries, size):
    players = build_ladder(size)
    # + the official lists (their publications, the player's lines), + the revisions,
    # + the players of the games and of the next game's period (one query each)
    with django_assert_max_num_queries(19):
        response = client.get(players[0].get_absolute_url(), {"opponent": "1700"})
    assert response.status_code == HTTPStatus.OK


# --- periods -------------------------------------------------------------------------------


def test_periods_index_counts_games_and_players(client, example_a):
    PeriodFactory(label="2026-04", start=date(2026, 4, 1), end=date(2026, 4, 30))
    text = text_of(client.get(reverse("ladder:periods")))
    assert "April 2026" in text
    assert "March 2026 Open 1 Mar 2026 – 31 Mar 2026 9 10" in text  # status beside the period
    assert text.index("April 2026") < text.index("March 2026")


def test_periods_index_empty_state(client):
    assert "No rating periods yet" in text_of(client.get(reverse("ladder:periods")))


def test_period_page_shows_report_and_list(client, example_a):
    period = RatingPeriod.objects.get(label="2026-03")
    response = client.get(period.get_absolute_url())
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "Ada Example rated 1850 20 9 5.50 4.78 +14.40 +14 1864 1908" in text
    report, listed = text.split("The list that closes March 2026")
    assert "Opponent 2310" in report
    assert "Ada Example" in listed
    assert "1864 +14 20 9 59 rated" in listed


def test_period_report_comes_a_page_at_a_time_keeping_the_list_asked(
    client, example_a, monkeypatch
):
    monkeypatch.setattr(views, "REPORT_PER_PAGE", 4)  # the report has 10 rows
    url = RatingPeriod.objects.get(label="2026-03").get_absolute_url()

    first = client.get(url, {"list": "standard"})
    last = client.get(url, {"list": "standard", "rpage": "3"})

    report = text_of(first).split("The list that closes")[0]
    assert report.count(" rated ") == 4
    assert "Page 1 of 3" in report
    assert 'href="?list=standard&amp;rpage=2"' in first.content.decode()
    assert text_of(last).split("The list that closes")[0].count(" rated ") == 2
    assert "Page 3 of 3" in text_of(last)
    # A page out of range or not a number: the last page, or the first, as Django's
    # paginator's get_page answers; never an error.
    assert "Page 3 of 3" in text_of(client.get(url, {"rpage": "99"}))
    assert "Page 1 of 3" in text_of(client.get(url, {"rpage": "x"}))


def test_the_k_used_column_shows_on_every_page_of_a_report_where_the_700_rule_applied(
    client, committed, monkeypatch
):
    monkeypatch.setattr(views, "REPORT_PER_PAGE", 2)
    with committed():
        busy = PlayerFactory(name="Busy Bee", entry_rating=2000, entry_rated_games=5)  # K 40
        for day in range(1, 19):  # 18 games: 40 × 18 > 700, so K 38 (8.3.3)
            GameFactory(white=busy, black=PlayerFactory(entry_rating=1990), date=date(2026, 3, day))
    url = RatingPeriod.objects.get(label="2026-03").get_absolute_url()

    pages = [client.get(url, {"rpage": str(number)}).content.decode() for number in (1, 5)]
    reports = [page.split("The list that closes")[0] for page in pages]

    assert all(">K used<" in report for report in reports)
    assert "Busy Bee" in reports[0]
    assert "Busy Bee" not in reports[1]
    assert selectors.report_size(RatingPeriod.objects.get(label="2026-03"), "standard") == (
        19,
        True,
    )


def test_period_page_empty_and_missing(client):
    PeriodFactory()
    assert "No games have been rated in March 2026 yet" in text_of(
        client.get(reverse("ladder:period", args=["2026-03"]))
    )
    assert client.get(reverse("ladder:period", args=["1999-01"])).status_code == 404
    assert client.get("/periods/2026-03%00/").status_code == 404


def test_standings_search_ignores_characters_no_name_holds(client):
    PlayerFactory(name="Anna Nul", fide_id=77, entry_rating=1800)
    for query, found in (("An\x00na", True), ("²", False), ("99999999999999999999999", False)):
        response = client.get(reverse("ladder:standings"), {"q": query})
        assert response.status_code == HTTPStatus.OK
        assert ("Anna Nul" in text_of(response)) is found


@pytest.mark.parametrize("size", [4, 40])
def test_period_pages_query_budget(client, build_ladder, django_assert_max_num_queries, size):
    build_ladder(size)
    with django_assert_max_num_queries(9):  # + its publications, + the players they changed
        assert client.get(reverse("ladder:period", args=["2026-02"])).status_code == 200
    with django_assert_max_num_queries(5):
        assert client.get(reverse("ladder:periods")).status_code == 200


def test_unplayed_game_is_shown_not_rated(client, committed):
    with committed():
        a = PlayerFactory(name="Forfeit Fred", entry_rating=1700)
        GameFactory(white=a, result="+/-", date=date(2026, 3, 3))
    text = text_of(client.get(a.get_absolute_url()))
    assert "+/- unrated unplayed: not rated" in text or "unplayed: not rated" in text


def test_player_page_shows_a_title_as_a_title_and_a_level_as_a_level(client):
    titled = PlayerFactory(name="Tess Titled", entry_rating=2450, title="WGM")
    plain = PlayerFactory(name="Lev Level", entry_rating=2450)
    titled_text = text_of(client.get(titled.get_absolute_url()))
    assert "WGM Tess Titled" in titled_text
    assert "IM level" not in titled_text.split("Rating over time")[0]
    plain_text = text_of(client.get(plain.get_absolute_url()))
    assert "Level IM level" in plain_text


def test_chart_puts_periods_on_a_time_axis_so_gaps_show(client, committed):
    with committed():
        hero = PlayerFactory(name="Gap Gabe", entry_rating=1800)
        GameFactory(white=hero, date=date(2026, 1, 10))
        GameFactory(white=hero, date=date(2026, 6, 10))
    sections = client.get(hero.get_absolute_url()).context["sections"]
    assert [section["list"] for section in sections] == ["standard"]
    chart = sections[0]["chart"]
    xs = [dot["x"] for dot in chart["dots"]]
    # Points: opening 1 Jan, after January (31 Jan), after June (30 Jun): five idle months
    # take about five times the width of January.
    assert len(xs) == 3
    january, gap = xs[1] - xs[0], xs[2] - xs[1]
    assert 4 < gap / january < 6
    assert [t["label"] for t in chart["x_ticks"]][:2] == ["Jan 2026", "Mar 2026"]


def test_standings_ties_share_a_rank(client):
    PlayerFactory(name="Ann Tie", entry_rating=2000)
    PlayerFactory(name="Bob Tie", entry_rating=2000)
    PlayerFactory(name="Cat Next", entry_rating=1990)
    text = text_of(client.get(reverse("ladder:standings")))
    assert "1 Ann Tie" in text
    assert "1 Bob Tie" in text
    assert "3 Cat Next" in text


def test_standings_ranks_on_a_later_page_and_in_a_search_count_every_player_above(client):
    # 60 rated players in ties of three (page 2 starts inside the ladder), one inactive above
    # them all (not visible: not counted), and unrated players (never ranked).
    ratings = [2400 - 10 * (n // 3) for n in range(60)]
    for n, rating in enumerate(ratings):
        PlayerFactory(name=f"Rank {n:02d}", entry_rating=rating)
    UnratedPlayerFactory(name="Rank Unrated")
    inactive = PlayerFactory(name="Rank Gone", entry_rating=2700)
    Player.objects.filter(pk=inactive.pk).update(last_rated_on=date(2020, 1, 1))
    expected = {f"Rank {n:02d}": 1 + sum(r > rating for r in ratings)
                for n, rating in enumerate(ratings)}  # fmt: skip
    page_1 = text_of(client.get(reverse("ladder:standings")))
    for name in ("Rank 00", "Rank 02", "Rank 03", "Rank 47", "Rank 48", "Rank 49"):
        assert f"{expected[name]} {name}" in page_1, name
    page_2 = text_of(client.get(reverse("ladder:standings"), {"page": 2}))
    for name in ("Rank 50", "Rank 58", "Rank 59"):
        assert f"{expected[name]} {name}" in page_2, name
    # With the inactive shown, the one above everyone is first and everyone else one lower.
    shown = text_of(client.get(reverse("ladder:standings"), {"inactive": "1"}))
    assert "1 Rank Gone" in shown
    for name in ("Rank 00", "Rank 03", "Rank 47"):
        assert f"{expected[name] + 1} {name}" in shown, name
    found = text_of(client.get(reverse("ladder:standings"), {"q": "Rank 4"}))
    for name in ("Rank 40", "Rank 44", "Rank 49"):
        assert f"{expected[name]} {name}" in found, name
    assert "Rank Gone" not in found
