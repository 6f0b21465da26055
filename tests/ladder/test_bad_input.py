"""Bad input an attacker (or a tired secretary) sends: a clear refusal naming the field and
the reason at each door, never a 500, and the database unchanged."""

from __future__ import annotations

import html
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.api.parsers import MAX_DEPTH
from ladder.records import ENTRY_RATING_MESSAGE, Game, PeriodLog, Player, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import latest_game_date
from tests.commands import refused_import as import_file
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

CONTROL = "Contains the control character U+{:04X}; use plain printable text."


# --- periods -------------------------------------------------------------------------------


def test_a_period_label_that_is_no_address_is_refused_in_the_admin(client, boss):
    client.force_login(boss)
    data = {"label": "2027/01", "start": "2027-01-01", "end": "2027-01-31"}
    response = client.post("/admin/ladder/ratingperiod/add/", data)
    assert "A period label is letters, digits and" in html.unescape(response.content.decode())
    assert not RatingPeriod.objects.exists()
    assert client.get("/periods/").status_code == 200


# --- the admin's lists -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["?result=%00", "?event=%00x", "?q=%00", "?period__id__exact=%00"]
)
def test_a_nul_in_the_admin_games_list_is_no_500(client, boss, query):
    GameFactory()
    client.force_login(boss)
    assert client.get(f"/admin/ladder/game/{query}").status_code in (200, 302)


# --- CSV files -----------------------------------------------------------------------------


def test_a_field_over_128_kb_is_refused_with_its_line(tmp_path):
    text = 'name,fide_id\nAnna,1\n"Ben' + "x" * 140_000 + '",2\n'
    message = import_file(tmp_path, "import_players", text)
    assert "line 3: A field is longer than 128 KB: a double quote is probably left open." in message
    assert not Player.objects.exists()


def test_an_unquoted_comma_in_a_name_is_refused(tmp_path):
    message = import_file(tmp_path, "import_players", "name,fide_id\nSmith, John,5\n")
    assert (
        "line 2: This row has 3 fields but the header has 2: a text holding a comma must be in "
        'double quotes ("Smith, John").'
    ) in message
    assert not Player.objects.exists()


def test_a_quoted_comma_is_a_name(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('name,fide_id\n"Smith, John",5\n', encoding="utf-8")
    call_command("import_players", str(path), stdout=StringIO())
    assert Player.objects.get().name == "Smith, John"


def test_a_column_named_twice_is_refused(tmp_path):
    message = import_file(tmp_path, "import_players", "name,rating,rating\nAnna,1500,1900\n")
    assert "line 1, column 'rating': This column appears twice; keep one." in message
    assert not Player.objects.exists()


def test_a_games_file_with_a_column_twice_is_refused(tmp_path):
    PlayerFactory(fide_id=1), PlayerFactory(fide_id=2)
    text = "date,white,black,result,result\n2026-03-02,1,2,1-0,0-1\n"
    message = import_file(tmp_path, "import_games", text)
    assert "line 1, column 'result': This column appears twice; keep one." in message
    assert not Game.objects.exists()


# --- players at every door ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "column", "message"),
    [
        ("name", "Ada\x1b[2J", "name", CONTROL.format(0x1B)),
        ("name", "Ada\x07", "name", CONTROL.format(0x07)),
        ("fide_id", 0, "fide_id", None),
        ("entry_rating", 0, "rating", ENTRY_RATING_MESSAGE),
        ("entry_rating", 1399, "rating", ENTRY_RATING_MESSAGE),
        ("entry_rating", 3501, "rating", ENTRY_RATING_MESSAGE),
        ("rapid_entry_rating", 900, "rapid_rating", ENTRY_RATING_MESSAGE),
    ],
)
def test_a_bad_player_is_refused_at_every_door(api, client, boss, tmp_path, field, value, column,
                                               message):  # fmt: skip
    body = {"name": "Ada", field: value}
    response = api.post("/api/v1/players/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    if message:
        assert response.json()[field] == [message]
    client.force_login(boss)
    form = {"name": "Ada", "entry_rated_games": 0, "rapid_entry_rated_games": 0,
            "blitz_entry_rated_games": 0, "ratingchange_set-TOTAL_FORMS": 0,
            "ratingchange_set-INITIAL_FORMS": 0, field: value}  # fmt: skip
    page = html.unescape(client.post("/admin/ladder/player/add/", form).content.decode())
    assert str(message or "FIDE id") in page
    text = f"name\n{value}\n" if column == "name" else f"name,{column}\nAda,{value}\n"
    shown = import_file(tmp_path, "import_players", text)
    assert f"column '{column}'" in shown
    if message:
        assert str(message) in shown
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    ("values", "field", "column"),
    [
        ({"birth_year": 2999}, "birth_year", "birth_year"),
        ({"birth_year": 1800}, "birth_year", "birth_year"),
        ({"entry_rated_games": 200_000}, "entry_rated_games", "rated_games"),
        ({"entry_rating": 2000, "entry_peak_rating": 1900}, "entry_peak_rating", "peak_rating"),
        ({"entry_peak_rating": 1900}, "entry_peak_rating", "peak_rating"),
        ({"entry_rating": 4000}, "entry_rating", "rating"),
        ({"fide_id": 0}, "fide_id", "fide_id"),
    ],
)
def test_a_bad_player_row_gets_the_same_message_through_csv_admin_and_api(
    api, client, boss, tmp_path, values, field, column
):
    response = api.post("/api/v1/players/", {"name": "Ada", **values}, format="json")
    assert response.status_code == 400
    (message,) = response.json()[field]
    client.force_login(boss)
    form = {"name": "Ada", "entry_rated_games": 0, "rapid_entry_rated_games": 0,
            "blitz_entry_rated_games": 0, "ratingchange_set-TOTAL_FORMS": 0,
            "ratingchange_set-INITIAL_FORMS": 0, **values}  # fmt: skip
    page = html.unescape(client.post("/admin/ladder/player/add/", form).content.decode())
    assert message in page
    columns = {"entry_rating": "rating", "entry_rated_games": "rated_games",
               "entry_peak_rating": "peak_rating"}  # fmt: skip
    header = ",".join(["name", *(columns.get(name, name) for name in values)])
    row = ",".join(["Ada", *(str(value) for value in values.values())])
    shown = import_file(tmp_path, "import_players", f"{header}\n{row}\n")
    assert shown == f"Nothing was imported.\nline 2, column '{column}': {message}"
    assert not Player.objects.exists()


def test_a_newline_in_a_name_is_refused(api):
    response = api.post("/api/v1/players/", {"name": "Ada\nLovelace"}, format="json")
    assert response.json() == {"name": [CONTROL.format(0x0A)]}


def test_the_floor_is_accepted_and_blank_means_unrated(api):
    response = api.post("/api/v1/players/", {"name": "Ada", "entry_rating": 1400}, format="json")
    assert response.status_code == 201
    response = api.post("/api/v1/players/", {"name": "Bea", "entry_rating": None}, format="json")
    assert response.status_code == 201


def test_a_reopen_reason_with_an_escape_is_refused(api):
    period = PeriodFactory()
    actions.close_period(period=period)
    response = api.post(f"/api/v1/periods/{period.pk}/reopen/", {"reason": "ok\x1b]0;x\x07"},
                        format="json")  # fmt: skip
    assert response.status_code == 400
    assert response.json() == {"reason": [CONTROL.format(0x1B)]}
    assert not PeriodLog.objects.filter(action="reopened").exists()
    ok = api.post(f"/api/v1/periods/{period.pk}/reopen/", {"reason": "Line one\nline two"},
                  format="json")  # fmt: skip
    assert ok.status_code == 200


# --- dates ---------------------------------------------------------------------------------------


def test_the_date_bound_is_the_end_of_next_month():
    assert latest_game_date(date(2026, 11, 30)) == date(2026, 12, 31)
    assert latest_game_date(date(2026, 12, 1)) == date(2027, 1, 31)


def test_the_date_bound_is_a_setting(settings):
    settings.LADDER_DATE_MONTHS_AHEAD = 0
    assert latest_game_date(date(2026, 2, 10)) == date(2026, 2, 28)


# --- JSON ----------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_json_nested_too_deep_is_a_400_even_anonymously(depth):
    body = "[" * depth + "]" * depth
    response = APIClient().post("/api/v1/calculator/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": f"The JSON is nested deeper than {MAX_DEPTH} levels."}


def test_brackets_inside_strings_are_not_nesting(api):
    response = api.post("/api/v1/players/", {"name": "[" * 100}, format="json")
    assert response.status_code == 201


def test_a_body_over_the_limit_is_a_400(settings, api):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = api.post("/api/v1/players/", {"name": "x" * 2000}, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "The request body is larger than 1,000 bytes."}
    assert not Player.objects.exists()


def test_nan_is_no_number(api):
    body = '{"rating": NaN, "k": 20, "opponent": 2000}'
    response = APIClient().post("/api/v1/calculator/", body, content_type="application/json")
    assert response.status_code == 400


# --- the same file twice -------------------------------------------------------------------------


def test_the_same_games_file_twice_is_refused_by_its_fingerprint(tmp_path):
    PlayerFactory(fide_id=1), PlayerFactory(fide_id=2)
    path = tmp_path / "games.csv"
    path.write_text("date,white,black,result\n2026-03-02,1,2,1-0\n2026-03-03,2,1,0-1\n")
    call_command("import_games", str(path), stdout=StringIO())
    with pytest.raises(CommandError) as error:
        call_command("import_games", str(path), stdout=StringIO())
    assert "Nothing was imported." in str(error.value)
    assert "This file was already imported on " in str(error.value)
    assert "(2 games); importing it again would record them twice." in str(error.value)
    assert Game.objects.count() == 2


def test_the_same_players_file_twice_is_refused(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("name\nAnna\nBen\n")
    call_command("import_players", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match=r"\(2 players\); importing it again"):
        call_command("import_players", str(path), stdout=StringIO())
    assert Player.objects.count() == 2


def test_a_refused_file_can_be_imported_once_fixed_and_again_unchanged_is_refused(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("name,fide_id\nAnna,0\n")
    with pytest.raises(CommandError):
        call_command("import_players", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match="FIDE id|outside"):  # refused again: not remembered
        call_command("import_players", str(path), stdout=StringIO())
    assert not Player.objects.exists()


def test_a_big_games_file_with_a_bad_last_row_is_refused_naming_it(tmp_path):
    players = PlayerFactory.create_batch(40)
    ids = [p.pk for p in players]
    for player in players:
        player.fide_id = 7000 + player.pk
        player.save()
    lines = ["date,white,black,result,round"]
    for i in range(1500):
        white, black = ids[i % 40], ids[(i + 1) % 40]
        lines.append(f"2026-03-{1 + i % 28:02d},{7000 + white},{7000 + black},1-0,{i}")
    lines.append(f"2026-03-02,{7000 + ids[0]},{7000 + ids[1]},2-0,last")
    message = import_file(tmp_path, "import_games", "\n".join(lines) + "\n")
    assert "line 1502, column 'result': '2-0' is not a result" in message
    assert not Game.objects.exists()
