"""Identity and signposts: the club's name, the standings' date, legend and top movers, periods
named by their month, and the links to the admin and the API docs."""

from http import HTTPStatus

import pytest
from django.test import override_settings
from django.test.utils import override_script_prefix
from django.urls import reverse

from ladder.templatetags.ladder_pages import month_name
from ratings import selectors
from tests.factories import GameFactory, PlayerFactory

from .test_pages import text_of

pytestmark = pytest.mark.django_db


@override_settings(LADDER_CLUB_NAME="Riverside Chess Club")
def test_the_club_name_is_in_the_header_and_the_title(client):
    html = client.get(reverse("ladder:calculator")).content.decode()
    assert "<title>Rating calculator · Riverside Chess Club</title>" in html
    assert '<span aria-hidden="true">♞</span> Riverside Chess Club</a>' in html


def test_without_a_club_name_the_site_is_ladder(client):
    assert "<title>Standings · Ladder</title>" in client.get("/").content.decode()


def test_standings_say_as_of_when_explain_the_signs_and_show_top_movers(client, example_a):
    response = client.get(reverse("ladder:standings"))
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "; the latest period is March 2026 (open)." in text
    assert "As of " in text
    assert "+0 means rated games with no net change; — means no change to show yet" in text
    movers = text.split("Top movers of March 2026")[1].split("Unrated players")[0]
    # 1905 beat 1850: 20 × (1 − 0.58) = +8.4; 2000 beat 1850: 20 × (1 − 0.70) = +6.
    assert (
        movers.strip() == "Ada Example +14 → 1864 Opponent 1905 +8 → 1913 Opponent 2000 +6 → 2006"
    )


def test_top_movers_tied_on_the_third_gain_are_ordered_by_name(client, committed):
    with committed():
        for name in ["Dora", "Cleo", "Bob", "Anna"]:  # each beats an equal: +10
            hero = PlayerFactory(name=name, entry_rating=1800)
            GameFactory(white=hero, black=PlayerFactory(entry_rating=1800), result="1-0")
        zed = PlayerFactory(name="Zed", entry_rating=1800)  # beats 2200: 20 × 0.92 = +18
        GameFactory(white=zed, black=PlayerFactory(entry_rating=2200), result="1-0")

    text = text_of(client.get(reverse("ladder:standings")))

    movers = text.split("Top movers of March 2026")[1].split("Unrated players")[0]
    assert movers.strip() == "Zed +18 → 1818 Anna +10 → 1810 Bob +10 → 1810"


def test_top_movers_tied_beyond_the_gains_read_first_are_still_ordered_by_name(client, committed):
    # More players tied on the third gain than top_movers reads past it (_TIES): the names
    # that come first are the last entered, so the ties are read again in full.
    names = [f"Player {chr(ord('Z') - i)}" for i in range(selectors._TIES + 6)]
    with committed():
        for name in names:  # each beats an equal: +10, the later the earlier in the alphabet
            hero = PlayerFactory(name=name, entry_rating=1800)
            GameFactory(white=hero, black=PlayerFactory(entry_rating=1800), result="1-0")

    text = text_of(client.get(reverse("ladder:standings")))

    movers = text.split("Top movers of March 2026")[1].split("Unrated players")[0]
    first = sorted(names)[:3]
    assert movers.split() == " ".join(f"{name} +10 → 1810" for name in first).split()


def test_no_top_movers_before_any_rated_period(client):
    assert "Top movers" not in text_of(client.get(reverse("ladder:standings")))


def test_every_page_links_to_the_admin_and_the_api_docs(client):
    html = client.get(reverse("ladder:periods")).content.decode()
    assert '<a href="/admin/">Administration</a>' in html
    assert '<a href="/api/v1/docs/">API documentation</a>' in html


def test_the_header_and_footer_links_follow_the_script_prefix(client):
    # The links every page shares are reversed once per script prefix: a club served under
    # /club/ links there, and the root's pages still link to the root.
    plain = client.get(reverse("ladder:periods")).content.decode()
    with override_script_prefix("/club/"):  # as the WSGI handler sets it from SCRIPT_NAME
        prefixed = client.get("/periods/").content.decode()

    for page, prefix in [(prefixed, "/club"), (plain, "")]:
        for path in ["/", "/periods/", "/statistics/", "/calculator/", "/rules/", "/admin/",
                     "/api/v1/docs/", "/api/v1/schema/", "/i18n/setlang/"]:  # fmt: skip
            assert f'"{prefix}{path}"' in page, (prefix, path)
    assert '"/club/periods/" aria-current="page"' in prefixed


def test_the_standings_link_each_player_under_the_script_prefix(client):
    # Each row's link is its player's page under the prefix the request is served with, the
    # links' parts kept once per prefix: served under /club/, then at the root again.
    player = PlayerFactory(entry_rating=1800, name="Ann")
    link = f'href="/club/players/{player.pk}/">Ann</a>'
    for prefix, expected in [("/club/", link), ("/", link.replace("/club", "")), ("/club/", link)]:
        with override_script_prefix(prefix):
            assert expected in client.get("/").content.decode(), prefix


@pytest.mark.parametrize(
    ("label", "name"),
    [("2026-10", "October 2026"), ("2026-01", "January 2026"), ("2026-13", "2026-13"),
     ("Spring 2026", "Spring 2026")],
)  # fmt: skip
def test_periods_are_named_by_their_month(label, name):
    assert month_name(label) == name
