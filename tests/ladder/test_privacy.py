"""A player's data: exported whole (JSON, a zip of CSVs), and erased without moving anyone's
ratings (ladder/writes/privacy.py, ladder/files/player_export.py and their commands)."""

import io
import json
import re
import zipfile
from datetime import date
from io import StringIO

import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.db import models
from django.forms.models import model_to_dict

from ladder.files import player_export
from ladder.records import Game, IdempotentRequest, Player, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import Publication, PublishedRating, RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

NAME, FIDE_ID = "Fiona Walsh", 4100018


@pytest.fixture
def club(committed):
    """Fiona and three others, with games in a published March (revised once, with a reason
    that names her) and an open April; her name in a rating run, the admin's log and a stored
    API answer too."""
    fiona = PlayerFactory(name=NAME, fide_id=FIDE_ID, birth_year=1985, sex="F",
                          federation="ENG", title="WFM", entry_rating=1900)  # fmt: skip
    ben, cy, dee = (PlayerFactory(name=n, entry_rating=r) for n, r in
                    (("Ben Hart", 1800), ("Cy Moss", 1700), ("Dee Lane", 1600)))  # fmt: skip
    boss = User.objects.create_user("boss")
    with committed():
        actions.enter_games(games=[
            GameEntry(date=date(2026, 3, 2), white=fiona, black=ben, result="1-0",
                      event="=Spring Open", round="1"),
            GameEntry(date=date(2026, 3, 3), white=ben, black=cy, result="1/2-1/2"),
            GameEntry(date=date(2026, 4, 6), white=cy, black=fiona, result="0-1"),
            GameEntry(date=date(2026, 4, 7), white=dee, black=ben, result="1-0"),
        ])  # fmt: skip
    with committed():
        fiona.entry_rated_games = 60  # a rating run "Entry data of Fiona Walsh changed"
        actions.save_player(player=fiona, user=boss)
    march = RatingPeriod.objects.get(label="2026-03")
    actions.close_period(period=march, user=boss)
    actions.reopen_period(period=march, reason=f"{NAME}'s first game was reversed.", user=boss)
    with committed():
        game = Game.objects.get(date=date(2026, 3, 2))
        actions.correct_game(game=game, changes={"result": "0-1"}, user=boss)
    actions.close_period(period=march, user=boss)
    LogEntry.objects.create(
        user=boss, content_type=ContentType.objects.get_for_model(Player),
        object_id=str(fiona.pk), object_repr=str(fiona), action_flag=CHANGE,
        change_message="[]",
    )  # fmt: skip
    IdempotentRequest.objects.create(
        user=boss, key="k1", method="POST", path="/api/v1/players/", fingerprint="f" * 64,
        status=201, response={"id": fiona.pk, "name": NAME, "fide_id": FIDE_ID},
    )  # fmt: skip
    return {"fiona": fiona, "ben": ben, "cy": cy, "dee": dee, "boss": boss}


def _rows(queryset, *excluded):
    return sorted(
        (tuple(sorted((k, repr(v)) for k, v in model_to_dict(row).items() if k not in excluded))
         for row in queryset),
    )  # fmt: skip


def _everyone_else(fiona):
    """Everything that holds another player's ratings or history, and every published line."""
    others = Player.objects.exclude(pk=fiona.pk)
    return {
        "players": _rows(others, "updated"),
        "changes": _rows(RatingChange.objects.all()),
        "lines": _rows(PublishedRating.objects.all()),
        "publications": _rows(Publication.objects.all(), "reason"),
        "history": _rows(Player.history.exclude(id=fiona.pk)),
        "games": _rows(Game.objects.all(), "updated"),
        "fiona_ratings": [
            getattr(Player.objects.get(pk=fiona.pk), name)
            for name in (
                "rating",
                "rated_games",
                "peak_rating",
                "entry_rating",
                "entry_rated_games",
            )
        ],  # fmt: skip
    }


def _text_columns():
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.CharField | models.TextField | models.JSONField):
                yield model, field.name


def _holding(text):
    """Every (table, column) whose stored text holds ``text``, across every model's table."""
    return sorted(
        f"{model._meta.db_table}.{name}"
        for model, name in _text_columns()
        if model._default_manager.filter(**{f"{name}__icontains": text}).exists()
    )


# --- export -------------------------------------------------------------------------------------


def test_the_export_holds_everything_stored_about_the_player(club):
    fiona = club["fiona"]
    data = json.loads(player_export.as_json(player_export.player_data(fiona)))
    assert data["format"] == "ladder-player-export"
    assert (data["player"]["name"], data["player"]["fide_id"], data["player"]["title"]) == (
        NAME, FIDE_ID, "WFM"
    )  # fmt: skip
    assert [row["list"] for row in data["lists"]] == ["standard", "rapid", "blitz"]
    assert data["lists"][0]["entry_rated_games"] == 60
    assert [(g["date"], g["colour"], g["opponent"], g["result"]) for g in data["games"]] == [
        ("2026-03-02", "white", "Ben Hart", "0-1"),
        ("2026-04-06", "black", "Cy Moss", "0-1"),
    ]
    assert len(data["rating_changes"]) == RatingChange.objects.filter(player=fiona).count() == 2
    assert {(line["period"], line["revision"]) for line in data["published_lines"]} == {
        ("2026-03", 1), ("2026-03", 2)
    }  # fmt: skip
    (revised,) = data["published_revisions"]
    assert (revised["revision"], revised["reason"]) == (2, f"{NAME}'s first game was reversed.")
    assert [v["history_type"] for v in data["history"]] == ["created", "changed"]
    assert data["history"][0]["entry_rated_games"] == 50
    assert [entry["user"] for entry in data["admin_log"]] == ["boss"]


def test_the_export_reads_in_a_constant_number_of_queries(
    club, committed, django_assert_max_num_queries
):
    fiona = club["fiona"]
    with committed():
        actions.enter_games(games=[
            GameEntry(date=date(2026, 4, 10 + i), white=fiona, black=club["dee"], result="1-0")
            for i in range(12)
        ])  # fmt: skip
    with django_assert_max_num_queries(7):
        data = player_export.player_data(fiona)
    assert len(data["games"]) == 14


def test_the_csv_export_is_a_zip_of_one_file_a_section_with_formulas_neutralised(club):
    fiona = club["fiona"]
    archive = zipfile.ZipFile(io.BytesIO(player_export.as_zip(player_export.player_data(fiona))))
    assert archive.namelist() == [f"{name}.csv" for name in player_export.SECTIONS]
    games = archive.read("games.csv").decode()
    assert games.splitlines()[0].startswith("id,date,period,list,colour,opponent_id,opponent")
    assert ",'=Spring Open," in games  # a spreadsheet shows it, never runs it
    assert archive.read("player.csv").decode().splitlines()[1].split(",")[1:4] == [
        NAME, str(FIDE_ID), "1985"
    ]  # fmt: skip


def test_export_player_writes_json_or_a_zip_by_id_or_fide_id(club, tmp_path):
    out = StringIO()
    call_command("export_player", str(FIDE_ID), stdout=out)
    assert json.loads(out.getvalue())["player"]["id"] == club["fiona"].pk
    target = tmp_path / "fiona.zip"
    call_command("export_player", f"pk:{club['fiona'].pk}", "--format", "csv",
                 "--output", str(target), stdout=StringIO())  # fmt: skip
    assert "history.csv" in zipfile.ZipFile(target).namelist()


@pytest.mark.parametrize(
    ("given", "sentence"),
    [
        ("999999", "No player has the id or FIDE id 999999."),
        ("fide:5", "No player has the FIDE id 5."),
        ("Fiona", "'Fiona' is not a player's id or FIDE id; give a whole number"),
    ],
)
def test_export_player_refuses_an_unknown_player_with_exit_code_1(club, given, sentence):
    with pytest.raises(CommandError) as error:
        call_command("export_player", given, stdout=StringIO())
    assert error.value.returncode == 1
    assert str(error.value).startswith(sentence)


def test_a_number_that_is_one_players_id_and_anothers_fide_id_asks_which(club):
    ben = club["ben"]
    club["cy"].fide_id = ben.pk
    club["cy"].save()
    asks = re.escape(
        f"{ben.pk} is the id of Ben Hart and the FIDE id of Cy Moss ({ben.pk}); say which: "
        f"pk:{ben.pk} or fide:{ben.pk}."
    )
    with pytest.raises(CommandError, match=asks):
        call_command("export_player", str(ben.pk), stdout=StringIO())


def test_a_zip_needs_a_file(club):
    with pytest.raises(CommandError, match="A CSV export is a zip file; give --output FILE"):
        call_command("export_player", str(FIDE_ID), "--format", "csv", stdout=StringIO())
