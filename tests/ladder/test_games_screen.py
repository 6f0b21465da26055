"""The games file screen: the very problems the validator finds, found without building a game,
in a number of queries that does not grow with the file."""

from __future__ import annotations

from datetime import date
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.exceptions import FileProblem, ImportFailed
from ladder.files import csv_import as importers
from ladder.files import games_screen
from ladder.records import Game, PeriodStatus, closed_message
from ladder.writes.validation import check_games, raise_for
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

HEADER = "date,white,black,result,event,round,list,time_control\n"
# Each kind of bad row the validator refuses, as a file would hold it.
BAD_ROWS = {
    "not a date": "2026-13-45,1001,1002,1-0,,,,",
    "no date": ",1001,1002,1-0,,,,",
    "unknown FIDE id": "2026-03-02,9999,1002,1-0,,,,",
    "unknown name": "2026-03-02,Alice Browne,1002,1-0,,,,",
    "two players of that name": "2026-03-02,Dan Same,1002,1-0,,,,",
    "no white": "2026-03-02,,1002,1-0,,,,",
    "no black": "2026-03-02,1001,,1-0,,,,",
    "plays themselves": "2026-03-02,1001,Alice Brown,1-0,,,,",
    "not a result": "2026-03-02,1001,1002,2-0,,,,",
    "no result": "2026-03-02,1001,1002,,,,,",
    "not a list": "2026-03-02,1001,1002,1-0,,,classical,",
    "not a time control": "2026-03-02,1001,1002,1-0,,,,90 minutes",
    "time control of another list": "2026-03-02,1001,1002,1-0,,,standard,3+2",
    "too fast for the players": "2026-03-02,1003,1001,1-0,,,,60+0",
    "event too long": f"2026-03-02,1001,1002,1-0,{'x' * 201},,,",
    "event with a control character": "2026-03-02,1001,1002,1-0,Open\x1b,,,",
    "round too long": f"2026-03-02,1001,1002,1-0,,{'9' * 21},,",
    "round with an override character": "2026-03-02,1001,1002,1-0,,\u202e1,,",
    "before 1900": "1899-12-31,1001,1002,1-0,,,,",
    "still to come": "2027-05-01,1001,1002,1-0,,,,",
    "closed period": "2026-02-10,1001,1002,1-0,,,,",
    "before a published list": "2026-01-15,1001,1002,1-0,,,,",
    "month overlapping a period": "2026-05-02,1001,1002,1-0,,,,",
    "already recorded": "2026-03-14,1001,1002,0-1,,,,",
    "repeated in the file": "2026-03-01,1002,1001,1-0,Club,0,,",
    "several problems": "2026-03-02,Nobody,1002,5-5,,,fast,",
}
# Rows the screen takes a slower road for, and lets through.
GOOD_ROWS = {
    "round in another script": "2026-03-02,1001,1002,1-0,,Runde 1 – ä,,",
    "time control": "2026-03-02,1003,1001,1-0,,,,120+30",
    "rapid list": "2026-03-02,1001,1002,1/2-1/2,,,rapid,15+10",
    "standard time control at 1800": "2026-03-02,1001,1002,1-0,,,,90+0",
}


@pytest.fixture
def club():
    """Players by FIDE id 1001-1005 (1003 rated 2500; two named Dan Same), March 2026 open
    with Alice - Bob on the 14th, February closed, January without a period, and a period
    inside May."""
    PlayerFactory(name="Alice Brown", fide_id=1001)
    PlayerFactory(name="Bob Green", fide_id=1002)
    PlayerFactory(name="Carol Strong", fide_id=1003, entry_rating=2500, entry_peak_rating=2500)
    PlayerFactory(name="Dan Same", fide_id=1004)
    PlayerFactory(name="Dan Same", fide_id=1005)
    feb = PeriodFactory(label="2026-02", start=date(2026, 2, 1), end=date(2026, 2, 28))
    feb.status = PeriodStatus.CLOSED
    feb.save()
    PeriodFactory(label="2026-05-mid", start=date(2026, 5, 10), end=date(2026, 5, 20))
    alice, bob = (PlayerFactory._meta.model.objects.get(fide_id=i) for i in (1001, 1002))
    GameFactory(date=date(2026, 3, 14), white=alice, black=bob)
    return feb


def games_file(last: str, *, rows: int, control: str = "") -> str:
    """A games file of ``rows`` good games (distinct rounds; ``control``: their time control)
    and then ``last``."""
    good = [f"2026-03-{1 + i % 28:02d},1002,1001,1-0,Club,{i},,{control}" for i in range(rows)]
    return HEADER + "\n".join([*good, last]) + "\n"


def found_by_validator(text: str) -> list[FileProblem]:
    """What the import found before the screen: the reader, then ``check_games``."""
    entries: list = []
    try:
        entries = importers.read_games(StringIO(text))
        raise_for(check_games(entries))
    except ImportFailed as error:
        return error.errors
    except ValidationError as error:
        return importers.failure(error, entries).errors
    return []


def found_by_screen(text: str) -> list[FileProblem]:
    try:
        games_screen.screen_games(StringIO(text))
    except ImportFailed as error:
        return error.errors
    return []


@pytest.mark.usefixtures("club")
@pytest.mark.parametrize("rows", [1, 1100], ids=["small file", "big file"])
@pytest.mark.parametrize("kind", [*BAD_ROWS, *GOOD_ROWS])
def test_the_screen_finds_what_the_validator_finds(kind, rows):
    text = games_file(BAD_ROWS.get(kind) or GOOD_ROWS[kind], rows=rows)

    found = found_by_screen(text)

    assert found == found_by_validator(text)
    assert bool(found) == (kind in BAD_ROWS)


@pytest.mark.usefixtures("club")
@pytest.mark.parametrize(
    ("last", "bad"),
    [
        (BAD_ROWS["too fast for the players"], True),
        ("2026-03-02,1003,1001,1-0,,,,120+30", False),
        ("2026-03-01,1002,1001,1-0,Club,0,,90+30", True),  # repeats the first row
    ],
)
def test_a_file_of_timed_games_gets_the_validators_messages(last, bad):
    text = games_file(last, rows=1100, control="90+30")

    found = found_by_screen(text)

    assert found == found_by_validator(text)
    assert bool(found) == bad


@pytest.mark.usefixtures("club")
@pytest.mark.parametrize("rows", [0, 1100], ids=["small file", "big file"])
def test_every_kind_of_bad_row_at_once_gets_the_validators_messages(rows, settings):
    bad = [row for kind, row in BAD_ROWS.items() if "date" not in kind]
    text = games_file("\n".join([*bad, *GOOD_ROWS.values()]), rows=rows)

    assert found_by_screen(text) == found_by_validator(text)
    settings.LADDER_LISTS = ["standard"]  # and a list the club does not keep
    text = games_file("2026-03-02,1001,1002,1-0,,,blitz,", rows=rows)
    assert found_by_screen(text) == found_by_validator(text) != []


@pytest.mark.parametrize(
    ("kind", "column", "message"),
    [
        ("not a date", "date", "'2026-13-45' is not a date in the form YYYY-MM-DD."),
        ("not a result", "result",
         "'2-0' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0."),
        ("unknown FIDE id", "white", "No player has the FIDE id 9999."),
        ("unknown name", "white",
         "No player is named 'Alice Browne'. Did you mean 'Alice Brown'?"),
        ("plays themselves", "black", "A player cannot play themselves."),
        ("already recorded", "",
         "This game is already recorded: Alice Brown - Bob Green 1-0 on 2026-03-14 (game #{pk})."),
        ("repeated in the file", "", "This game repeats line 2."),
        ("closed period", "date", None),
    ],
)  # fmt: skip
def test_a_bad_last_row_of_a_big_file_is_refused_and_nothing_is_written(
    club, kind, column, message
):
    text = games_file(BAD_ROWS[kind], rows=1100)
    before = Game.objects.count()

    with pytest.raises(ImportFailed) as refused:
        importers.import_games(StringIO(text))

    message = (message or closed_message(club)).format(pk=Game.objects.get().pk)
    assert refused.value.errors == [FileProblem(1102, column, message)]
    assert Game.objects.count() == before


@pytest.mark.usefixtures("club")
@pytest.mark.parametrize("kind", ["not a result", "closed period", "already recorded", None])
def test_a_file_is_screened_in_queries_that_do_not_grow_with_it(kind):
    counts = []
    for rows in (1100, 5000):
        last = BAD_ROWS[kind] if kind else "2026-03-30,1001,1002,1-0,,,,"
        with CaptureQueriesContext(connection) as queries:
            found_by_screen(games_file(last, rows=rows))
        counts.append(len(queries))

    assert counts[0] == counts[1] <= 3


@pytest.mark.usefixtures("club")
@pytest.mark.parametrize(
    "kind", ["not a date", "unknown FIDE id", "closed period", "repeated in the file"]
)
def test_an_import_is_refused_in_queries_that_do_not_grow_with_the_file(kind):
    counts = []
    for rows in (1100, 5000):
        with (
            CaptureQueriesContext(connection) as queries,
            pytest.raises(ImportFailed),
        ):
            importers.import_games(StringIO(games_file(BAD_ROWS[kind], rows=rows)))
        counts.append(len(queries))

    assert counts[0] == counts[1] <= 8
