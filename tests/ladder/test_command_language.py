"""The commands speak the club's language: the active one (``LADDER_LANGUAGE`` sets it for a
shell; English by default), with the same sentences as every other door."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from ladder.records import RatingPeriod

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
