"""The head-to-head page, its links from the player page, and the "compare with…" search."""

from datetime import date
from http import HTTPStatus

import pytest
from django.urls import reverse

from ladder.records import Game, Result
from tests.browser.support import ARTIFACTS
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory
from tests.pages.test_pages import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def rivals(committed):
    """Anna (2000) beats Boris (1800) in March and loses to him in April; Boris draws with
    the unrated Cleo; Dora has played nobody."""
    with committed():
        anna = PlayerFactory(name="Anna Alekhina", fide_id=4100001, entry_rating=2000)
        boris = PlayerFactory(name="Boris Botvin", fide_id=4100002, entry_rating=1800)
        cleo = UnratedPlayerFactory(name="Cleo Carls")
        dora = PlayerFactory(name="Dora Dane", entry_rating=1700)
        GameFactory(
            white=anna, black=boris, result=Result.WHITE_WIN, date=date(2026, 3, 10),
            event="Club Cup", round="3",
        )  # fmt: skip
        GameFactory(white=boris, black=cleo, result=Result.DRAW, date=date(2026, 3, 12))
        GameFactory(
            white=boris, black=anna, result=Result.WHITE_WIN, date=date(2026, 4, 5),
            event="Spring Open", round="1",
        )  # fmt: skip
    return anna, boris, cleo, dora


def url(first, second) -> str:
    return reverse("ladder:head-to-head", args=[first.pk, second.pk])


def test_the_score_games_and_each_sides_numbers(client, rivals):
    anna, boris, _, _ = rivals
    response = client.get(url(anna, boris))
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "1–1 in 2 games: Anna Alekhina won 1, drew 0 and lost 1." in text
    # March: 2000 v 1800, D 200, PD 0.76; K 20: +4.80 for Anna, -4.80 for Boris.
    assert "10 Mar 2026 · Club Cup · round 3 · March 2026" in text
    assert "Anna Alekhina Score 1 Rating used 2000 Expected 0.76 Effect +4.80 K 20 × +0.24" in text
    assert "Boris Botvin Score 0 Rating used 1800 Expected 0.24 Effect -4.80 K 20 × -0.24" in text
    # April from the list that opened it: 2005 v 1795 (D 210, PD 0.77), Anna lost.
    assert "5 Apr 2026 · Spring Open · round 1 · April 2026" in text
    assert "Anna Alekhina Score 0 Rating used 2005 Expected 0.77 Effect -15.40" in text
    assert "Boris Botvin Score 1 Rating used 1795 Expected 0.23 Effect +15.40" in text
    # The list's totals: score, ΣPD and Σ K × dR of each.
    assert "Anna Alekhina 1 1.53 -10.60" in text
    assert "Boris Botvin 1 0.47 +10.60" in text


def test_seen_from_the_other_side(client, rivals):
    anna, boris, _, _ = rivals
    text = text_of(client.get(url(boris, anna)))
    assert "1–1 in 2 games: Boris Botvin won 1, drew 0 and lost 1." in text
    assert "Boris Botvin 1 0.47 +10.60" in text


def test_a_game_not_rated_for_one_side_says_why(client, rivals):
    _, boris, cleo, _ = rivals
    text = text_of(client.get(url(boris, cleo)))
    assert "½–½ in 1 game: Boris Botvin won 0, drew 1 and lost 0." in text
    assert "Opponent unrated: not rated for you" in text
    assert "Counts toward a first rating" in text
    assert "Expected" not in text.split("Boris Botvin Score ½")[1].split("Cleo Carls Score")[0]


def test_an_unplayed_game_is_listed_but_not_scored(client, rivals, committed):
    anna, boris, _, _ = rivals
    with committed():
        GameFactory(white=anna, black=boris, result=Result.WHITE_FORFEIT_WIN, date=date(2026, 4, 9))
    text = text_of(client.get(url(anna, boris)))
    assert "1–1 in 2 games: Anna Alekhina won 1, drew 0 and lost 1 (3 recorded" in text
    assert "Unplayed: not rated" in text


def test_players_who_never_met(client, rivals):
    anna, _, _, dora = rivals
    response = client.get(url(anna, dora))
    assert response.status_code == HTTPStatus.OK
    assert "Anna Alekhina and Dora Dane have never played each other" in text_of(response)


def test_the_same_player_twice_or_an_unknown_one_is_a_404(client, rivals):
    anna, _, _, _ = rivals
    response = client.get(url(anna, anna))
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert "Anna Alekhina cannot be compared with themselves" in text_of(response)
    missing = reverse("ladder:head-to-head", args=[anna.pk, 999_999])
    assert client.get(missing).status_code == HTTPStatus.NOT_FOUND
    missing = reverse("ladder:head-to-head", args=[999_999, anna.pk])
    assert client.get(missing).status_code == HTTPStatus.NOT_FOUND


def test_every_game_card_links_to_the_head_to_head(client, rivals):
    anna, boris, _, _ = rivals
    html = client.get(anna.get_absolute_url()).content.decode()
    link = f'href="{url(anna, boris)}" data-testid="vs-link">vs Boris Botvin</a>'
    assert html.count(link) == Game.objects.for_player(anna).count() == 2
    assert f'action="{reverse("ladder:compare", args=[anna.pk])}"' in html


def test_an_opponents_links_are_escaped_and_in_the_readers_language(client, committed):
    with committed():
        anna = PlayerFactory(name="Anna Alekhina", entry_rating=2000)
        odd = PlayerFactory(name='Ola <b>"Bold"</b> & Co', entry_rating=1900)
        GameFactory(white=anna, black=odd, result=Result.DRAW, date=date(2026, 3, 10))
        GameFactory(white=odd, black=anna, result=Result.DRAW, date=date(2026, 4, 11))
    escaped = "Ola &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co"

    html = client.get(anna.get_absolute_url()).content.decode()
    assert html.count(f'<a href="{odd.get_absolute_url()}">{escaped}</a>') == 2
    assert html.count(f'href="{url(anna, odd)}" data-testid="vs-link">vs {escaped}</a>') == 2
    assert "<b>" not in html.split("<main", 1)[1]
    german = client.get(anna.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert german.count(f'data-testid="vs-link">gegen {escaped}</a>') == 2


@pytest.mark.parametrize("typed", ["Boris Botvin", "  boris   BOTVIN ", "4100002"])
def test_compare_finds_a_player_by_name_or_fide_id(client, rivals, typed):
    anna, boris, _, _ = rivals
    response = client.get(reverse("ladder:compare", args=[anna.pk]), {"name": typed})
    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"] == url(anna, boris)


def test_compare_says_why_a_name_finds_nobody_and_offers_close_names(client, rivals):
    anna, boris, _, _ = rivals
    response = client.get(reverse("ladder:compare", args=[anna.pk]), {"name": "Boris Botwin"})
    assert response.status_code == HTTPStatus.OK
    text = text_of(response)
    assert "No player is named 'Boris Botwin'. Did you mean 'Boris Botvin'?" in text
    assert f'href="{url(anna, boris)}"' in response.content.decode()


def test_compare_asks_which_of_two_namesakes(client, rivals):
    anna, _, _, _ = rivals
    one = PlayerFactory(name="Sam Same", fide_id=4200001)
    two = PlayerFactory(name="Sam Same", fide_id=4200002)
    response = client.get(reverse("ladder:compare", args=[anna.pk]), {"name": "sam same"})
    text = text_of(response)
    assert "Several players are named 'sam same'; enter the FIDE id instead" in text
    html = response.content.decode()
    assert f'href="{url(anna, one)}"' in html
    assert f'href="{url(anna, two)}"' in html


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "A player (FIDE id or name) is required."),
        ("Anna Alekhina", "That is Anna Alekhina: choose another player to compare with."),
        ("987654321", "No player has the FIDE id 987654321."),
        ("x" * 5000, "No player is named 'xxxx"),
    ],
)
def test_compare_answers_every_other_input_on_the_page(client, rivals, typed, message):
    anna, _, _, _ = rivals
    response = client.get(reverse("ladder:compare", args=[anna.pk]), {"name": typed})
    assert response.status_code == HTTPStatus.OK
    assert message in text_of(response)


@pytest.mark.parametrize("games", [2, 40])
def test_a_constant_number_of_queries(
    client, committed, rivals, django_assert_max_num_queries, games
):
    anna, boris, _, _ = rivals
    with committed():
        for day in range(games):
            may = date(2026, 5, 1 + day % 28)
            GameFactory(white=anna, black=boris, result=Result.DRAW, date=may, round=str(day))
    with django_assert_max_num_queries(5):  # two players, the games, their rows, freshness
        response = client.get(url(anna, boris))
    assert response.status_code == HTTPStatus.OK
    with django_assert_max_num_queries(3):  # the player, every player's name, freshness
        response = client.get(reverse("ladder:compare", args=[anna.pk]), {"name": "Boris Botwin"})
    assert response.status_code == HTTPStatus.OK


# --- in Chromium, at a phone's width and a laptop's ------------------------------------------

# Every element of the page that lies, even in part, outside the viewport's width (the skip
# link and the visually hidden texts are off-screen on purpose).
OUTSIDE = """() => [...document.querySelectorAll("body *")]
  .filter(e => !e.closest(".skip-link, .visually-hidden, .sr-narrow"))
  .filter(e => { const r = e.getBoundingClientRect();
                 return r.width > 0 && (r.left < -0.5 || r.right > window.innerWidth + 0.5); })
  .map(e => e.outerHTML.slice(0, 120))"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [390, 1280])
def test_nothing_overflows_sideways(browser, live_server, rivals, committed, width):
    anna, boris, _, _ = rivals
    with committed():
        long = PlayerFactory(
            name="Maximiliana Wolkenstein-Rodenegg von Trostburg", entry_rating=1900
        )
        for day, result in ((14, Result.DRAW), (21, Result.BLACK_WIN)):
            GameFactory(white=anna, black=long, result=result, date=date(2026, 3, day),
                        event="Vereinsmeisterschaft der Schachfreunde Oberammergau",
                        round="12")  # fmt: skip
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 500 else 900}, is_mobile=width < 500
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + url(anna, long))
        assert page.get_by_test_id("h2h-score").inner_text().startswith("½–1½")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.evaluate(OUTSIDE) == []
        cards = page.locator("li.meeting")
        assert cards.count() == 2
        first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
        if width < 500:  # one card under the other, the two sides of each side by side
            assert second["y"] >= first["y"] + first["height"]
            sides = cards.nth(0).locator(".side")
            assert sides.nth(0).bounding_box()["y"] == sides.nth(1).bounding_box()["y"]
        else:  # cards side by side
            assert second["y"] == first["y"]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"head-to-head-{width}.png"), full_page=True)
        # The compare form sits on the page too, inside the screen.
        page.goto(live_server.url + url(anna, boris))
        assert page.evaluate(OUTSIDE) == []
    finally:
        context.close()
