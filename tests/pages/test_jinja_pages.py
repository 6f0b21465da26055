"""The standings are rendered whole by Jinja2 (``ladder/jinja2/``) on twins of Django's base
page and of two of its includes, which other pages keep rendering with Django's engine: each
twin writes what its Django template writes, byte for byte, whatever the language, the
freshness of the ratings, the page and the query string."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from datetime import timezone as tz

import pytest
from django.core.paginator import Paginator
from django.template import engines
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import resolve, reverse
from django.utils import timezone, translation

from ladder.templatetags.ladder_pages import day_time, long_day, month_name
from ladder.web import views
from ladder.web.views import _level_badge, list_choices
from ratings.runs.status import Freshness
from tests.factories import PlayerFactory

LANGUAGES = ["en", "de", "fr"]
FRESHNESS = [
    Freshness(rated_up_to=None, pending=0, failed_run=None),
    Freshness(rated_up_to=datetime(2026, 3, 2, 14, 5, tzinfo=UTC), pending=0, failed_run=None),
    Freshness(rated_up_to=datetime(2026, 3, 2, 23, 59, tzinfo=UTC), pending=2, failed_run=None),
    Freshness(rated_up_to=None, pending=1, failed_run=None),
    Freshness(rated_up_to=None, pending=0, failed_run=7),
]


def _request(path: str, query: str = ""):
    request = RequestFactory().get(path, QUERY_STRING=query)
    request.resolver_match = resolve(path)
    return request


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "url_name", ["ladder:standings", "ladder:periods", "ladder:statistics", "ladder:rules"]
)
def test_the_jinja2_base_page_writes_what_djangos_writes(language, url_name, settings):
    settings.LADDER_CLUB_NAME = "O'Brien & <Sons> Chess"
    request = _request(reverse(url_name), "q=a%26b&page=2&x=%3Cy%3E")
    for freshness in FRESHNESS:
        with translation.override(language):
            django = render_to_string("base.html", {"freshness": freshness}, request)
            jinja = views.jinja_page(request, "ladder/base.html", {"freshness": freshness})
        assert jinja.content.decode() == django


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("query", ["", "page=3&list=rapid", "upage=2&q=%3Cb%3E%27x%27&q=y"])
@pytest.mark.parametrize("label", ["", "Rated players pages", "<b>O'Brien's</b> pages"])
def test_the_jinja2_pagination_writes_what_djangos_writes(language, query, label):
    request = _request("/", query)
    for count in [0, 10, 11, 35]:  # no page, one, two, four
        paginator = Paginator(range(count), 10)
        for number in range(1, paginator.num_pages + 1):
            for param in ["page", "upage", "rpage", ""]:
                context = {"page": paginator.page(number), "param": param, "label": label}
                with translation.override(language):
                    django = render_to_string("ladder/_pagination.html", context, request)
                    jinja = engines["jinja2"].get_template("ladder/_pagination.html")
                    assert jinja.render(context, request) == django


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kept", [["standard"], ["standard", "rapid", "blitz"]])
@pytest.mark.parametrize("query", ["", "list=rapid&page=3&upage=2&rpage=4", "q=%3Cb%3E&x=1"])
def test_the_jinja2_list_selector_writes_what_djangos_writes(language, kept, query, settings):
    settings.LADDER_LISTS = kept
    request = _request("/", query)
    for current in kept:
        with translation.override(language):
            context = {"list_choices": list_choices(current)}
            django = render_to_string("ladder/_list_selector.html", context, request)
            jinja = engines["jinja2"].get_template("ladder/_list_selector.html")
            assert jinja.render(context, request) == django


@pytest.mark.django_db
def test_the_jinja2_base_page_writes_what_djangos_writes_without_translations(settings):
    settings.USE_I18N = False
    request = _request(reverse("ladder:standings"))
    freshness = FRESHNESS[2]
    django = render_to_string("base.html", {"freshness": freshness}, request)
    jinja = views.jinja_page(request, "ladder/base.html", {"freshness": freshness})
    assert jinja.content.decode() == django
    assert "Results entered since 2 Mar 2026, 23:59 are still being rated" in django


@pytest.mark.django_db
def test_the_standings_badges_and_days_are_written_in_each_requests_language(client):
    # The badges and the days are kept once written, by their language: a page in one
    # language after another's shows its own.
    PlayerFactory(name="Strong", entry_rating=2460)
    PlayerFactory(name="Titled", entry_rating=2300, title="FM")
    pages = {
        language: client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        for language in ["en", "de", "en", "fr"]
    }
    with translation.override("de"):
        german_badge = _level_badge("IM level", False, "de")
        german_day = long_day(timezone.localdate())
    assert "IM-Niveau" in german_badge
    assert german_badge in pages["de"]
    assert german_badge not in pages["en"]
    assert f"Stand {german_day}" in pages["de"]
    assert "FIDE-Titel" in pages["de"]
    assert "FIDE-Titel" not in pages["en"]
    assert "As of " in pages["en"]
    assert "Stand " not in pages["en"]


def test_a_moment_is_written_in_its_own_time_zone_and_a_day_in_the_pages_language():
    moment = datetime(2026, 3, 2, 23, 30, tzinfo=UTC)
    east = moment.astimezone(tz(timedelta(hours=2)))  # the same moment, one key were it alone
    assert moment == east
    assert day_time(moment) == "2 Mar 2026, 23:30"
    assert day_time(east) == "3 Mar 2026, 01:30"
    with translation.override("de"):
        assert month_name("2026-03") == "März 2026"
        assert long_day(moment.date()) == "2. März 2026"
    assert month_name("2026-03") == "March 2026"
