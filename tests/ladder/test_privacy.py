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
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import models
from django.forms.models import model_to_dict

from ladder.files import player_export
from ladder.records import Game, IdempotentRequest, Player, RatingPeriod
from ladder.writes import actions, privacy
from ladder.writes.validation import GameEntry
from ratings.models import Publication, PublishedRating, RatingChange, RatingRun
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
        "game_history": _rows(Game.history.all()),
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


def _printed_lists(fiona):
    """Every list as ``rating_list`` prints it (live, and each published revision), her line's
    name and FIDE id blanked: every number on every line, hers included."""
    printed = {}
    for label, published in (("2026-03", ["1", "2"]), ("2026-04", [])):
        for how in [[], *(["--as-published", r] for r in published)]:
            out = StringIO()
            call_command("rating_list", "--period", label, "--format", "json", *how, stdout=out)
            lines = json.loads(out.getvalue())
            for line in lines:
                if line["name"] in (NAME, privacy.pseudonym(fiona.pk)):
                    line["name"], line["fide_id"] = "(her)", "(hers)"
            printed[(label, *how)] = sorted(json.dumps(line, sort_keys=True) for line in lines)
    return printed


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


# --- erasure ------------------------------------------------------------------------------------


def test_erasure_leaves_everyone_elses_history_and_every_list_line_unchanged(club, committed):
    fiona = club["fiona"]
    before, lists_before = _everyone_else(fiona), _printed_lists(fiona)
    assert _holding(NAME) == [  # the search finds what it looks for, wherever it is
        "django_admin_log.object_repr", "ladder_historicalplayer.name",
        "ladder_historicalratingperiod.history_change_reason", "ladder_idempotentrequest.response",
        "ladder_periodlog.reason", "ladder_player.name", "ladder_player.search_key",
        "ratings_publication.reason", "ratings_ratingrun.reason",
    ]  # fmt: skip
    with committed():
        erasure = actions.erase_player(player=fiona, reason="Her request of 1 Dec",
                                       user=club["boss"])  # fmt: skip
    assert _everyone_else(fiona) == before
    assert _printed_lists(fiona) == lists_before
    assert not erasure.kept_birth_year  # an adult in 2026: the junior rule never read it
    assert _holding(NAME) == []
    assert _holding(str(FIDE_ID)) == []
    assert not Player.objects.filter(fide_id=FIDE_ID).exists()
    assert not Player.history.filter(fide_id=FIDE_ID).exists()
    stored = Player.objects.get(pk=fiona.pk)
    assert (stored.name, stored.fide_id, stored.birth_year, stored.sex, stored.federation,
            stored.title) == (f"Erased player #{fiona.pk}", None, None, "", "", "")  # fmt: skip


def test_erasure_is_recorded_with_who_when_and_why(club, committed):
    with committed():
        actions.erase_player(player=club["fiona"], reason="Her request of 1 Dec",
                             user=club["boss"])  # fmt: skip
    newest = Player.history.filter(id=club["fiona"].pk).order_by("-history_date").first()
    assert (newest.history_change_reason, newest.history_user) == (
        "Erased: Her request of 1 Dec", club["boss"]
    )  # fmt: skip
    revised = Publication.objects.get(rating_list="standard", revision=2)
    assert revised.reason == f"Erased player #{club['fiona'].pk}'s first game was reversed."
    assert RatingRun.objects.filter(reason__contains="Erased player #").exists()
    (answer,) = IdempotentRequest.objects.values_list("response", flat=True)
    assert answer == {"id": club["fiona"].pk, "name": f"Erased player #{club['fiona'].pk}",
                      "fide_id": None}  # fmt: skip


def test_the_export_after_erasure_shows_the_pseudonym(club, committed):
    with committed():
        actions.erase_player(player=club["fiona"], reason="Asked", user=club["boss"])
    fiona = player_export.find_player(f"pk:{club['fiona'].pk}")
    text = player_export.as_json(player_export.player_data(fiona))
    assert NAME not in text
    assert str(FIDE_ID) not in text
    data = json.loads(text)
    assert data["player"]["name"] == f"Erased player #{club['fiona'].pk}"
    assert {v["name"] for v in data["history"]} == {data["player"]["name"]}
    assert data["history"][-1]["history_change_reason"] == "Erased: Asked"
    ben = json.loads(player_export.as_json(player_export.player_data(club["ben"])))
    assert {g["opponent"] for g in ben["games"]} >= {data["player"]["name"]}


def test_a_junior_keeps_the_birth_year_the_junior_rule_read(committed):
    young, other = PlayerFactory(name="Young Kid", birth_year=2012), PlayerFactory()
    with committed():
        actions.enter_games(games=[GameEntry(date=date(2026, 3, 2), white=young, black=other,
                                             result="1-0")])  # fmt: skip
    k_before = RatingChange.objects.get(player=young).k_reason
    with committed():
        erasure = actions.erase_player(player=young, reason="Parents asked")
    assert erasure.kept_birth_year
    stored = Player.objects.get(pk=young.pk)
    assert (stored.birth_year, RatingChange.objects.get(player=young).k_reason) == (
        2012, k_before
    )  # fmt: skip
    assert "junior" in k_before


def test_a_junior_whose_games_wait_for_their_run_keeps_the_birth_year():
    young, other = PlayerFactory(name="Young Kid", birth_year=2012), PlayerFactory()
    # Not committed: the run stays queued, and no rating change of 2026 exists yet.
    actions.enter_games(
        games=[GameEntry(date=date(2026, 3, 2), white=young, black=other, result="1-0")]
    )
    assert not RatingChange.objects.filter(player=young).exists()
    assert actions.erase_player(player=young, reason="Parents asked").kept_birth_year


def test_erase_player_twice_says_so(club):
    out = StringIO()
    call_command("erase_player", str(FIDE_ID), "--reason", "Asked", "--user", "boss", stdout=out)
    pk = club["fiona"].pk
    assert f"Erased player #{pk}: now 'Erased player #{pk}'; the birth year is removed" in (
        out.getvalue()
    )  # fmt: skip
    with pytest.raises(CommandError, match=rf"Erased player #{pk} was erased already on "
                                           r"\d{4}-\d\d-\d\d \d\d:\d\d by boss; there is "
                                           "nothing left to erase."):  # fmt: skip
        call_command("erase_player", f"pk:{pk}", "--reason", "Again", stdout=StringIO())


@pytest.mark.parametrize(
    ("reason", "sentence"),
    [
        ("  ", "Give a reason for the erasure; it is recorded."),
        ("x" * 93, "Keep the reason to 92 characters (it has 93)"),
        ("a\x1bb", "Contains the control character U+001B"),
    ],
)
def test_erase_player_needs_a_reason(club, reason, sentence):
    with pytest.raises(CommandError, match=re.escape(sentence)):
        call_command("erase_player", str(FIDE_ID), "--reason", reason, stdout=StringIO())
    assert Player.objects.get(pk=club["fiona"].pk).name == NAME


def test_erase_player_refuses_an_unknown_player_or_user(club):
    with pytest.raises(CommandError, match="No player has the id or FIDE id 999999.") as error:
        call_command("erase_player", "999999", "--reason", "Asked", stdout=StringIO())
    assert error.value.returncode == 1
    with pytest.raises(CommandError, match="No active user is called 'nobody'."):
        call_command("erase_player", str(FIDE_ID), "--reason", "Asked", "--user", "nobody")


def test_the_reason_bound_follows_the_history_field():
    assert privacy.reason_room() == 100 - len(privacy.ERASED)
    with pytest.raises(ValidationError):
        privacy.check_reason("")
