"""The statistics page (/statistics/) and the percentile on a player's page, with exact numbers
on a small club, its empty states, a bad list, and its query budget."""

from datetime import date
from http import HTTPStatus

import pytest
from django.urls import reverse

from ladder.records import Player, RatingPeriod, Result
from ladder.writes import actions
from ratings import selectors
from ratings import statistics as stats
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory
from tests.pages.test_markup import audit
from tests.pages.test_pages import text_of

# The phone and laptop screens of the other browser tests (a fixture, imported to be found).
from tests.pages.test_phone import assert_inside, no_page_scroll, screen, shot  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(committed):
    """A small club over three periods, every number of it worked out by hand.

    2025-01: two 1700 players draw (no change); nobody plays again, so both are inactive at
    the first list 12 months later (2026-03's). 2026-03: Gil (K 40) beats Gus (K 20): +20 and
    -10, a drift of +5.0. 2026-04: Lia (1405, K 40) loses to Leo (1420, K 20): -19 falls below
    the floor, +10; Nia, unrated, earns a first rating from five games against Pia (2210).
    2025-01 and 2026-03 are closed (published); 2026-04 is open.
    """
    with committed():
        players = {
            "Pat": PlayerFactory(name="Pat", entry_rating=1450),  # K 20
            "Pam": PlayerFactory(name="Pam", entry_rating=1520, entry_rated_games=10),  # K 40
            "Pen": PlayerFactory(name="Pen", entry_rating=1590, birth_year=2012),  # junior, K 40
            "Pia": PlayerFactory(name="Pia", entry_rating=2210),  # CM level, K 20
            "Pol": PlayerFactory(name="Pol", entry_rating=2450),  # IM level, K 10
            "Ian": PlayerFactory(name="Ian", entry_rating=1700),
            "Ivy": PlayerFactory(name="Ivy", entry_rating=1700),
            "Gil": PlayerFactory(name="Gil", entry_rating=1800, entry_rated_games=10),
            "Gus": PlayerFactory(name="Gus", entry_rating=1800),
            "Lia": PlayerFactory(name="Lia", entry_rating=1405, entry_rated_games=10),
            "Leo": PlayerFactory(name="Leo", entry_rating=1420),
            "Nia": UnratedPlayerFactory(name="Nia"),
            "Una": UnratedPlayerFactory(name="Una"),
        }
        p = players
        GameFactory(white=p["Ian"], black=p["Ivy"], result=Result.DRAW, date=date(2025, 1, 15))
        GameFactory(white=p["Gil"], black=p["Gus"], result=Result.WHITE_WIN, date=date(2026, 3, 9))
        GameFactory(white=p["Leo"], black=p["Lia"], result=Result.WHITE_WIN, date=date(2026, 4, 6))
        for day in range(1, 6):
            GameFactory(
                white=p["Nia"], black=p["Pia"], result=Result.DRAW, date=date(2026, 4, 10 + day)
            )
    with committed():
        actions.close_period(period=RatingPeriod.objects.get(label="2025-01"))
    with committed():
        actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    for player in players.values():
        player.refresh_from_db()
    return players


def test_pool_now_counts_bins_levels_and_k(club):
    pool = stats.pool("standard", year=2026, on=date(2026, 12, 1))
    assert (pool.rated, pool.unrated, pool.inactive) == (11, 2, 2)  # Ian and Ivy are away
    assert round(pool.mean, 2) == 1795.73  # 19753 / 11
    assert pool.bins == [
        (1400, 2), (1500, 2), (1600, 0), (1700, 3), (1800, 1), (1900, 0), (2000, 1),
        (2100, 0), (2200, 1), (2300, 0), (2400, 1),
    ]  # fmt: skip
    assert [(b.label, b.count) for b in pool.levels] == [
        ("GM level", 0), ("IM level", 1), ("FM level", 0), ("CM level", 1), ("Below 2200", 9)
    ]  # fmt: skip
    # K 40: Pam and Gil (under 30 games), Pen (junior), Nia (5 games); K 10: Pol (2400+).
    assert [(b.label, b.count) for b in pool.ks] == [
        ("K 40", 4), ("K 20", 6), ("K 10", 1), ("Other K", 0)
    ]  # fmt: skip


def test_pool_k_counts_are_the_standings_k(club):
    one_by_one: dict[int, int] = {}
    for player in Player.objects.rated("standard"):
        k = selectors.current_k(player, year=2026).value
        one_by_one[k] = one_by_one.get(k, 0) + 1
    pool = stats.pool("standard", year=2026, on=date(2026, 12, 1))
    assert {int(b.label[2:]): b.count for b in pool.ks[:3] if b.count} == one_by_one


def test_a_club_k_is_counted_as_other(club, settings):
    settings.LADDER_CLUB_K = 32
    pool = stats.pool("standard", year=2026, on=date(2026, 12, 1))
    assert [b.count for b in pool.ks] == [0, 0, 0, 11]


def test_periods_count_newcomers_leavers_drift_and_the_published_mean(club):
    rows = {r.period.label: r for r in stats.periods("standard")}
    assert list(rows) == ["2025-01", "2026-03", "2026-04"]
    got = {
        label: (r.newcomers, r.inactive, r.below_floor, r.leavers, r.rated, r.drift, r.published)
        for label, r in rows.items()
    }
    assert got == {
        "2025-01": (0, 0, 0, 0, 2, 0.0, 1),
        "2026-03": (0, 2, 0, 2, 2, 5.0, 1),  # Ian and Ivy: 12 months without a rated game
        "2026-04": (1, 0, 1, 1, 2, -4.5, None),  # Nia in; Lia below the floor
    }
    assert round(rows["2025-01"].mean, 2) == 1731.36  # 19045 / 11 rated on the list
    assert round(rows["2026-03"].mean, 2) == 1732.27  # 19055 / 11
    assert rows["2026-04"].mean is None  # open: not published


def test_a_player_back_after_15_months_is_still_counted_when_they_left(club, committed):
    with committed():
        GameFactory(
            white=club["Ian"], black=club["Pat"], result=Result.DRAW, date=date(2026, 4, 20)
        )
    rows = {r.period.label: r for r in stats.periods("standard")}
    assert rows["2026-03"].inactive == 2  # Ian left at 2026-03's list, and came back after it
    assert rows["2026-04"].inactive == 0


def test_a_player_back_within_12_months_never_left(committed):
    with committed():
        a, b, c, d, e = (PlayerFactory(name=name) for name in "ABCDE")
        GameFactory(white=a, black=b, result=Result.DRAW, date=date(2025, 1, 15))
        GameFactory(white=a, black=c, result=Result.DRAW, date=date(2025, 10, 15))
        GameFactory(white=d, black=e, result=Result.DRAW, date=date(2026, 3, 15))
    rows = {r.period.label: r.inactive for r in stats.periods("standard")}
    # B only: A played again in October, and October is not 12 months old at 2026-03's list.
    assert rows == {"2025-01": 0, "2025-10": 0, "2026-03": 1}


def test_statistics_page_shows_the_numbers_charts_and_tables(client, club):
    response = client.get(reverse("ladder:statistics"))
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    text = text_of(response)
    assert "Rated players 11" in text
    assert "Unrated players 2" in text
    assert "Mean rating 1796" in text
    for chart in ("histogram", "levels", "ks", "flow", "drift", "means"):
        assert f'data-chart="{chart}"' in html
    for table in ("histogram", "levels", "ks", "periods"):
        assert f'<table data-table="{table}">' in html
    assert "1400–1499 2 1500–1599 2 1600–1699 0 1700–1799 3" in text
    assert "IM level 1 FM level 0 CM level 1 Below 2200 9" in text
    assert "K 40 4 K 20 6 K 10 1 Other K 0" in text
    assert "2025-01 0 0 0 2 +0.0 1731.4" in text
    assert "2026-03 0 2 0 2 +5.0 1732.3" in text
    assert "2026-04 1 0 1 2 -4.5 not published" in text
    assert "the official list is 2026-03" in text
    assert "live ratings" in text


def test_statistics_page_for_another_list_and_a_bad_one(client, club):
    response = client.get(reverse("ladder:statistics"), {"list": "rapid"})
    text = text_of(response)
    assert "Statistics · Rapid" in text
    assert "No rated players on the rapid list yet." in text
    response = client.get(reverse("ladder:statistics"), {"list": "bullet"})
    assert response.status_code == HTTPStatus.OK
    assert (
        "'bullet' is not a list; use standard, rapid or blitz. Showing the standard list instead."
        in text_of(response)
    )
    assert "Rated players 11" in text_of(response)


def test_a_list_the_club_does_not_keep_falls_back_with_a_notice(client, club, settings):
    settings.LADDER_LISTS = ["standard"]
    text = text_of(client.get(reverse("ladder:statistics"), {"list": "blitz"}))
    assert "The club keeps no blitz list (it keeps: standard). Showing the standard list" in text
    html = client.get(reverse("ladder:statistics")).content.decode()
    assert "list-selector" not in html
    assert "?list=" not in html  # one list: its links need not name it


def test_statistics_page_is_well_formed_and_accessible(client, club):
    for query in ({}, {"list": "rapid"}, {"list": "bullet"}):
        page = audit(client.get(reverse("ladder:statistics"), query))
        assert page.problems == [], query
        assert page.stack == [], query
        assert page.headings.count(1) == 1, query
        steps = zip(page.headings, page.headings[1:], strict=False)
        assert all(b <= a + 1 for a, b in steps), f"{query}: a heading level is skipped"
        assert len(page.ids) == len(set(page.ids)), f"{query}: duplicate ids"
        missing = [r for r in page.references if r not in page.ids]
        assert missing == [], f"{query}: aria references to nothing"


def test_statistics_page_empty_club(client):
    response = client.get(reverse("ladder:statistics"))
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "No rated players on the standard list yet." in text
    assert "No rating periods yet" in text
    assert "no list has been published yet" in text
    assert "<svg" not in response.content.decode()


def test_statistics_page_rated_players_and_no_period(client):
    PlayerFactory.create_batch(3, entry_rating=1650)
    text = text_of(client.get(reverse("ladder:statistics")))
    assert "Rated players 3" in text
    assert "1600–1699 3" in text
    assert "No rating periods yet" in text


def test_statistics_page_periods_but_none_published(client, committed):
    with committed():
        GameFactory(date=date(2026, 3, 4))
    text = text_of(client.get(reverse("ladder:statistics")))
    assert "No list has been published yet: the mean rating" in text
    assert "2026-03 0 0 0 2 +0.0 not published" in text


def test_navigation_links_the_statistics(client):
    html = client.get(reverse("ladder:statistics")).content.decode()
    assert f'<a href="{reverse("ladder:statistics")}" aria-current="page">Stats</a>' in html
    assert 'href="/statistics/"' in client.get(reverse("ladder:standings")).content.decode()


@pytest.mark.parametrize("size", [5, 80])
def test_statistics_query_budget(client, build_ladder, django_assert_max_num_queries, size):
    build_ladder(size)
    # How fresh the ratings are, the year K is counted in, the pool (3), the periods (4), the
    # official list's publication.
    with django_assert_max_num_queries(10):
        assert client.get(reverse("ladder:statistics")).status_code == HTTPStatus.OK


# --- a player's percentile -----------------------------------------------------------------


def test_percentiles_of_the_other_rated_players(club):
    assert stats.percentiles(club["Gil"], ["standard", "rapid"]) == {"standard": 70}  # 7 of 10
    assert stats.percentiles(club["Pol"], ["standard"]) == {"standard": 100}
    assert stats.percentiles(club["Pat"], ["standard"]) == {"standard": 10}  # Leo, 1430
    assert stats.percentiles(club["Una"], ["standard"]) == {}


def test_player_page_says_the_percentile(client, club):
    text = text_of(client.get(club["Gil"].get_absolute_url()))
    assert "Better than 70 % of the other rated players on the standard list" in text
    assert "on the rapid list" not in text
    assert "Better than" not in text_of(client.get(club["Una"].get_absolute_url()))


def test_a_lone_rated_player_has_no_percentile(client):
    alone = PlayerFactory()
    assert stats.percentiles(alone, ["standard"]) == {}
    assert "Better than" not in text_of(client.get(alone.get_absolute_url()))


# --- in Chromium, on a phone and a laptop --------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_statistics_page_fits_the_screen(screen, live_server, club):  # noqa: F811
    name, width, page = screen
    page.goto(live_server.url + reverse("ladder:statistics"))
    no_page_scroll(page, width)
    for chart in ("histogram", "levels", "ks", "flow", "drift", "means"):
        assert_inside(page.locator(f"svg[data-chart={chart}]"), width)
    # The labels of each chart stay apart (readable at 390 px as at 1280 px).
    for chart in ("histogram", "flow", "levels"):
        boxes = [
            b
            for b in (t.bounding_box() for t in page.locator(f"svg[data-chart={chart}] text").all())
            if b is not None and b["width"] > 0
        ]
        assert boxes
        assert min(b["height"] for b in boxes) >= 9  # px on screen
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = (
                    a["x"] + a["width"] <= b["x"] + 0.5
                    or b["x"] + b["width"] <= a["x"] + 0.5
                    or a["y"] + a["height"] <= b["y"] + 0.5
                    or b["y"] + b["height"] <= a["y"] + 0.5
                )
                assert apart, f"{chart}: two labels overlap at {width} px"
    # The numbers are real tables in the page, read out when opened; opened, they still fit.
    assert page.locator("table[data-table=histogram] tbody tr").count() == 11
    assert page.locator("table[data-table=periods] tbody tr").count() == 3
    for summary in page.locator("details.numbers summary").all():
        summary.click()
    assert_inside(page.locator("table[data-table=histogram]"), width)
    assert_inside(page.locator("details.numbers .table-wrap"), width)
    no_page_scroll(page, width)
    shot(page, f"statistics-{name}")
