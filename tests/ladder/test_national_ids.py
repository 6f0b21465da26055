"""National ids beside FIDE ids: unique within their federation, matched by every door that
names players (CSV, TRF-2026 NRS records, round entry's lookup, the API), written by the
exports (the rating list CSV, the club backup, whose version 3 files still restore)."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from ladder.exceptions import ImportFailed
from ladder.files import backup, csv_import, tournaments
from ladder.records import Player
from ladder.writes import actions
from ladder.writes.validation import PlayerLookup
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

TRF = """\
012 Club Rapid
042 2026/03/07
052 2026/03/07
122 15 min + 10 sec
001    1 m    Hansen, Ola                       1850 NOR     1510045 1990/05/12  1.0    1     2 w 1
001    2 m    Berg, Per                         1700 NOR             1991/01/30  0.0    2     1 b 0
NOR    1 m    Hansen, Ola                       1840 NOR       12345 1990/05/12
NOR    2 m    Berg, Per                         1650 NOR       67890 1991/01/30
132                                                                                        26/03/07
"""


def test_a_national_id_takes_the_players_federation_and_is_unique_within_it():
    player = PlayerFactory.build(federation="nor", national_id=" 12345 ")
    player.full_clean()
    assert (player.national_federation, player.national_id) == ("NOR", "12345")
    actions.save_player(player=player)
    twin = PlayerFactory.build(federation="NOR", national_id="12345")
    with pytest.raises(ValidationError, match="national id"):
        actions.save_player(player=twin)
    PlayerFactory(federation="SWE", national_id="12345")  # another federation's 12345
    lonely = PlayerFactory.build(national_id="9")
    with pytest.raises(ValidationError, match="needs the federation"):
        lonely.full_clean()


def test_the_players_csv_reads_national_ids_and_refuses_one_twice():
    PlayerFactory(federation="NOR", national_id="1")
    text = "name,federation,national_id\nAda,NOR,2\nBea,NOR,2\nCid,NOR,1\n"
    with pytest.raises(ImportFailed) as refused:
        csv_import.import_players(StringIO(text))
    messages = str(refused.value)
    assert "line 3, column 'national_id': National id NOR 2 is also on line 2." in messages
    assert "line 4, column 'national_id': A player with national id NOR 1 already exists." in (
        messages
    )
    csv_import.import_players(StringIO("name,national_federation,national_id\nAda,nor,2\n"))
    assert Player.objects.get(name="Ada").national_federation == "NOR"


def test_a_lookup_finds_a_player_by_national_id():
    player = PlayerFactory(federation="NOR", national_id="A-17")
    lookup = PlayerLookup.load()
    assert lookup.find("NOR:A-17") == player
    assert lookup.find("nor: a-17") == player
    with pytest.raises(LookupError, match="No player has the national id SWE:A-17"):
        lookup.find("SWE:A-17")
    assert PlayerLookup.load(light=True).find("NOR:A-17").pk == player.pk


def test_a_trf_2026_nrs_record_gives_new_players_their_national_id_and_matches_on_it():
    berg = PlayerFactory(name="Per Berg", federation="NOR", national_id="67890", fide_id=None)
    plan = tournaments.read(TRF.encode(), event="Club Rapid")
    assert not plan.problems
    by_name = {match.entrant.name: match for match in plan.matches}
    assert by_name["Berg, Per"].player == berg
    assert by_name["Berg, Per"].how == "national id"
    hansen = by_name["Hansen, Ola"].player
    assert (hansen.national_federation, hansen.national_id) == ("NOR", "12345")
    tournaments.import_tournament(plan)
    assert Player.objects.get(fide_id=1510045).national_id == "12345"


def test_the_api_filters_and_searches_by_national_id(client):
    player = PlayerFactory(federation="NOR", national_id="555")
    PlayerFactory(federation="SWE", national_id="555")
    assert len(client.get("/api/v1/players/?national_id=555").json()["results"]) == 2
    found = client.get("/api/v1/players/?national_id=NOR:555").json()["results"]
    assert [p["id"] for p in found] == [player.pk]
    assert found[0]["national_federation"] == "NOR"
    assert found[0]["national_id"] == "555"
    assert len(client.get("/api/v1/players/?search=555").json()["results"]) == 2


def test_the_backup_writes_national_ids_and_reads_a_version_3_file(tmp_path):
    PlayerFactory(name="Ada", federation="NOR", national_id="7")
    document = backup.export_club()
    assert document["version"] >= 4  # national ids from version 4 on
    assert document["players"][0]["national_id"] == "7"
    old = json.loads(json.dumps(document, default=str))
    old["version"] = 3
    for player in old["players"]:
        del player["national_federation"], player["national_id"]
    path = tmp_path / "club.json"
    path.write_text(json.dumps(old))
    call_command("import_club", str(path), "--replace", stdout=StringIO())
    assert Player.objects.get(name="Ada").national_id == ""


def test_the_games_csv_names_a_player_without_fide_id_by_national_id(client):
    from datetime import date

    from tests.factories import GameFactory, PeriodFactory

    period = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    ola = PlayerFactory(name="Ola", federation="NOR", national_id="12345")
    GameFactory(white=ola, black=PlayerFactory(name="Kari"), period=period)
    lines = client.get("/periods/2026-03/games.csv").content.decode().splitlines()
    assert lines[1].startswith("2026-03-10,NOR:12345,Kari,")
