"""The rows Jinja2 renders into the pages (the standings' rows, a player's game lines) write
what Django's engine wrote: every value escaped and localized as Django writes it, the texts in
the page's language, a name that is HTML shown as text."""

from __future__ import annotations

import re
from datetime import UTC, date
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.template import Context, RequestContext, defaulttags, engines
from django.template.base import render_value_in_context
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from ladder.records import Player
from ladder.web.jinja import escape, querystring, rendering
from tests.factories import GameFactory, PlayerFactory

from .test_pages import text_of

VALUES = st.one_of(
    st.text(),
    st.integers(),
    st.decimals(allow_nan=False, allow_infinity=False),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.booleans(),
    st.dates(),
    st.datetimes(timezones=st.just(UTC)),
    st.text().map(mark_safe),
    st.text().map(Markup),
    st.just(gettext_lazy("inactive")),
)


@pytest.mark.parametrize("language", ["en", "de", "fr"])
@given(value=VALUES)
def test_a_value_is_written_as_djangos_engine_writes_it(language, value):
    with translation.override(language):
        expected = render_value_in_context(value, Context(autoescape=True))
        assert escape(value) == expected
        with rendering():  # the separator found once a render, a decimal's text kept
            assert escape(value) == expected


def test_equal_decimals_are_written_as_they_are_and_in_the_renders_language():
    with translation.override("de"), rendering():
        assert [escape(Decimal(text)) for text in ("0.5", "0.50", "-0", "0")] == [
            "0,5", "0,50", "-0", "0"
        ]  # fmt: skip
    with translation.override("en"), rendering():
        assert escape(Decimal("0.50")) == "0.50"


def test_no_template_makes_markup_as_a_value_that_would_be_escaped_again():
    # Autoescaping is off (ladder/web/jinja.py): a macro's or a block set's text is a plain
    # string, which the finalize would escape as text.
    folder = Path(__file__).resolve().parents[2] / "ladder" / "jinja2"
    templates = sorted(folder.rglob("*.html"))
    assert len(templates) >= 4
    made = re.compile(r"{%-?\s*(macro|call|filter)\b|{%-?\s*set\s+\w+\s*-?%}")
    assert [path.name for path in templates if made.search(path.read_text())] == []


def test_a_template_writes_every_value_escaped_and_a_safe_one_as_it_is():
    template = engines["jinja2"].from_string("{{ text }}|{{ safe }}|{{ text|rules_text }}|{{ 3 }}")
    written = template.render({"text": "O'Brien & <b>", "safe": mark_safe("<i>x</i>")})
    assert written == "O&#x27;Brien &amp; &lt;b&gt;|<i>x</i>|O&#x27;Brien &amp; &lt;b&gt;|3"


def test_a_sentence_keeps_its_markup_and_escapes_its_values_as_blocktranslate_does():
    jinja = engines["jinja2"].from_string(
        '{{ _("Base correction: rated from %(rating)s (the list said unrated): %(reason)s")'
        "|fill(rating=rating, reason=reason) }} · {{ games_text(n) }}"
    )
    django = engines["django"].from_string(
        "{% load i18n %}{% blocktranslate %}Base correction: rated from {{ rating }} (the list "
        "said unrated): {{ reason }}{% endblocktranslate %} · {% blocktranslate count count=n %}"
        "{{ count }} game{% plural %}{{ count }} games{% endblocktranslate %}"
    )
    for language in ["en", "de", "fr"]:
        for n in [1, 2]:
            values = {"rating": 1850, "reason": "<b>Arbiter's</b> & co", "n": n}
            with translation.override(language):
                assert jinja.render(values) == django.render(values)
    with translation.override("de"):
        assert "2 Partien" in jinja.render({**values, "n": 2})


def test_a_dicts_key_is_read_before_its_attributes_as_djangos_engine_reads():
    template = engines["jinja2"].from_string("{{ row.items }}|{{ row.name }}|{{ row.missing }}")
    assert template.render({"row": {"items": 3, "name": "Ann"}}) == "3|Ann|"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "badge"), [("en", "inactive"), ("de", "inaktiv"), ("fr", "inactif")]
)
def test_the_standings_rows_show_a_name_as_text_in_the_pages_language(client, language, badge):
    hostile = PlayerFactory(name="O'Brien <script>alert(1)</script> & Co", federation="IRL")
    PlayerFactory(name="Active Al", entry_rating=1900)
    Player.objects.filter(pk=hostile.pk).update(last_rated_on=date(2020, 1, 31))

    response = client.get(
        reverse("ladder:standings"), {"inactive": "1"}, HTTP_ACCEPT_LANGUAGE=language
    )

    html = response.content.decode()
    assert "<script>alert" not in html
    assert "O&#x27;Brien &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</a>" in html
    assert f'<span class="badge">{badge}</span>' in html
    assert "2 O'Brien <script>alert(1)</script> & Co IRL" in text_of(response)


@pytest.mark.django_db
def test_a_game_line_shows_the_opponents_name_as_text_and_numbers_in_the_pages_language(
    client, committed
):
    with committed():
        hero = PlayerFactory(name="Hero", entry_rating=1850)
        rival = PlayerFactory(name='Rival "R" <b>', entry_rating=1800)
        GameFactory(white=hero, black=rival, result="1/2-1/2", date=date(2026, 3, 2))

    english = client.get(hero.get_absolute_url()).content.decode()
    german = client.get(hero.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()

    assert "Rival &quot;R&quot; &lt;b&gt;</a>" in english
    assert 'Rival "R" <b>' not in english
    # The score and the expected score (1850 against 1800: 0.57), in each language's way.
    assert '<td class="num">0.50</td>' in english
    assert '<td class="num">0.57</td>' in english
    assert '<td class="num">0,50</td>' in german
    assert '<td class="num">0,57</td>' in german


QUERY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
QUERY_VALUE = st.one_of(
    st.none(), st.integers(-5, 1000), QUERY_TEXT, st.lists(QUERY_TEXT, max_size=3)
)


@given(
    params=st.lists(st.tuples(st.sampled_from(["list", "page", "q", "é&="]), QUERY_TEXT)),
    changes=st.dictionaries(st.sampled_from(["list", "page", "upage", "q", "new"]), QUERY_VALUE),
)
def test_a_links_query_string_is_djangos_querystring(params, changes):
    """The links the Jinja2 pages write keep the request's other parameters exactly as
    Django's ``{% querystring %}`` writes them (the Django pages' twins use it)."""
    request = RequestFactory().get("/")
    request.GET = QueryDict(urlencode(params), mutable=False)
    expected = defaulttags.querystring(RequestContext(request), None, **changes)
    assert querystring(request, **changes) == expected
