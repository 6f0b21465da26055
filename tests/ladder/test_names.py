"""Names: the keys every door matches by, look-alikes, and the close names rapidfuzz finds."""

from __future__ import annotations

import pytest

from ladder.records.names import (
    close_matches,
    invisible_characters,
    look_alike_letters,
    name_key,
    name_keys,
    search_key,
    skeleton,
)

CYRILLIC_E = "\u0435"


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("ivancuk, vassily", "  Ivančuk, VASSILY "),  # case, accents, spacing
        (f"G{CYRILLIC_E}n Player", "Gen Player"),  # a look-alike letter of another script
        ("Gen\u200b Player", "Gen Player"),  # a zero-width space
        ("\ufeffGen Player\u200e", "Gen Player"),  # a byte order mark, a direction mark
        ("Ｇｅｎ Player", "Gen Player"),  # full-width letters
    ],
)
def test_one_name_key(typed, stored):
    assert name_key(typed) == name_key(stored)


def test_names_in_another_script_keep_their_letters():
    assert name_key("Иванчук, Василий") == "иванчук, василии"
    assert look_alike_letters("Иванчук, Василий") == []
    assert skeleton("Иванчук, Василий") == "Иванчук, Василий"


def test_turned_round():
    assert name_keys("Carlsen, Magnus") == {"carlsen, magnus", "magnus carlsen"}


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Иванчук, Василий", "ivanchuk vasiliy"),  # transliterated
        ("Müller-Thurgau, Jürgen", "muller thurgau jurgen"),
        ("O'Brien", "o brien"),
        ("李 小龍", "li xiaolong"),
        (f"G{CYRILLIC_E}n  Player\u200b", "gen player"),
    ],
)
def test_search_key(name, key):
    assert search_key(name) == key


def test_look_alike_letters_and_invisible_characters():
    assert look_alike_letters(f"G{CYRILLIC_E}n Player") == [CYRILLIC_E]
    assert look_alike_letters("\u0420\u0430\u0443 Smith") == ["\u0420", "\u0430", "\u0443"]
    assert look_alike_letters("Gen Player") == []
    assert invisible_characters("G\u200ben\u200b Pl\u00adayer") == ["\u200b", "\u00ad"]
    assert skeleton("\u0420\u0430\u0443 Smith") == "Pay Smith"


NAMES = ["Carlsen, Magnus", "Nakamura, Hikaru", "Иванчук, Василий", "Müller, Thomas", "Giri, Anish"]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("carlsen magnus", "Carlsen, Magnus"),  # case, punctuation
        ("Magnus Carlsen", "Carlsen, Magnus"),  # order
        ("Carslen, Magnus", "Carlsen, Magnus"),  # two letters swapped
        ("Karlsen Magnus", "Carlsen, Magnus"),  # sounds the same
        ("Hikaru Nakamuar", "Nakamura, Hikaru"),
        ("Ivanchuk Vasily", "Иванчук, Василий"),  # transliterated
        ("Muller Thomas", "Müller, Thomas"),  # no accent
    ],
)
def test_close_matches_forgive_what_people_type(typed, meant):
    assert close_matches(typed, NAMES, n=1) == [meant]


def test_close_matches_are_close():
    assert close_matches("Zebedee Quux", NAMES) == []
    assert close_matches("", NAMES) == []
