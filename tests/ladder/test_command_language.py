"""The commands speak the club's language: the active one (``LADDER_LANGUAGE`` sets it for a
shell; English by default), with the same sentences as every other door."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.utils import translation

from ladder.records import RatingPeriod
from tests.factories import PlayerFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "Keine Wertungsperiode heißt „2031-01“. Bekannte Perioden: 2026-03."),
        (
            "fr",
            "Aucune période de classement n’a le libellé « 2031-01 ». Périodes connues : 2026-03.",
        ),
        ("en", "No rating period is labelled '2031-01'. Known periods: 2026-03."),
    ],
)
def test_a_command_refuses_in_the_active_language(language, said):
    RatingPeriod.objects.create(label="2026-03", start=date(2026, 3, 1), end=date(2026, 3, 31))

    with translation.override(language), pytest.raises(CommandError) as refused:
        call_command("close_period", "2031-01")

    assert str(refused.value) == said
    assert RatingPeriod.objects.get().status == "open"


def settings_language(value: str | None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "ladder.settings_local"}
    environment.pop("LADDER_LANGUAGE", None)
    if value is not None:
        environment["LADDER_LANGUAGE"] = value
    code = "from django.conf import settings; print(settings.LANGUAGE_CODE)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True
    )


def test_ladder_language_chooses_the_clubs_language():
    assert settings_language(None).stdout.strip() == "en"
    assert settings_language("FR").stdout.strip() == "fr"


def test_a_language_ladder_has_no_translation_for_stops_the_start():
    finished = settings_language("xx")

    assert finished.returncode != 0
    assert "LADDER_LANGUAGE must be en, de or fr (it is 'xx')." in finished.stderr


# --- the commands merged last: their help, refusals and reports ---------------------------


def test_a_commands_help_follows_ladder_language():
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "ladder.settings_local"}
    environment.pop("DATABASE_URL", None)
    environment["LADDER_LANGUAGE"] = "de"
    finished = subprocess.run(
        [sys.executable, "manage.py", "merge_players", "--help"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )

    assert finished.returncode == 0, finished.stderr
    said = " ".join(finished.stdout.split())  # argparse wraps the lines
    assert "Spieler OTHER_ID in Spieler KEEP_ID zusammenführen" in said
    assert "Der behaltene Spieler." in said


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_every_commands_help_is_built_in_the_active_language(language):
    for name, app in get_commands().items():
        if not app.startswith(("ladder", "ratings")):
            continue
        with translation.override(language):
            parser = load_command_class(app, name).create_parser("manage.py", name)
            assert parser.format_help()  # a lazy text would fail in argparse's formatter


@pytest.mark.django_db
def test_the_duplicate_finder_speaks_french():
    PlayerFactory(name="Ann Able", birth_year=1990, federation="NOR")
    PlayerFactory(name="Able, Ann", birth_year=1990, federation="NOR")
    out = StringIO()

    with translation.override("fr"):
        call_command("find_duplicates", stdout=out)

    assert "le même nom dans un autre ordre (Ann Able / Able, Ann)" in out.getvalue() or (
        "le même nom dans un autre ordre (Able, Ann / Ann Able)" in out.getvalue()
    )
    assert "1 paire de doublons probable." in out.getvalue()


@pytest.mark.django_db
def test_a_merge_refused_by_the_command_is_said_in_german():
    ann = PlayerFactory(name="Ann Able")

    with translation.override("de"), pytest.raises(CommandError) as refused:
        call_command("merge_players", str(ann.pk), str(ann.pk), "--reason", "Zweimal")

    assert str(refused.value) == (
        "OTHER_ID: Ein Spieler kann nicht mit sich selbst zusammengeführt werden."
    )


@pytest.mark.django_db
def test_the_fide_list_import_refuses_in_german(tmp_path):
    path = tmp_path / "players_list.txt"
    path.write_text("Name;Rating\nAnn;1500\n", encoding="utf-8")

    with translation.override("de"), pytest.raises(CommandError) as refused:
        call_command("import_fide_list", str(path))

    assert str(refused.value).startswith("Nichts wurde importiert.")
    assert "Das ist keine FIDE-Wertungsliste" in str(refused.value)


@pytest.mark.django_db
def test_the_club_import_refuses_in_french(tmp_path):
    path = tmp_path / "club.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")

    with translation.override("fr"), pytest.raises(CommandError) as refused:
        call_command("import_club", str(path))

    assert "Ce n’est pas un export de club Ladder" in str(refused.value)


@pytest.mark.django_db
def test_a_csv_import_names_its_problems_in_german(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("name,colour\nAnn Able,white\n", encoding="utf-8")

    with translation.override("de"), pytest.raises(CommandError) as refused:
        call_command("import_players", str(path))

    assert "Zeile 1, Spalte „colour“: Unbekannte Spalte; erwartet werden einige von:" in str(
        refused.value
    )


@pytest.mark.django_db
def test_a_trf_import_names_its_problems_in_french(tmp_path):
    path = tmp_path / "event.trf"
    path.write_text("012 Spring Open\n", encoding="utf-8")

    with translation.override("fr"), pytest.raises(CommandError) as refused:
        call_command("import_trf", str(path))

    assert "Le fichier n’a pas de ligne de joueur (001) ; est-ce un TRF ?" in str(refused.value)


@pytest.mark.django_db
def test_a_runs_summary_is_stored_in_english_and_said_in_the_readers_language():
    from ratings.models import RatingRun, RunStatus
    from ratings.runs import describe

    run = RatingRun.objects.create(
        rating_list="rapid",
        status=RunStatus.DONE,
        summary="2026-01 to 2026-03 recomputed: 5 players' ratings changed.",
    )
    assert describe(run) == "Rapid list: 2026-01 to 2026-03 recomputed: 5 players' ratings changed."
    with translation.override("de"):
        assert describe(run) == (
            "Liste Schnellschach: 2026-01 bis 2026-03 neu berechnet: die Wertungen von 5 Spielern "
            "haben sich geändert."
        )
    with translation.override("fr"):
        assert describe(run).startswith("Liste Rapide : du 2026-01 au 2026-03 recalculé")
