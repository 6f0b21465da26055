"""``GET /api/v1/rules/``: the rules in force on a day, as the page shows them, in JSON."""

from http import HTTPStatus

import pytest

pytestmark = pytest.mark.django_db

URL = "/api/v1/rules/"


def rule(name, about, text, article, since, established=True):
    return {"name": name, "about": about, "text": text, "article": article, "since": since,
            "established": established}  # fmt: skip


NO_600 = rule("six_hundred", "The 600-point rule", "no 600-point rule on this list", "R&B 7.3.1",
              "before 1 Jul 2009")  # fmt: skip
STANDARD = rule("seeded_from_standard", "An unrated player with a standard rating",
                "this is the standard list", "R&B 7.2.1", "before 1 Jul 2009")  # fmt: skip
PERFORMANCE = rule("first_rating", "A first rating",
                   "average of rated opponents + dp(p), the performance", "8.2",
                   "before 1 Jul 2009", established=False)  # fmt: skip
FLOOR = "floor {}: a rating below it is not published; the player is unrated again"
CAP = "a rating difference beyond {0} counts as {0} ({0}-point rule)"

ANSWERS = {
    "2008-05-01": {
        "date": "2008-05-01", "list": "standard", "since": None,
        "since_text": "before 1 Jul 2009",
        "rules": [
            rule("k", "K factor", "K 25 (fewer than 30 games) / 15 / 10 (once 2400 reached, "
                 "for good)", "B.02.10", "before 1 Jul 2009"),
            rule("seven_hundred", "The 700 rule", "no limit on K x games", "B.02.10",
                 "before 1 Jul 2009"),
            rule("cap", "The rating difference cap", CAP.format(350), "B.02.10",
                 "before 1 Jul 2009"),
            NO_600,
            rule("floor", "The rating floor", FLOOR.format(1400), "B.02.10",
                 "before 1 Jul 2009", established=False),
            PERFORMANCE,
            STANDARD,
        ],
        "previous": None,
        "next": {"date": "2009-07-01", "text": "1 Jul 2009"},
        "adjustments": [],
    },
    "2013-03-01": {
        "date": "2013-03-01", "list": "standard", "since": "2012-07-01",
        "since_text": "1 Jul 2012",
        "rules": [
            rule("k", "K factor", "K 30 (fewer than 30 games) / 15 / 10 (once 2400 reached, "
                 "for good)", "8.3.3", "1 Jul 2011", established=False),
            rule("seven_hundred", "The 700 rule", "no limit on K x games", "B.02.10",
                 "before 1 Jul 2009"),
            rule("cap", "The rating difference cap", CAP.format(400), "8.3.1", "1 Jul 2009"),
            NO_600,
            rule("floor", "The rating floor", FLOOR.format(1000), "7.2.1", "1 Jul 2012"),
            PERFORMANCE,
            STANDARD,
        ],
        "previous": {"date": "2012-06-30", "text": "1 Jul 2011"},
        "next": {"date": "2014-07-01", "text": "1 Jul 2014"},
        "adjustments": [],
    },
    "2025-11-01": {
        "date": "2025-11-01", "list": "standard", "since": "2025-10-01",
        "since_text": "1 Oct 2025",
        "rules": [
            rule("k", "K factor", "K 40 (fewer than 30 games; juniors to the end of the year "
                 "they turn 18 while never 2300+) / 20 / 10 (once 2400 published, for good)",
                 "8.3.3", "1 Jan 2022"),
            rule("seven_hundred", "The 700 rule", "K x n <= 700: with n games in a period K is "
                 "cut to floor(700 / n)", "8.3.3", "1 Jul 2014", established=False),
            rule("cap", "The rating difference cap", CAP.format(400) + "; a player rated 2650+ "
                 "uses the real difference", "8.3.1", "1 Oct 2025"),
            NO_600,
            rule("floor", "The rating floor", FLOOR.format(1400), "7.2.1", "1 Mar 2024"),
            rule("first_rating", "A first rating", "two hypothetical 1800 opponents, both "
                 "drawn; at most 2200, over at most 26 months", "7.1.4, 8.2", "1 Mar 2024"),
            STANDARD,
        ],
        "previous": {"date": "2025-09-30", "text": "1 Mar 2024"},
        "next": None,
        "adjustments": [{
            "date": "2024-03-01", "lists": ["standard", "rapid", "blitz"],
            "reason": "Every rating below 2000 is raised by 0.4 x (2000 - rating), after "
            "February 2024's games.",
            "article": "Rating regulations of 1 March 2024, one-off (FIDE.md 10.2)",
        }],
    },
}  # fmt: skip


@pytest.mark.parametrize("day", ANSWERS)
def test_the_rules_in_force_on_a_day(anon, day, django_assert_max_num_queries):
    # The rules are data in code: no query (beyond the anonymous throttle's count where a
    # rate is set; the tests set none).
    with django_assert_max_num_queries(0):
        response = anon.get(URL, {"date": day})
    assert response.status_code == HTTPStatus.OK
    assert response.json() == ANSWERS[day]


def test_the_default_is_today_on_the_standard_list(anon):
    body = anon.get(URL).json()
    assert body["list"] == "standard"
    assert body["next"] is None


def test_another_list(anon):
    body = anon.get(URL, {"date": "2023-01-15", "list": "Rapid"}).json()
    assert body["list"] == "rapid"
    assert [a["date"] for a in body["adjustments"]] == ["2022-10-01", "2024-03-01"]
    assert body["rules"][0]["text"].startswith("K 40")


@pytest.mark.parametrize(
    ("query", "problems"),
    [({"date": "2025-13-01"},
      {"date": ["'2025-13-01' is not a date; write YYYY-MM-DD, e.g. 2025-11-01."]}),
     ({"list": "bullet"},
      {"list": ["'bullet' is not a rating list; choose one of standard, rapid, blitz."]}),
     ({"date": "2010-05-01", "list": "rapid"},
      {"date": ["FIDE's rapid list rates games from 1 January 2012; there are no rapid rules "
                "for 1 May 2010."]})],
)  # fmt: skip
def test_a_bad_date_or_list_is_a_400_naming_the_field(anon, query, problems):
    response = anon.get(URL, query)
    assert response.status_code == HTTPStatus.BAD_REQUEST
    body = response.json()
    assert {name: body[name] for name in problems} == problems


def test_the_schema_documents_it(anon):
    operation = anon.get("/api/v1/schema/?format=json").json()["paths"][URL]["get"]
    assert operation["summary"] == "Rules in force on a day"
    assert {p["name"] for p in operation["parameters"]} == {"date", "list"}
    assert set(operation["responses"]) == {"200", "400"}
