"""In the club's language: pages and the API answer in German or French when asked (the
switcher's cookie, else ``Accept-Language``), in English otherwise; the read cache keeps each
language apart; the footer's switcher works without a script, at 390 px and 1280 px."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.test import Client
from rest_framework.test import APIClient

from ladder.records import Game, Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests import caches
from tests.browser.support import ARTIFACTS
from tests.factories import GameFactory, PlayerFactory

LANGUAGE_COOKIE = settings.LANGUAGE_COOKIE_NAME


@pytest.fixture
def editor(db) -> APIClient:
    user = User.objects.create_user("editor")
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="ladder", codename__in=["add_game", "add_player"]
        )
    )
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def two_players(db):
    anna = PlayerFactory(name="Anna Adler", entry_rating=1900)
    boris = PlayerFactory(name="Boris Brandt", entry_rating=1800)
    GameFactory(white=anna, black=boris, date=date(2026, 3, 2))
    return anna, boris


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de", ['<html lang="de">', "Rangliste", "Sprache", "Zum Inhalt springen"]),
        ("fr", ['<html lang="fr">', "Classement", "Langue", "Aller au contenu"]),
        ("en", ['<html lang="en">', "Standings", "Language", "Skip to content"]),
    ],
)
def test_a_page_answers_in_the_language_asked_for(client, two_players, language, words):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")

    assert response.status_code == HTTPStatus.OK
    assert response["Content-Language"] == language
    assert "Accept-Language" in response["Vary"]
    text = response.content.decode()
    for word in words:
        assert word in text


def test_without_accept_language_a_page_is_english(client, two_players):
    text = client.get("/").content.decode()

    assert '<html lang="en">' in text
    assert "Standings" in text


def test_dates_on_a_page_follow_the_language(client, two_players):
    anna, _ = two_players
    url = "/periods/2026-03/"

    assert "1 Mar 2026" in client.get(url).content.decode()
    assert "1. März 2026" in client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "1 mars 2026" in client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("de", "Ein Spieler kann nicht gegen sich selbst spielen."),
        ("fr", "Un joueur ne peut pas jouer contre lui-même."),
        ("en", "A player cannot play themselves."),
    ],
)
def test_the_api_gives_field_errors_in_the_language_asked_for(
    editor, two_players, language, message
):
    anna, _ = two_players
    payload = {"date": "2026-03-20", "white": anna.pk, "black": anna.pk, "result": "1-0"}

    response = editor.post("/api/v1/games/", payload, format="json", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {"black": [message]}
    assert response["Content-Language"] == language
    assert Game.objects.count() == 1


def test_the_api_translates_the_frameworks_own_messages_too(editor, db):
    response = editor.post("/api/v1/games/", {}, format="json", HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json()["date"] == ["Dieses Feld ist zwingend erforderlich."]


def test_the_switcher_sets_the_language_and_goes_back(client, two_players):
    page = client.get("/periods/").content.decode()
    assert 'action="/i18n/setlang/"' in page
    assert 'name="next" value="/periods/"' in page

    response = client.post("/i18n/setlang/", {"language": "fr", "next": "/periods/"})

    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"] == "/periods/"
    assert response.cookies[LANGUAGE_COOKIE].value == "fr"
    # The cookie wins over the browser's Accept-Language.
    again = client.get("/periods/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="fr">' in again
    assert "Périodes de classement" in again


def test_the_switcher_refuses_to_send_a_visitor_elsewhere(client, db):
    response = client.post("/i18n/setlang/", {"language": "de", "next": "https://evil.example/"})

    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"] == "/"


@pytest.mark.django_db(transaction=True)
def test_the_read_cache_keeps_each_language_apart(settings):
    caches.use(settings, caches.DATABASE)
    PlayerFactory(name="Anna Adler", entry_rating=1900)
    client = Client()

    english = client.get("/")
    german = client.get("/", HTTP_ACCEPT_LANGUAGE="de")
    german_again = client.get("/", HTTP_ACCEPT_LANGUAGE="de")
    client.cookies[LANGUAGE_COOKIE] = "fr"
    french = client.get("/", HTTP_ACCEPT_LANGUAGE="de")

    assert (english["X-Read-Cache"], german["X-Read-Cache"]) == ("miss", "miss")
    assert german_again["X-Read-Cache"] == "hit"
    assert "Rangliste" in german_again.content.decode()
    assert german_again["Content-Language"] == "de"
    assert "Standings" in english.content.decode()
    assert french["X-Read-Cache"] == "miss"
    assert "Classement" in french.content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [390, 1280])
def test_switching_the_language_in_chromium(browser, live_server, committed, width):
    with committed():
        anna = PlayerFactory(name="Anna Adler", entry_rating=1900)
        boris = PlayerFactory(name="Boris Brandt", entry_rating=1800)
        GameFactory(white=anna, black=boris, date=date(2026, 3, 2))
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900}, is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_server.url + "/periods/")
    assert page.locator("html").get_attribute("lang") == "en"

    switcher = page.locator("form.language-switcher")
    for part in ("select", "button"):
        box = switcher.locator(part).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= width
        assert box["height"] >= 44  # a finger's target
    switcher.locator("select").select_option("de")
    with page.expect_navigation():
        switcher.locator("button").click()

    assert page.url == live_server.url + "/periods/"
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.locator("h1").inner_text() == "Wertungsperioden"
    assert page.locator("form.language-switcher select").input_value() == "de"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"language-de-{width}.png"), full_page=True)

    for url in ("/", f"/players/{anna.pk}/", "/calculator/", "/statistics/"):
        page.goto(live_server.url + url)  # the cookie keeps German on every page
        assert page.locator("html").get_attribute("lang") == "de", url
        assert page.evaluate("document.documentElement.scrollWidth") <= width, url

    page.locator("form.language-switcher select").select_option("fr")
    with page.expect_navigation():
        page.locator("form.language-switcher button").click()
    assert page.url == live_server.url + "/statistics/"  # back on the page it was sent from
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.locator("h1").inner_text().startswith("Statistiques")
    context.close()


# --- the rules' sentences, the charts, merges: translated at the doors ----------------------


def test_the_rules_page_in_german_shows_german_rule_lines(client, db):
    response = client.get("/rules/?date=2026-04-15&list=standard", HTTP_ACCEPT_LANGUAGE="de")

    text = response.content.decode()
    assert response.status_code == HTTPStatus.OK
    assert "K-Faktor" in text  # what the rule is about
    assert "Die 700-Regel" in text
    assert "Untergrenze 1400: Eine Wertung darunter wird nicht veröffentlicht" in text
    assert '<span class="rule-since">1. Okt. 2025</span>' in text  # a day, written its way
    assert "The 700 rule" not in text


def test_the_rules_page_refuses_a_bad_date_in_french(client, db):
    response = client.get("/rules/?date=yesterday", HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "« yesterday » n’est pas une date ; écrivez AAAA-MM-JJ" in response.content.decode()


def test_the_rules_api_keeps_its_field_names_and_translates_its_sentences(db):
    answer = APIClient().get(
        "/api/v1/rules/?date=2005-01-01&list=standard", HTTP_ACCEPT_LANGUAGE="fr"
    )

    assert answer.status_code == HTTPStatus.OK
    assert answer["Content-Language"] == "fr"
    rules = {rule["name"]: rule for rule in answer.json()["rules"]}
    assert rules["k"]["about"] == "Coefficient K"
    assert rules["cap"]["text"] == (
        "une différence de classement au-delà de 350 compte pour 350 (règle des 350 points)"
    )
    assert rules["k"]["since"] == "avant le 1 juil. 2009"
    assert answer.json()["since"] is None  # the dates stay dates


def test_the_rules_api_in_english_is_as_before(db):
    rules = APIClient().get("/api/v1/rules/?date=2005-01-01&list=standard").json()["rules"]

    assert rules[0]["about"] == "K factor"
    assert rules[0]["since"] == "before 1 Jul 2009"


@pytest.fixture
def rated_pair(db, committed):
    anna = PlayerFactory(name="Anna Adler", entry_rating=1900)
    boris = PlayerFactory(name="Boris Brandt", entry_rating=1800)
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 3, 2), white=anna, black=boris, result="1-0")]
        )
    return anna, boris


def test_a_k_reason_on_the_player_page_follows_the_language(client, rated_pair):
    anna, _ = rated_pair

    german = client.get(anna.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    english = client.get(anna.get_absolute_url()).content.decode()

    assert "gewertete Partien, nie 2400+" in german  # the K's reason
    assert "rated games, never 2400+" not in german
    assert "rated games, never 2400+" in english


def test_the_charts_summaries_follow_the_language(client, rated_pair):
    anna, _ = rated_pair

    player = client.get(anna.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    statistics = client.get("/statistics/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    assert "Wertung von 1900 am 1. März 2026" in player
    assert "2 joueurs classés, de " in statistics  # the histogram's summary
    assert "rated players" not in statistics


@pytest.fixture
def merger(db) -> APIClient:
    user = User.objects.create_user("merger")
    user.user_permissions.set(Permission.objects.filter(codename="change_player"))
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_merge_refused_by_the_api_is_said_in_french(merger, db):
    ann = PlayerFactory(name="Ann Able", fide_id=101)
    other = PlayerFactory(name="Ann Able", fide_id=202)

    answer = merger.post(
        f"/api/v1/players/{ann.pk}/merge/",
        {"other": other.pk, "reason": "Twice"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="fr",
    )

    assert answer.status_code == HTTPStatus.CONFLICT
    assert answer.json() == {
        "other": [
            "Ann Able et Ann Able ont des identifiants FIDE différents (101 et 202) : la FIDE "
            "les répertorie comme deux personnes."
        ]
    }
    assert Player.objects.get(pk=other.pk).merged_into_id is None


def test_a_look_alike_name_is_refused_in_german(editor, db):
    answer = editor.post(
        "/api/v1/players/", {"name": "G\u0435n Smith"}, format="json", HTTP_ACCEPT_LANGUAGE="de"
    )

    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert (
        "Der Name mischt lateinische Buchstaben mit Buchstaben einer anderen Schrift"
        in (answer.json()["name"][0])
    )
