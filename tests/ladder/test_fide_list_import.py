"""FIDE's list into the club: the snapshot, the identity changes with their report, players
added with their entry data, whole or nothing, and the doors (command, admin, API, page)."""

import io
from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from ladder.files import fide_list
from ladder.records import FideListEntry, Player, RatingPeriod
from ladder.writes import actions
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

FILES = Path(__file__).parent / "fide_lists"
pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("import_fide_list", *args, stdout=out)
    return out.getvalue()


def test_the_command_stores_the_month_and_corrects_the_club_players():
    carlsen = PlayerFactory(name="Magnus Carlsen", fide_id=1503014, federation="", birth_year=None)
    ivanchuk = PlayerFactory(name="Ivánchuk, Vassily", fide_id=4100018, federation="UKR",
                             birth_year=1969)  # fmt: skip
    out = run(str(FILES / "players_list_foa.txt"), "--month", "2026-10")
    assert FideListEntry.objects.filter(month=date(2026, 10, 1)).count() == 6
    carlsen.refresh_from_db()
    assert (carlsen.name, carlsen.federation, carlsen.title, carlsen.sex) == (
        "Carlsen, Magnus", "NOR", "GM", "M"
    )  # fmt: skip
    assert carlsen.birth_year == 1990
    assert "changed: Magnus Carlsen (1503014): name 'Magnus Carlsen' -> 'Carlsen, Magnus'" in out
    assert "federation '' -> 'NOR'" in out
    ivanchuk.refresh_from_db()
    assert ivanchuk.name == "Ivánchuk, Vassily"  # FIDE's ASCII spelling of the same name: kept
    assert "(4100018): name" not in out
    history = carlsen.history.first()
    assert history.history_change_reason == "Identity from FIDE's list of 2026-10"


def test_a_birth_year_behind_a_published_list_is_left_and_said():
    period = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    player = PlayerFactory(name="Carlsen, Magnus", fide_id=1503014, birth_year=1991)
    GameFactory(white=player, period=period)
    RatingPeriod.objects.filter(pk=period.pk).update(status="closed")
    out = run(str(FILES / "players_list_foa.txt"), "--month", "2026-10")
    player.refresh_from_db()
    assert player.birth_year == 1991
    assert "birth_year 1991 -> 1990 NOT CHANGED: games in a published list" in out


def test_federation_adds_players_with_entry_data():
    out = run(str(FILES / "players_list_foa.txt"), "--month", "2026-10", "--federation", "nor")
    assert "4 players were added" in out
    carlsen = Player.objects.get(fide_id=1503014)
    assert (carlsen.entry_rating, carlsen.entry_rated_games) == (
        2833,
        30,
    )  # K 10: 30 games at least
    assert carlsen.rapid_entry_rating == 2823
    assert carlsen.rating == 2833
    nilsen = Player.objects.get(fide_id=1510045)
    assert (nilsen.entry_rating, nilsen.entry_rated_games, nilsen.rapid_entry_rating) == (
        1550, 3, None
    )  # fmt: skip
    kari = Player.objects.get(fide_id=1504002)
    assert kari.title == "WFM"
    assert kari.sex == "F"
    assert not Player.objects.filter(fide_id=4100018).exists()  # UKR


def test_ids_add_those_players(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("# members\n4100018\n999999999\n")
    out = run(str(FILES / "players_list_xml.zip"), "--month", "2026-10", "--ids", str(ids))
    ivanchuk = Player.objects.get(fide_id=4100018)
    assert ivanchuk.entry_peak_rating is None
    assert ivanchuk.entry_rating == 2650
    assert "FIDE id 999999999 is not on the list of 2026-10." in out
    ids.write_text("12a\n")
    with pytest.raises(CommandError, match="line 1: '12a' is not a FIDE id"):
        run(str(FILES / "players_list_xml.zip"), "--ids", str(ids))


def test_a_bad_line_imports_nothing(tmp_path):
    player = PlayerFactory(name="Magnus Carlsen", fide_id=1503014)
    lines = (FILES / "players_list_foa.txt").read_text().splitlines()
    lines[3] = lines[3][:113] + "28x3" + lines[3][117:]
    bad = tmp_path / "players_list.txt"
    bad.write_text("\r\n".join(lines) + "\r\n")
    with pytest.raises(CommandError, match=r"Nothing was imported.\nLine 4, column 114: '28x3'"):
        run(str(bad), "--month", "2026-10", "--federation", "NOR")
    assert not FideListEntry.objects.exists()
    player.refresh_from_db()
    assert player.name == "Magnus Carlsen"
    assert Player.objects.count() == 1


def test_a_dry_run_stores_nothing():
    PlayerFactory(name="Magnus Carlsen", fide_id=1503014)
    out = run(str(FILES / "players_list_foa.txt"), "--month", "2026-10", "--federation", "NOR",
              "--dry-run")  # fmt: skip
    assert "3 players would be added" in out
    assert "Dry run" in out
    assert not FideListEntry.objects.exists()
    assert Player.objects.get().name == "Magnus Carlsen"


def test_a_one_list_file_updates_its_list_of_a_month_already_in():
    run(str(FILES / "players_list_legacy.txt"), "--month", "2026-10")
    FideListEntry.objects.filter(fide_id=1503014).update(standard_rating=2700, rapid_rating=2600)
    run(str(FILES / "standard_rating_list.txt"))  # OCT26 in its header
    row = FideListEntry.objects.get(fide_id=1503014)
    assert (row.standard_rating, row.rapid_rating) == (2833, 2600)
    assert FideListEntry.objects.count() == 6
    with pytest.raises(CommandError, match="FIDE's list of 2026-10, not 2026-11"):
        run(str(FILES / "standard_rating_list.txt"), "--month", "2026-11")


def test_the_same_month_again_replaces_it():
    run(str(FILES / "players_list_foa.txt"), "--month", "2026-10")
    run(str(FILES / "players_list_xml.zip"), "--month", "2026-10")
    assert FideListEntry.objects.count() == 6
    run(str(FILES / "players_list_xml.zip"), "--month", "2026-11")
    assert FideListEntry.objects.count() == 12


def test_the_action_names_the_federation_bad(tmp_path):
    with pytest.raises(CommandError, match="not a FIDE code"):
        run(str(FILES / "players_list_foa.txt"), "--federation", "NORWAY")
    with pytest.raises(CommandError, match="Cannot read"):
        run(str(tmp_path / "missing.txt"))


def test_api_and_page_show_fide_beside_the_club_rating(client, django_assert_max_num_queries):
    players = [PlayerFactory(fide_id=i) for i in (1503014, 1504002, 1510045)]
    PlayerFactory()  # no FIDE id
    run(str(FILES / "players_list_foa.txt"), "--month", "2026-09")
    run(str(FILES / "players_list_foa.txt"), "--month", "2026-10")
    FideListEntry.objects.filter(month=date(2026, 9, 1)).update(standard_rating=1000)
    body = client.get(f"/api/v1/players/{players[0].pk}/").json()
    assert body["fide"]["month"] == "2026-10"
    assert body["fide"]["standard"] == {"rating": 2833, "games": 0, "k": 10}
    assert body["fide"]["blitz"]["rating"] == 2886
    with django_assert_max_num_queries(12):
        listed = client.get("/api/v1/players/").json()["results"]
    by_id = {p["id"]: p for p in listed}
    assert by_id[players[2].pk]["fide"]["rapid"] == {"rating": None, "games": 0, "k": None}
    assert sum(p["fide"] is None for p in listed) == 1
    page = client.get(reverse("ladder:player", args=[players[0].pk])).content.decode()
    assert "FIDE <small>(Oct 2026)</small>" in page
    assert "2833 <small>K 10</small>" in page


def test_the_list_of_players_reads_fide_in_one_query(client, django_assert_num_queries):
    for n in range(3):
        PlayerFactory(fide_id=1503014 + n)
    run(str(FILES / "players_list_foa.txt"), "--month", "2026-10")
    client.get("/api/v1/players/")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get("/api/v1/players/")
    for n in range(20):
        PlayerFactory(fide_id=1600000 + n)
    with CaptureQueriesContext(connection) as many:
        client.get("/api/v1/players/")
    assert len(many) == len(few)
    assert sum("ladder_fidelistentry" in q["sql"] for q in many.captured_queries) == 1


def test_the_admin_upload_previews_and_imports(admin_client):
    url = reverse("admin:ladder_player_import_fide_list")
    assert admin_client.get(url).status_code == 200
    PlayerFactory(name="Magnus Carlsen", fide_id=1503014)
    with (FILES / "players_list_foa.txt").open("rb") as upload:
        answer = admin_client.post(url, {"file": upload, "month": "2026-10", "_preview": "1"})
    page = answer.content.decode()
    assert "Preview: nothing was stored" in page
    assert "name &#x27;Magnus Carlsen&#x27; -&gt; &#x27;Carlsen, Magnus&#x27;" in page
    assert not FideListEntry.objects.exists()
    with (FILES / "players_list_foa.txt").open("rb") as upload:
        answer = admin_client.post(url, {"file": upload, "month": "2026-10", "_import": "1"})
    assert FideListEntry.objects.count() == 6
    assert Player.objects.get().name == "Carlsen, Magnus"


def test_the_admin_upload_names_a_bad_line(admin_client):
    url = reverse("admin:ladder_player_import_fide_list")
    text = (FILES / "players_list_foa.txt").read_text().replace("1550  3   40", "1550  3   4x")
    upload = io.BytesIO(text.encode())
    upload.name = "players_list.txt"
    page = admin_client.post(url, {"file": upload, "_import": "1"}).content.decode()
    assert "Nothing was imported." in page
    assert "Line 4, column 124: &#x27;4x&#x27; is not a standard k" in page
    assert not FideListEntry.objects.exists()
    answer = admin_client.post(url, {"file": io.BytesIO(b"x"), "month": "2026-13"})
    assert "is not a month" in answer.content.decode()


def test_the_action_refuses_a_player_the_list_would_break():
    carlsen = PlayerFactory(fide_id=1503014, name="Magnus Carlsen")
    rows = iter(
        ["1503014\t" + "x" * 100 + "\tNOR\tM\tGM\t\t\t\t2800\t0\t10\t0\t0\t0\t0\t0\t0\t1990\t"]
    )
    columns = ("fide_id", "name", "federation", "sex", "title", "women_title", "other_titles",
               "foa_title", "standard_rating", "standard_games", "standard_k", "rapid_rating",
               "rapid_games", "rapid_k", "blitz_rating", "blitz_games", "blitz_k", "birth_year",
               "flag")  # fmt: skip
    report = actions.import_fide_list(rows=rows, month=date(2026, 10, 1), columns=columns)
    carlsen.refresh_from_db()
    assert carlsen.name == "x" * 100
    assert report.rows == 1


def import_as(user):
    """Import the combined test list of 2026-10 as ``user`` (an admin upload's call)."""
    with (
        open(FILES / "players_list_foa.txt", "rb") as file,
        fide_list.open_list(file, "players_list_foa.txt") as listed,
    ):
        return actions.import_fide_list(
            rows=listed.rows, month=date(2026, 10, 1), columns=listed.columns, user=user
        )


def test_every_change_is_reported_and_in_the_history_with_its_reason_and_user(
    django_user_model, committed
):
    """As an edit through the write path records it: one history version a changed player,
    its fields as stored, by the user, with the list as its reason; a birth year of a player
    with games (through ``save_player``) no differently."""
    boss = django_user_model.objects.create_user("boss")
    period = PeriodFactory(start=date(2026, 9, 1), end=date(2026, 9, 30))
    carlsen = PlayerFactory(name="Carlsen, Magnus", fide_id=1503014, federation="", sex="",
                            title="", birth_year=1991)  # fmt: skip
    kari = PlayerFactory(name="Kari Hansson", fide_id=1504002, federation="NOR", birth_year=None,
                         sex="", title="")  # fmt: skip
    nilsen = PlayerFactory(name="Nilsen, Ola", fide_id=1510045, federation="NOR", sex="M",
                           title="", birth_year=1999)  # has games  # fmt: skip
    with committed():
        GameFactory(white=nilsen, black=kari, period=period, date=date(2026, 9, 3))
    versions = {p.pk: p.history.count() for p in (carlsen, kari, nilsen)}

    with committed():
        report = import_as(boss)

    reported: dict[int, dict[str, object]] = {}
    for change in report.changes:
        reported.setdefault(change.fide_id, {})[change.field] = change.new
    assert reported[1510045] == {"birth_year": 2012}
    assert set(reported[1503014]) == {"federation", "sex", "title", "birth_year"}
    assert set(reported[1504002]) == {"name", "sex", "title", "birth_year"}
    for player in (carlsen, kari, nilsen):
        player.refresh_from_db()
        history = list(player.history.order_by("-history_date", "-history_id"))
        assert len(history) == versions[player.pk] + 1, player  # one version a change
        newest, before = history[0], history[1]
        assert newest.history_change_reason == "Identity from FIDE's list of 2026-10"
        assert newest.history_user == boss
        assert newest.history_type == "~"
        changed = {c.field for c in newest.diff_against(before).changes}
        assert changed == set(reported[player.fide_id]), player
        for name, value in reported[player.fide_id].items():
            assert getattr(newest, name) == getattr(player, name) == value


def test_a_refused_birth_year_leaves_the_rest_of_the_change_recorded(django_user_model):
    boss = django_user_model.objects.create_user("boss")
    period = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    player = PlayerFactory(name="Magnus Carlsen", fide_id=1503014, federation="", sex="M",
                           title="GM", birth_year=1991)  # fmt: skip
    GameFactory(white=player, period=period)
    RatingPeriod.objects.filter(pk=period.pk).update(status="closed")
    versions = player.history.count()

    report = import_as(boss)

    player.refresh_from_db()
    assert (player.federation, player.birth_year) == ("NOR", 1991)
    said = [str(c) for c in report.changes]
    assert "Magnus Carlsen (1503014): federation '' -> 'NOR'" in said
    assert any("birth_year 1991 -> 1990 NOT CHANGED" in line for line in said)
    assert player.history.count() == versions + 1
    newest = player.history.order_by("-history_date", "-history_id").first()
    assert (newest.history_change_reason, newest.history_user) == (
        "Identity from FIDE's list of 2026-10", boss
    )  # fmt: skip
