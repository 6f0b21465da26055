"""The page "Rules in force on ...": FIDE's rule set for a tournament starting on a day."""

import re
from html import unescape
from http import HTTPStatus

import pytest

from .test_pages import text_of

pytestmark = pytest.mark.django_db

CHOICE = " Ladder's choice"

# (date, the sentence under the heading, each row: rule | what it says | article | since,
#  the links to the other rule sets, the adjustments)
DAYS = {
    "2008-05-01": (
        "FIDE's rules for a tournament starting on 1 May 2008, standard list: a tournament is "
        "rated by the rules and the list in force on the day it starts. These rules apply "
        "before 1 Jul 2009 until the change of 1 Jul 2009.",
        [
            "K factor | K 25 (fewer than 30 games) / 15 / 10 (once 2400 reached, for good) | "
            "B.02.10 | before 1 Jul 2009",
            "The 700 rule | No limit on K x games | B.02.10 | before 1 Jul 2009",
            "The rating difference cap | A rating difference beyond 350 counts as 350 "
            "(350-point rule) | B.02.10 | before 1 Jul 2009",
            "The 600-point rule | No 600-point rule on this list | R&B 7.3.1 | before 1 Jul 2009",
            "The rating floor | Floor 1400: a rating below it is not published; the player is "
            f"unrated again{CHOICE} | B.02.10 | before 1 Jul 2009",
            "A first rating | Average of rated opponents + dp(p), the performance"
            f"{CHOICE} | 8.2 | before 1 Jul 2009",
            "An unrated player with a standard rating | This is the standard list | R&B 7.2.1 | "
            "before 1 Jul 2009",
        ],
        [("next", "?date=2009-07-01&list=standard", "the rules from 1 Jul 2009 →")],
        "No one-off adjustment of the standard list within two years of this day.",
    ),
    "2013-03-01": (
        "FIDE's rules for a tournament starting on 1 March 2013, standard list: a tournament "
        "is rated by the rules and the list in force on the day it starts. These rules apply "
        "from 1 Jul 2012 until the change of 1 Jul 2014.",
        [
            "K factor | K 30 (fewer than 30 games) / 15 / 10 (once 2400 reached, for good)"
            f"{CHOICE} | 8.3.3 | 1 Jul 2011",
            "The 700 rule | No limit on K x games | B.02.10 | before 1 Jul 2009",
            "The rating difference cap | A rating difference beyond 400 counts as 400 "
            "(400-point rule) | 8.3.1 | 1 Jul 2009",
            "The 600-point rule | No 600-point rule on this list | R&B 7.3.1 | before 1 Jul 2009",
            "The rating floor | Floor 1000: a rating below it is not published; the player is "
            "unrated again | 7.2.1 | 1 Jul 2012",
            "A first rating | Average of rated opponents + dp(p), the performance"
            f"{CHOICE} | 8.2 | before 1 Jul 2009",
            "An unrated player with a standard rating | This is the standard list | R&B 7.2.1 | "
            "before 1 Jul 2009",
        ],
        [
            ("prev", "?date=2012-06-30&list=standard", "← the rules from 1 Jul 2011"),
            ("next", "?date=2014-07-01&list=standard", "the rules from 1 Jul 2014 →"),
        ],
        "No one-off adjustment of the standard list within two years of this day.",
    ),
    "2025-11-01": (
        "FIDE's rules for a tournament starting on 1 November 2025, standard list: a "
        "tournament is rated by the rules and the list in force on the day it starts. These "
        "rules apply from 1 Oct 2025, and still do.",
        [
            "K factor | K 40 (fewer than 30 games; juniors to the end of the year they turn 18 "
            "while never 2300+) / 20 / 10 (once 2400 published, for good) | 8.3.3 | 1 Jan 2022",
            "The 700 rule | K x n <= 700: with n games in a period K is cut to floor(700 / n)"
            f"{CHOICE} | 8.3.3 | 1 Jul 2014",
            "The rating difference cap | A rating difference beyond 400 counts as 400 "
            "(400-point rule); a player rated 2650+ uses the real difference | 8.3.1 | "
            "1 Oct 2025",
            "The 600-point rule | No 600-point rule on this list | R&B 7.3.1 | before 1 Jul 2009",
            "The rating floor | Floor 1400: a rating below it is not published; the player is "
            "unrated again | 7.2.1 | 1 Mar 2024",
            "A first rating | Two hypothetical 1800 opponents, both drawn; at most 2200, over "
            "at most 26 months | 7.1.4, 8.2 | 1 Mar 2024",
            "An unrated player with a standard rating | This is the standard list | R&B 7.2.1 | "
            "before 1 Jul 2009",
        ],
        [("prev", "?date=2025-09-30&list=standard", "← the rules from 1 Mar 2024")],
        "1 March 2024: Every rating below 2000 is raised by 0.4 x (2000 - rating), after "
        "February 2024's games. (Rating regulations of 1 March 2024, one-off (FIDE.md 10.2); "
        "applied to the ratings before any tournament starting on or after that day is rated.)",
    ),
}


def cells(html: str) -> list[str]:
    """Each rule as "what it is about | what it says[ Ladder's choice] | article | since"."""
    rules = re.findall(r'<div class="rule">(.*?)</div>', html, re.S)

    def part(rule: str, name: str) -> str:
        return plain(re.search(rf'<[a-z]+ class="{name}">(.*?)</(?:dt|span)>', rule, re.S)[1])

    return [
        f"{part(r, 'rule-about')} | {part(r, 'rule-text')}{CHOICE if 'badge' in r else ''} | "
        f"{part(r, 'rule-article')} | {part(r, 'rule-since')}"
        for r in rules
    ]


def plain(fragment: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment)).strip())


def adjustments_of(html: str) -> list[str]:
    """The one-off adjustments listed, or the sentence saying there are none."""
    section = html.split("<h2>One-off adjustments near this day</h2>")[1].split('<p class="note">')[
        0
    ]
    return [plain(item) for item in re.findall(r"<li>(.*?)</li>", section, re.S)] or [
        plain(section)
    ]


def links(html: str) -> list[tuple[str, str, str]]:
    found = re.findall(r'<a rel="(prev|next)" href="([^"]+)">([^<]+)</a>', html)
    return [(rel, href.replace("&amp;", "&"), text) for rel, href, text in found]


@pytest.mark.parametrize("day", DAYS)
def test_the_rules_in_force_on_a_day(client, day, django_assert_max_num_queries):
    scope, rows, around, adjustments = DAYS[day]
    with django_assert_max_num_queries(0):
        response = client.get(f"/rules/?date={day}")
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert f"<h1>Rules in force on {scope.split('starting on ')[1].split(',')[0]}</h1>" in html
    assert re.sub(r"\s+", " ", re.search(r'data-testid="scope">(.*?)</p>', html, re.S)[1]) == (
        scope
    )
    assert cells(html) == rows
    assert links(html) == around
    assert adjustments_of(html) == [adjustments]


def test_the_rapid_list_and_its_adjustments(client):
    response = client.get("/rules/?date=2023-01-15&list=rapid")
    assert response.status_code == HTTPStatus.OK
    assert "starting on 15 January 2023, rapid list" in text_of(response)
    first, second = adjustments_of(response.content.decode())
    assert first.startswith(
        "1 October 2022: Rapid and blitz ratings more than 100 below the player's standard "
        "rating are raised to the standard rating - 100. (R&B regulations of 1 October 2022"
    )
    assert second.startswith("1 March 2024: Every rating below 2000")
    assert links(response.content.decode())[1] == (
        "next", "?date=2024-03-01&list=rapid", "the rules from 1 Mar 2024 →")  # fmt: skip


def test_the_default_is_today_and_the_standard_list(client):
    response = client.get("/rules/")
    assert response.status_code == HTTPStatus.OK
    assert "standard list" in text_of(response)
    assert "and still do." in text_of(response)


@pytest.mark.parametrize(
    ("query", "message"),
    [("date=2025-13-01", "'2025-13-01' is not a date; write YYYY-MM-DD, e.g. 2025-11-01."),
     ("date=yesterday", "'yesterday' is not a date; write YYYY-MM-DD, e.g. 2025-11-01."),
     ("list=bullet", "'bullet' is not a rating list; choose one of standard, rapid, blitz."),
     ("date=2010-05-01&list=blitz",
      "FIDE's blitz list rates games from 1 January 2012; there are no blitz rules for "
      "1 May 2010."),
     ("date=9999-12-31", None), ("date=0001-01-01", None)],
)  # fmt: skip
def test_a_bad_date_or_list_is_said_on_the_page(client, query, message):
    response = client.get(f"/rules/?{query}")
    if message is None:  # the first and the last day there are: still a page
        assert response.status_code == HTTPStatus.OK
        return
    assert response.status_code == HTTPStatus.BAD_REQUEST
    html = response.content.decode()
    assert unescape(re.search(r'role="alert">(.*?)</p>', html)[1]) == message
    assert "<h1>Rules in force</h1>" in html


def test_the_page_is_in_the_navigation(client):
    html = client.get("/").content.decode()
    assert '<a href="/rules/">Rules</a>' in html
    assert 'href="/rules/" aria-current="page">Rules</a>' in client.get("/rules/").content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [390, 1280])
def test_every_rule_shows_without_a_sideways_scroll(browser, live_server, width):
    context = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=width < 500)
    page = context.new_page()
    page.goto(live_server.url + "/rules/?date=2025-11-01")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    texts = page.locator(".rule-text")
    assert texts.count() == len(DAYS["2025-11-01"][1])
    for index in range(texts.count()):
        box = texts.nth(index).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= width
    context.close()
