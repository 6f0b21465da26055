"""The players file's quick check: a row full_clean would refuse is never let through, so every
row gets full_clean's messages; and the CSV reader's fast road keeps its messages."""

from __future__ import annotations

from io import StringIO

import pytest

from ladder.exceptions import ImportFailed
from ladder.files import csv_import as importers
from ladder.files import csv_rows
from ladder.records import ImportedFile, Player
from ladder.writes.validation import players

pytestmark = pytest.mark.django_db

HEADER = (
    "name,fide_id,birth_year,sex,federation,title,rating,rated_games,peak_rating,rapid_rating\n"
)
ROWS = {
    "plain": "Alice Brown,1001,1980,F,ENG,WGM,2300,50,2350,",
    "a name in another script": "Zoë Ström,,1990,,,,,,,",
    "a name with a no-break space": "Ann\u00a0Lee,,,,,,,,,",
    "no name": ",1002,,,,,,,,",
    "a name too long": f"{'x' * 201},,,,,,,,,",
    "a name with an escape": "Bob\x1b,,,,,,,,,",
    "a name with an override": "Bob\u202eX,,,,,,,,,",
    "FIDE id 0": "Carl,0,,,,,,,,",
    "a birth year too early": "Dan,,1800,,,,,,,",
    "a birth year to come": "Dan,,2999,,,,,,,",
    "a sex": "Eve,,,X,,,,,,",
    "a federation too long": "Eve,,,,ENGL,,,,,",
    "a federation with a control character": "Eve,,,,E\x07,,,,,",
    "a title": "Fay,,,,,XM,,,,",
    "a rating below the floor": "Gus,,,,,,1300,,,",
    "a rating above the top": "Gus,,,,,,3600,,,",
    "a peak below the rating": "Hal,,,,,,2000,10,1900,",
    "rated games out of range": "Ian,,,,,,,200000,,",
    "a rapid rating below the floor": "Jo,,,,,,,,,1000",
    "not a number": "Kim,abc,19x0,,,,,,,",
}


def refusal(text: str) -> str:
    try:
        importers.import_players(StringIO(text))
    except ImportFailed as error:
        return str(error)
    return ""


@pytest.mark.parametrize("kind", ROWS)
def test_a_players_row_gets_full_cleans_messages(kind, monkeypatch):
    text = HEADER + ROWS[kind] + "\n"

    quick = refusal(text)
    Player.objects.all().delete()
    ImportedFile.objects.all().delete()
    monkeypatch.setattr(players, "_plainly_valid", lambda player: False)  # full_clean, always

    assert quick == refusal(text)
    assert bool(quick) == (kind not in {"plain", "a name in another script",
                                        "a name with a no-break space"})  # fmt: skip


def test_the_csv_reader_names_short_long_and_nul_rows():
    text = "name,fide_id\nAnn,1\nBob\nCy,3,extra\nD\x00n,4\n\nEve,5\n"

    with pytest.raises(ImportFailed) as refused:
        importers.import_players(StringIO(text))

    assert [str(e) for e in refused.value.errors] == [
        "line 4: " + csv_rows._too_many(3, 2),
        "line 5, column 'name': Contains a NUL character; save the file as UTF-8 text.",
    ]
