"""The one write path: the same bad game through every door gets the same sentence, and
nothing is written; the actions lock what they change."""

from __future__ import annotations

import html
from datetime import date
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.exceptions import PeriodClosedError, PlayersInvalid
from ladder.records import GAME_DATE_MESSAGE, Game, PeriodStatus, Player, closed_message
from ladder.writes import actions
from ladder.writes.validation import GameEntry, latest_game_date
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

ROUND_URL = "/admin/ladder/game/enter-round/"


@pytest.fixture
def club():
    """Alice and Bob; March 2026 open with one game; February closed; January has no period."""
    alice = PlayerFactory(name="Alice Brown", fide_id=1001)
    bob = PlayerFactory(name="Bob Green", fide_id=1002)
    feb = PeriodFactory(label="2026-02", start=date(2026, 2, 1), end=date(2026, 2, 28))
    feb.status = PeriodStatus.CLOSED
    feb.save()
    game = GameFactory(date=date(2026, 3, 14), white=alice, black=bob, result="1-0")
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    return {"alice": alice, "bob": bob, "feb": feb, "game": game, "user": user}


# Each door takes (day, white, black) as its users type them and returns every message shown.


def through_admin(client, club, day, white, black, event=""):
    client.force_login(club["user"])
    data = {"date": day, "white": white.pk, "black": black.pk, "result": "1-0", "event": event,
            "round": ""}  # fmt: skip
    return html.unescape(client.post("/admin/ladder/game/add/", data).content.decode())


def through_round_entry(client, club, day, white, black, event=""):
    client.force_login(club["user"])
    data = {
        "date": day, "event": event, "round": "", "paste": f"{white.name} - {black.name} 1-0",
        "rows-TOTAL_FORMS": "1", "rows-INITIAL_FORMS": "0", "rows-MIN_NUM_FORMS": "0",
        "rows-MAX_NUM_FORMS": "1000", "_save": "1",
    }  # fmt: skip
    return html.unescape(client.post(ROUND_URL, data).content.decode())


def through_api(client, club, day, white, black, event=""):
    api = APIClient()
    api.force_authenticate(club["user"])
    data = {"date": day, "white": white.pk, "black": black.pk, "result": "1-0", "event": event}
    return str(api.post("/api/v1/games/", data, format="json").json())


def through_csv(client, club, day, white, black, tmp_path, event=""):
    path = tmp_path / "games.csv"
    path.write_text(
        f"date,white,black,result,event\n{day},{white.fide_id},{black.name},1-0,{event}\n"
    )
    with pytest.raises(CommandError) as error:
        call_command("import_games", str(path), stdout=StringIO())
    return str(error.value)


def through_admin_preview(client, club, day, white, black, event=""):
    client.force_login(club["user"])
    data = {"date": day, "white": white.pk, "black": black.pk, "result": "1-0", "event": event,
            "round": "", "_preview": "Preview"}  # fmt: skip
    return html.unescape(client.post("/admin/ladder/game/add/", data).content.decode())


def through_api_dry_run(client, club, day, white, black, event=""):
    api = APIClient()
    api.force_authenticate(club["user"])
    data = {"date": day, "white": white.pk, "black": black.pk, "result": "1-0", "event": event}
    return str(api.post("/api/v1/games/?dry_run=true", data, format="json").json())


# The previews (ladder.writes.previews) are doors too: the same refusals, and nothing written.
DOORS = [through_admin, through_round_entry, through_api, through_csv, through_admin_preview,
         through_api_dry_run]  # fmt: skip


def cases(club):
    alice, bob, game = club["alice"], club["bob"], club["game"]
    return {
        "self-play": ("2026-03-20", alice, alice, "A player cannot play themselves."),
        "closed period": ("2026-02-10", alice, bob, closed_message(club["feb"])),
        "duplicate": (
            "2026-03-14", alice, bob,
            "This game is already recorded: Alice Brown - Bob Green 1-0 on 2026-03-14 "
            f"(game #{game.pk}).",
        ),
        "before a published list": (
            "2026-01-15", alice, bob,
            "No rating period holds 2026-01-15, and the lists after it are already published; "
            "a game cannot be added before a published list.",
        ),
        "date out of range": ("1800-01-01", alice, bob, GAME_DATE_MESSAGE),
        "date still to come": (
            "2999-12-31", alice, bob,
            f"A game cannot be dated after {latest_game_date().isoformat()} (the end of next "
            "month): 2999-12-31 is still to come.",
        ),
        "control character": (
            "2026-03-20", alice, bob,
            "Contains the control character U+001B; use plain printable text.", "Club\x1b[31mCup",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.__name__)
@pytest.mark.parametrize(
    "case",
    [
        "self-play",
        "closed period",
        "duplicate",
        "before a published list",
        "date out of range",
        "date still to come",
        "control character",
    ],  # fmt: skip
)
def test_every_door_refuses_a_bad_game_with_the_same_sentence(client, club, door, case, tmp_path):
    day, white, black, message, *event = cases(club)[case]
    message = str(message)  # a lazy translation (GAME_DATE_MESSAGE): its English here
    kwargs = {"tmp_path": tmp_path} if door is through_csv else {}
    kwargs["event"] = event[0] if event else ""
    shown = door(client, club, day, white, black, **kwargs)
    assert message in shown
    assert Game.objects.count() == 1  # nothing written


def test_a_correction_racing_a_deletion_finds_the_game_gone(club):
    game = club["game"]
    Game.objects.filter(pk=game.pk).delete()  # someone else deleted it meanwhile
    with pytest.raises(Game.DoesNotExist):
        actions.correct_game(game=game, changes={"result": "0-1"})
    assert not Game.objects.filter(pk=game.pk).exists()  # never written back


def test_the_api_answers_404_to_a_correction_of_a_game_deleted_meanwhile(club):
    api = APIClient()
    api.force_authenticate(club["user"])
    game = club["game"]
    assert api.delete(f"/api/v1/games/{game.pk}/").status_code == 204
    response = api.patch(f"/api/v1/games/{game.pk}/", {"result": "0-1"}, format="json")
    assert response.status_code == 404
    assert not Game.objects.exists()


def test_several_games_are_refused_together_with_each_problem(club):
    alice, bob = club["alice"], club["bob"]
    entries = [
        GameEntry(date=date(2026, 3, 20), white=alice, black=bob, result="1-0", source="Row 1"),
        GameEntry(date=date(2026, 3, 20), white=alice, black=bob, result="0-1", source="Row 2"),
        GameEntry(date=date(2026, 3, 21), white="Nobody", black=bob, result="x", source="Row 3"),
    ]
    with pytest.raises(Exception) as error:  # noqa: PT011 - the message is what matters
        actions.enter_games(games=entries)
    text = "\n".join(error.value.messages)
    assert "Row 2: This game repeats row 1." in text
    assert "Row 3: No player is named 'Nobody'." in text
    assert "Row 3: 'x' is not a result" in text
    assert Game.objects.count() == 1


# --- published means published: entry data behind a closed period ----------------------------


@pytest.fixture
def published(club):
    """Alice has a game in February, which is closed."""
    feb = club["feb"]
    Game.objects.filter(pk=club["game"].pk).update(date=date(2026, 2, 14), period=feb)
    return club


ENTRY_REFUSED = "Alice Brown has standard games in the published list of 2026-02"


def test_an_entry_change_behind_a_published_list_is_refused_by_the_action(published):
    alice = published["alice"]
    alice.entry_rating = 1900
    with pytest.raises(PeriodClosedError) as error:
        actions.save_player(player=alice)
    assert ENTRY_REFUSED in error.value.message_dict["entry_rating"][0]
    assert Player.objects.get(pk=alice.pk).entry_rating == 1800


def test_the_api_answers_409_to_an_entry_change_behind_a_published_list(published):
    api = APIClient()
    api.force_authenticate(published["user"])
    alice = published["alice"]
    response = api.patch(f"/api/v1/players/{alice.pk}/", {"birth_year": 2001}, format="json")
    assert response.status_code == 409
    assert ENTRY_REFUSED in response.json()["birth_year"][0]
    assert Player.objects.get(pk=alice.pk).birth_year == alice.birth_year


def test_the_admin_refuses_an_entry_change_behind_a_published_list(client, published):
    client.force_login(published["user"])
    alice = published["alice"]
    data = {"name": "Alice Brown", "fide_id": 1001, "birth_year": 1980, "entry_rating": 1850,
            "entry_rated_games": 50, "rapid_entry_rated_games": 0, "blitz_entry_rated_games": 0,
            "ratingchange_set-TOTAL_FORMS": 0, "ratingchange_set-INITIAL_FORMS": 0}  # fmt: skip
    response = client.post(f"/admin/ladder/player/{alice.pk}/change/", data)
    assert response.status_code == 200
    assert ENTRY_REFUSED in html.unescape(response.content.decode())
    assert Player.objects.get(pk=alice.pk).entry_rating == 1800


def test_other_lists_and_other_fields_stay_open(published):
    alice = published["alice"]
    alice.name, alice.rapid_entry_rating = "Alice Browne", 1700  # no rapid game is published
    actions.save_player(player=alice)
    assert Player.objects.get(pk=alice.pk).rapid_entry_rating == 1700
    reopen = published["feb"]
    actions.reopen_period(period=reopen, reason="Entry rating was wrong")
    alice.entry_rating = 1900
    actions.save_player(player=alice)  # once reopened, the change is allowed
    assert Player.objects.get(pk=alice.pk).entry_rating == 1900


# --- new players ---------------------------------------------------------------------------------


def test_add_players_writes_them_with_their_first_version(django_assert_max_num_queries):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    players = [Player(name=f"P{i}", fide_id=9000 + i, entry_rating=1800) for i in range(20)]
    with django_assert_max_num_queries(8):  # check, insert, history, savepoints: not one a player
        added = actions.add_players(players=players, user=boss, reason="Entered by hand")
    assert [p.pk for p in added] == list(Player.objects.order_by("pk").values_list("pk", flat=True))
    assert Player.objects.get(fide_id=9003).rating == 1800  # started from the entry data
    version = Player.history.get(fide_id=9003)  # type: ignore[attr-defined]
    assert (version.history_change_reason, version.history_user) == ("Entered by hand", boss)


def test_add_players_refuses_the_batch_naming_each_player():
    PlayerFactory(fide_id=5)
    players = [Player(name="Ann", fide_id=7), Player(name="Bob", fide_id=7),
               Player(name="Cy", fide_id=5), Player(name="Di", birth_year=1800)]  # fmt: skip
    sources = ["line 2", "line 3", "line 4", "line 5"]
    with pytest.raises(PlayersInvalid) as refused:
        actions.add_players(players=players, reason="", sources=sources)
    assert refused.value.problems == [
        {},
        {"fide_id": ["FIDE id 7 is also on line 2."]},
        {"fide_id": ["A player with FIDE id 5 already exists."]},
        {"birth_year": ["Ensure this value is greater than or equal to 1900."]},
    ]
    assert Player.objects.count() == 1
