"""Look-alike names: refused at every door that adds or renames players, with the existing
player named; a typed or pasted look-alike finds the real player, never an impostor."""

from __future__ import annotations

import html
import unicodedata
from datetime import date

import pytest
from django.core.exceptions import ValidationError

from ladder.records import Game, Player
from ladder.writes import actions
from ladder.writes.validation import PlayerLookup, check_look_alikes
from tests.commands import refused_import as import_file
from tests.factories import PeriodFactory, PlayerFactory
from tests.tournaments.files import ROUND_ROBIN

pytestmark = pytest.mark.django_db

CYRILLIC = "G\u0435n Player"  # a Cyrillic "е"
ZERO_WIDTH = "Gen\u200b Player"
BOM = "\ufeffGen Player"
RLM = "Gen Player\u200f"


def _existing():
    return PlayerFactory(name="Gen Player", fide_id=4100123)


def _expected(real, typed):
    if "\u0435" in typed:
        what = "letters of another script (U+0435 CYRILLIC SMALL LETTER IE)"
    else:
        (char,) = [c for c in typed if c in "\u200b\u200f\ufeff"]
        what = f"the invisible character U+{ord(char):04X} {unicodedata.name(char)}"
    return (
        f"'{' '.join(typed.split())}' looks the same as the existing player Gen Player "
        f"(4100123) (#{real.pk}) but is written with {what}; enter that player instead, or "
        "type the name in plain letters."
    )


@pytest.mark.parametrize("typed", [CYRILLIC, ZERO_WIDTH, BOM, RLM])
def test_a_look_alike_is_refused_at_every_door_naming_the_player(api, client, boss, tmp_path,
                                                                 typed):  # fmt: skip
    real = _existing()
    message = _expected(real, typed)
    # The API.
    response = api.post("/api/v1/players/", {"name": typed}, format="json")
    assert response.status_code == 400
    assert response.json() == {"name": [message]}
    # The admin's form.
    client.force_login(boss)
    form = {"name": typed, "entry_rated_games": 0, "rapid_entry_rated_games": 0,
            "blitz_entry_rated_games": 0, "ratingchange_set-TOTAL_FORMS": 0,
            "ratingchange_set-INITIAL_FORMS": 0}  # fmt: skip
    page = html.unescape(client.post("/admin/ladder/player/add/", form).content.decode())
    assert message in page
    # A CSV file.
    shown = import_file(tmp_path, "import_players", f"name,fide_id\n{typed},\n")
    assert shown == f"Nothing was imported.\nline 2, column 'name': {message}"
    assert list(Player.objects.values_list("name", flat=True)) == ["Gen Player"]


def test_renaming_to_a_look_alike_is_refused_and_the_name_kept(api):
    real, other = _existing(), PlayerFactory(name="Other Player")
    response = api.patch(f"/api/v1/players/{other.pk}/", {"name": CYRILLIC}, format="json")
    assert response.status_code == 400
    assert response.json() == {"name": [_expected(real, CYRILLIC)]}
    other.refresh_from_db()
    assert other.name == "Other Player"
    # Saving a player whose name is unchanged needs no check (and namesakes stay allowed).
    response = api.patch(f"/api/v1/players/{real.pk}/", {"birth_year": 1990}, format="json")
    assert response.status_code == 200
    assert api.post("/api/v1/players/", {"name": "Gen Player"}, format="json").status_code == 201


def test_look_alikes_without_a_player_they_look_like():
    (mixed, hidden, cyrillic) = check_look_alikes(
        [Player(name="Pеter Smith"), Player(name="Peter\u200bSmith"), Player(name="Иван Петров")]
    )
    assert mixed == (
        "The name mixes Latin letters with letters of another script (U+0435 CYRILLIC SMALL "
        "LETTER IE), which look like Latin ones; type it in one script."
    )
    assert hidden == (
        "The name holds the invisible character U+200B ZERO WIDTH SPACE, which no one sees; "
        "type the name without it."
    )
    assert cyrillic == ""  # a name in another script is a name


def test_a_wholly_other_script_look_alike_beside_a_player_and_in_one_batch():
    PlayerFactory(name="Pay Smith")
    whole = "\u0420\u0430\u0443 Smith"  # Cyrillic Р, а, у: no Latin letter of its own
    (beside,) = check_look_alikes([Player(name=whole)])
    assert beside.startswith(f"'{whole}' looks the same as the existing player Pay Smith (#")
    first, second = check_look_alikes(
        [Player(name="Tom Jones"), Player(name="T\u043em Jones")], sources=["line 2", "line 3"]
    )
    assert first == ""
    assert second.startswith("'Tоm Jones' looks the same as line 2 (Tom Jones) but is written")


def test_a_tournament_file_finds_the_real_player_for_a_look_alike(tmp_path):
    from tests.tournaments.test_import import run, write

    real = PlayerFactory(name="Jane Doe")
    text = ROUND_ROBIN.replace("Doe, Jane", "Do\u0435, Jane")  # a Cyrillic "е"
    run("import_trf", write(tmp_path, text))
    assert not Player.objects.filter(name__contains="\u0435").exists()
    assert Game.objects.filter(white=real).count() + Game.objects.filter(black=real).count() == 3


def test_a_pasted_round_line_finds_the_real_player(client, boss, committed):
    from tests.admin.test_admin_rounds import post_round

    real, opponent = _existing(), PlayerFactory(name="Ann Able")
    PeriodFactory(label="2026-03", start=date(2026, 3, 1), end=date(2026, 3, 31))
    client.force_login(boss)
    paste = f"{CYRILLIC} - Ann Able 1-0\nAnn Able - {ZERO_WIDTH} 0-1"
    response = post_round(client, paste=paste, save=True)
    assert response.status_code == 302
    assert sorted(Game.objects.values_list("white", "black")) == sorted(
        [(real.pk, opponent.pk), (opponent.pk, real.pk)]
    )
    assert Player.objects.count() == 2


def test_an_impostor_stored_before_the_rule_is_never_the_one_found():
    real = PlayerFactory(name="Gen Player")
    Player.objects.bulk_create([Player(name=CYRILLIC)])  # written past the write path
    lookup = PlayerLookup.load()
    assert lookup.find("Gen Player") == real
    assert lookup.find(CYRILLIC) == real


def test_the_real_name_beside_a_stored_impostor_names_the_impostor():
    Player.objects.bulk_create([Player(name=CYRILLIC)])  # written past the write path
    impostor = Player.objects.get()
    with pytest.raises(ValidationError) as caught:
        actions.save_player(player=Player(name="Gen Player"))
    assert caught.value.message_dict == {
        "name": [
            f"'Gen Player' looks the same as the existing player {CYRILLIC} (#{impostor.pk}), "
            "whose name is written with letters of another script (U+0435 CYRILLIC SMALL "
            "LETTER IE); correct that player's name first, or enter that player."
        ]
    }


def test_a_big_file_finds_the_look_alike_in_one_query(tmp_path, django_assert_max_num_queries):
    real = _existing()
    rows = "".join(f"Member {n:04d},\n" for n in range(600))
    with django_assert_max_num_queries(12):  # the same number as for a file of ten
        shown = import_file(tmp_path, "import_players", f"name,fide_id\n{rows}{CYRILLIC},\n")
    assert shown == f"Nothing was imported.\nline 602, column 'name': {_expected(real, CYRILLIC)}"
    assert Player.objects.count() == 1
