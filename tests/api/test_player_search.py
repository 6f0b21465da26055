"""One name search at every door: the API's ?search=, the standings page, "compare with…",
the admin's autocomplete and round entry forgive case, accents, word order, transliteration
and typos, in a bounded number of queries."""

from __future__ import annotations

import html
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

NAMES = ["Carlsen, Magnus", "Nakamura, Hikaru", "Иванчук, Василий", "Müller, Thomas",
         "Giri, Anish", "Gen Player", "Carlsson, Anna", "Busni, Ola"]  # fmt: skip

# (what a person types, the player meant)
TYPED = [
    ("CARLSEN", "Carlsen, Magnus"),  # case
    ("muller thomas", "Müller, Thomas"),  # no accent, no comma
    ("Magnus Carlsen", "Carlsen, Magnus"),  # words turned round
    ("Ivanchuk", "Иванчук, Василий"),  # transliterated
    ("Carlsem, Magnus", "Carlsen, Magnus"),  # a typo
    ("Nakamura Hikaur", "Nakamura, Hikaru"),  # two letters swapped
    ("Bsni, Ola", "Busni, Ola"),  # a letter dropped from a short name: few trigrams left
    ("Karlsen Magnus", "Carlsen, Magnus"),  # sounds the same
    ("G\u0435n Player", "Gen Player"),  # a look-alike letter
]


@pytest.fixture
def players():
    made = {name: PlayerFactory(name=name) for name in NAMES}
    PlayerFactory.create_batch(20)  # "Player 0001", ...: names a search must not drown in
    return made


@pytest.fixture
def boss(db):
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.mark.parametrize(("typed", "meant"), TYPED)
def test_the_api_search_forgives(players, typed, meant, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):  # 3 more when a typo is found at the lower threshold
        body = APIClient().get("/api/v1/players/", {"search": typed}).json()
    assert meant in [row["name"] for row in body["results"]]
    assert "Player 0003" not in [row["name"] for row in body["results"]]


def test_the_api_search_by_fide_id_and_nothing_close(players):
    PlayerFactory(name="Someone Else", fide_id=1503014)
    body = APIClient().get("/api/v1/players/", {"search": "1503014"}).json()
    assert [row["name"] for row in body["results"]] == ["Someone Else"]
    body = APIClient().get("/api/v1/players/", {"search": "Zebedee Quux"}).json()
    assert body["results"] == []


@pytest.mark.parametrize(("typed", "meant"), TYPED)
def test_the_standings_page_search_forgives(client, players, typed, meant):
    page = html.unescape(client.get("/", {"q": typed, "inactive": "1"}).content.decode())
    assert meant in page


def test_compare_with_offers_the_players_meant(client, players):
    hero = players["Giri, Anish"]
    response = client.get(f"/players/{hero.pk}/vs/", {"name": "Carlsem Magnus"})
    assert "Carlsen, Magnus" in html.unescape(response.content.decode())
    response = client.get(f"/players/{hero.pk}/vs/", {"name": "Magnus Carlsen"})
    assert response.status_code == 302  # found: the words in another order
    assert response.url == f"/players/{hero.pk}/vs/{players['Carlsen, Magnus'].pk}/"


@pytest.mark.parametrize(("typed", "meant"), TYPED)
def test_the_admin_autocomplete_forgives(client, boss, players, typed, meant,
                                         django_assert_max_num_queries):  # fmt: skip
    client.force_login(boss)
    query = {"app_label": "ladder", "model_name": "game", "field_name": "white", "term": typed}
    with django_assert_max_num_queries(12):
        body = client.get("/admin/autocomplete/", query).json()
    assert meant in [row["text"] for row in body["results"]]


def test_round_entry_finds_the_words_and_suggests_for_typos(client, boss, players):
    from tests.admin.test_admin_rounds import post_round
    from tests.factories import PeriodFactory

    PeriodFactory(label="2026-03", start=date(2026, 3, 1), end=date(2026, 3, 31))
    client.force_login(boss)
    paste = "Magnus Carlsen - Ivanchuk Vasiliy 1-0\nMuller Thomas - Giri Anish 0-1"
    content = html.unescape(post_round(client, paste=paste).content.decode())
    assert content.count(">OK<") == 2
    content = html.unescape(post_round(client, paste="Carlsem Magnus - Giri Anish 1-0")
                            .content.decode())  # fmt: skip
    assert "No player is named 'Carlsem Magnus'. Did you mean 'Carlsen, Magnus'" in content


def test_a_fide_id_filter_holding_a_percent_sign_is_a_400_naming_it(db):
    answer = APIClient().get("/api/v1/players/", {"fide_id": "ô%", "rating_max": "Jf"})

    assert answer.status_code == 400
    assert "ô%" in answer.json()["fide_id"][0]
