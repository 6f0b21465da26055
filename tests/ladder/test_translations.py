"""The translations are complete: every message of the pages, the admin, the API and the
commands has a German and a French translation, none left fuzzy, none whose placeholders differ
from the English, and nothing in the code that the catalogues do not hold yet.

The last check runs Django's ``makemessages`` over a copy of the sources (it writes into the
locale directory it finds, so never over the real one) and compares what it gathered with the
committed catalogues: a new or changed English text fails here until ``make messages`` and a
translation have been committed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
# What makemessages reads: the code and the templates (the tests and scripts hold no message).
SOURCES = ("ladder", "ratings", "templates", "manage.py")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|%[sdif]|\{(\w*)\}")


def catalogue(code: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / code / "LC_MESSAGES" / "django.po"))


def placeholders(text: str, flags: list[str]) -> list[str]:
    if "python-format" not in flags and "python-brace-format" not in flags:
        return []
    return sorted(match.group(0) for match in PLACEHOLDER.finditer(text))


def test_the_languages_are_english_german_and_french():
    assert [code for code, _ in settings.LANGUAGES] == ["en", "de", "fr"]
    assert settings.LANGUAGE_CODE == "en"


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(code):
    po = catalogue(code)
    entries = [entry for entry in po if not entry.obsolete]

    assert len(entries) > 400  # the pages, the admin, the API and the commands
    assert not po.metadata_is_fuzzy
    assert po.metadata["Language"] == code
    assert [entry.msgid for entry in entries if entry.fuzzy] == []
    assert [entry.msgid for entry in entries if not entry.translated()] == []
    assert [entry.msgid for entry in po.obsolete_entries()] == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_keeps_the_placeholders_of_its_message(code):
    wrong = []
    for entry in catalogue(code):
        english = placeholders(entry.msgid, entry.flags)
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in translations:
            if placeholders(text, entry.flags) != english:
                wrong.append((entry.msgid, text))
    assert wrong == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_is_not_the_english_left_in_place(code):
    # A few words are the same in both languages (names, "Elo", "Performance", "Bullet"...):
    # short ones are allowed; a sentence left in English is not.
    same = [
        entry.msgid
        for entry in catalogue(code)
        if entry.msgstr == entry.msgid and len(entry.msgid.split()) > 3 and not entry.msgctxt
    ]
    assert same == []


def test_makemessages_finds_no_message_the_catalogues_lack(tmp_path):
    copy = tmp_path / "src"
    copy.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    (copy / "locale").mkdir()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "ladder.settings_local"}
    environment.pop("DATABASE_URL", None)  # makemessages reads no database
    command = [sys.executable, "manage.py", "makemessages", "--no-obsolete"]
    command += [f"--locale={code}" for code in LANGUAGES]
    finished = subprocess.run(
        command, cwd=copy, env=environment, capture_output=True, text=True, timeout=120
    )
    assert finished.returncode == 0, finished.stderr
    for code in LANGUAGES:
        gathered = polib.pofile(str(copy / "locale" / code / "LC_MESSAGES" / "django.po"))
        found = {(entry.msgctxt, entry.msgid) for entry in gathered}
        held = {(entry.msgctxt, entry.msgid) for entry in catalogue(code) if not entry.obsolete}
        assert sorted(found - held, key=str) == [], f"new messages, not in {code}: make messages"
        assert sorted(held - found, key=str) == [], f"messages no longer used, in {code}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_gettext_compiles_each_catalogue_and_checks_its_formats(code):
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU gettext's msgfmt is not installed (apt-get install gettext)")
    path = ROOT / "locale" / code / "LC_MESSAGES" / "django.po"
    finished = subprocess.run(
        [msgfmt, "--check", "--statistics", "-o", os.devnull, str(path)],
        capture_output=True,
        text=True,
    )
    assert finished.returncode == 0, finished.stderr
    assert "untranslated" not in finished.stderr
    assert "fuzzy" not in finished.stderr


def test_a_rules_sentence_follows_the_language_asked_each_time():
    # The translations of the rules' sentences are kept by text and language: asked again
    # in another language, a sentence is that language's, and English again after.
    from django.utils import translation

    from ladder.records.translations import rules_text
    from ratings.rules import fide

    reason = fide.k_factor(peak_rating=2512, rated_games=40, birth_year=1980, year=2026).reason
    written = {}
    for code in ["en", "de", "fr", "en", "de"]:
        with translation.override(code):
            written.setdefault(code, set()).add(rules_text(reason))

    assert written["en"] == {"published 2400+ (peak 2512), for good"}
    assert written["de"] == {"2400+ veröffentlicht (Höchstwert 2512), dauerhaft"}
    assert len(written["fr"]) == 1
    assert written["fr"] != written["en"]
    # A language named, not the active one: that language's, first asked or not.
    other = fide.k_factor(peak_rating=2513, rated_games=40, birth_year=1980, year=2026).reason
    assert rules_text(other, "de") == "2400+ veröffentlicht (Höchstwert 2513), dauerhaft"
    assert rules_text(other) == "published 2400+ (peak 2513), for good"
