"""Players: search, filters, the derived state and K with its reason, the rating history."""

from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.messages import get_messages

from ladder.records import Player, Title
from ladder.writes import actions
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db

URL = "/admin/ladder/player/"

# What the form posts for the rapid and blitz lists when they are left as shown (no rating).
OTHER_LISTS = {"rapid_entry_rated_games": 0, "blitz_entry_rated_games": 0}


def names(response) -> list[str]:
    return [player.name for player in response.context["cl"].result_list]


@pytest.fixture
def players(db):
    PlayerFactory(name="Grace Hopper", fide_id=4100, entry_rating=2450, birth_year=1970)
    PlayerFactory(name="Ada Young", fide_id=4200, entry_rating=1500, birth_year=2011)
    UnratedPlayerFactory(name="Newcomer Nia", birth_year=1990)
    old = PlayerFactory(name="Sleepy Sam", entry_rating=2010)
    Player.objects.filter(pk=old.pk).update(last_rated_on=date(2020, 5, 31))


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "hop"}, ["Grace Hopper"]),
        ({"q": "4200"}, ["Ada Young"]),
        ({"rated": "yes"}, ["Ada Young", "Grace Hopper", "Sleepy Sam"]),
        ({"rated": "no"}, ["Newcomer Nia"]),
        ({"inactive": "yes"}, ["Sleepy Sam"]),
        ({"inactive": "no"}, ["Ada Young", "Grace Hopper", "Newcomer Nia"]),
        ({"junior": "yes"}, ["Ada Young"]),
        ({"junior": "no"}, ["Grace Hopper", "Newcomer Nia", "Sleepy Sam"]),
        ({"level": "2400"}, ["Grace Hopper"]),
        ({"level": "2500"}, []),
    ],
)
def test_search_and_filters(admin_client, players, params, expected):
    response = admin_client.get(URL, params)
    assert response.status_code == HTTPStatus.OK
    assert names(response) == expected


@pytest.mark.parametrize("term", ["Gra\x00ce", "²", "99999999999999999999999"])
def test_player_autocomplete_survives_odd_search_text(admin_client, players, term):
    # The game form's white/black autocomplete searches players; PostgreSQL refuses a NUL.
    response = admin_client.get(
        "/admin/autocomplete/",
        {"term": term, "app_label": "ladder", "model_name": "game", "field_name": "white"},
    )
    assert response.status_code == HTTPStatus.OK
    expected = ["Grace Hopper (4100)"] if term == "Gra\x00ce" else []
    assert [row["text"] for row in response.json()["results"]] == expected


def test_change_page_shows_derived_state_and_k_with_reason(admin_client, players):
    ada = Player.objects.get(name="Ada Young")
    content = admin_client.get(f"{URL}{ada.pk}/change/").content.decode()
    assert "40: junior, born 2011, never 2300+" in content
    nia = Player.objects.get(name="Newcomer Nia")
    assert "none while unrated" in admin_client.get(f"{URL}{nia.pk}/change/").content.decode()
    grace = Player.objects.get(name="Grace Hopper")
    content = admin_client.get(f"{URL}{grace.pk}/change/").content.decode()
    assert "10: published 2400+ (peak 2450), for good" in content
    assert "IM level" in content


def test_derived_fields_are_not_editable(admin_client, players, committed):
    ada = Player.objects.get(name="Ada Young")
    form = admin_client.get(f"{URL}{ada.pk}/change/").context["adminform"].form
    assert "rating" not in form.fields
    assert "rated_games" not in form.fields
    assert "entry_rating" in form.fields


def test_rating_history_inline_newest_first(admin_client, club, march, april, make_games):
    alice, bob = club["Alice Brown"], club["Bob Green"]
    make_games(1, white=alice, black=bob, result="1-0")
    make_games(1, white=alice, black=bob, result="1-0", date=date(2026, 4, 5))
    response = admin_client.get(f"{URL}{alice.pk}/change/")
    inline = response.context["inline_admin_formsets"][0]
    periods = [form.original.period.label for form in inline]
    assert periods == ["2026-04", "2026-03"]
    content = response.content.decode()
    assert "Rating history (newest first)" in content
    assert content.index("2026-04") < content.index("2026-03")


def test_changing_entry_data_says_what_the_recompute_changed(
    admin_client, club, march, make_games, committed
):
    alice = club["Alice Brown"]
    make_games(1, white=alice, black=club["Bob Green"], result="1-0")
    data = {
        "name": alice.name,
        "fide_id": alice.fide_id,
        "birth_year": alice.birth_year,
        "entry_rating": 2000,
        "entry_rated_games": 50,
        **OTHER_LISTS,
        "rating_changes-TOTAL_FORMS": "1",
        "rating_changes-INITIAL_FORMS": "1",
        "rating_changes-MIN_NUM_FORMS": "0",
        "rating_changes-MAX_NUM_FORMS": "0",
    }
    with committed():
        response = admin_client.post(f"{URL}{alice.pk}/change/", data)
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "2026-03 recomputed: 2 players' ratings changed." in messages
    alice.refresh_from_db()
    assert alice.rating == 2005  # K 20, D 200: 20 x (1 - 0.76) = 4.8


def test_adding_a_player(admin_client):
    data = {
        "name": "Fresh Face",
        "entry_rated_games": 0,
        **OTHER_LISTS,
        "rating_changes-TOTAL_FORMS": "0",
        "rating_changes-INITIAL_FORMS": "0",
        "rating_changes-MIN_NUM_FORMS": "0",
        "rating_changes-MAX_NUM_FORMS": "0",
    }
    response = admin_client.post(f"{URL}add/", data)
    assert response.status_code == HTTPStatus.FOUND
    player = Player.objects.get(name="Fresh Face")
    assert player.rating is None
    assert player.history.get().history_user.username == "clubadmin"


def test_entry_peak_below_entry_rating_is_refused(admin_client):
    data = {
        "name": "Odd Peak",
        "entry_rating": 1800,
        "entry_peak_rating": 1700,
        "entry_rated_games": 10,
        **OTHER_LISTS,
        "rating_changes-TOTAL_FORMS": "0",
        "rating_changes-INITIAL_FORMS": "0",
        "rating_changes-MIN_NUM_FORMS": "0",
        "rating_changes-MAX_NUM_FORMS": "0",
    }
    response = admin_client.post(f"{URL}add/", data)
    assert "The peak rating cannot be lower than the entry rating." in response.content.decode()
    assert not Player.objects.filter(name="Odd Peak").exists()


def test_titles_read_as_fide_writes_them(admin_client):
    assert [label for _, label in Title.choices] == [
        "GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM",
    ]  # fmt: skip
    form = admin_client.get("/admin/ladder/player/add/").content.decode()
    assert '<option value="WGM">WGM</option>' in form
    assert "Wgm" not in form


def test_player_autocomplete_offers_no_merged_record(admin_client, players):
    # A game for a merged record is refused; the autocomplete does not offer one.
    grace = Player.objects.get(name="Grace Hopper")
    twin = Player.objects.create(name="Grace Hopper-Twin")
    actions.merge_players(keep=grace.pk, other=twin.pk, reason="One person")
    response = admin_client.get(
        "/admin/autocomplete/",
        {"term": "Grace", "app_label": "ladder", "model_name": "game", "field_name": "white"},
    )
    assert [row["text"] for row in response.json()["results"]] == ["Grace Hopper (4100)"]
    listed = admin_client.get(URL, {"q": "Grace"})  # the players' own list still shows both
    assert names(listed) == ["Grace Hopper", "Grace Hopper-Twin"]
