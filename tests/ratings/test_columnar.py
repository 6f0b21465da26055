"""The rated players' rows written as columns (ratings.recompute.columns, bulk.insert_columns)."""

from datetime import date

import numpy as np
import pytest

from ladder.records import Player, RatingPeriod
from ratings.exceptions import StorageError
from ratings.models import RatingChange
from ratings.recompute import bulk, columns, reached, rows
from ratings.recompute import states as opening
from ratings.rules import engine
from ratings.rules.fide import KFactor
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

AWKWARD = "event:Tab\there, back\\slash, new\nline, CR\r, \\N, Zürich"


def three_rated(
    ids: list[int], opening: list[engine.PlayerState], ks: list[KFactor]
) -> engine.RatedColumns:
    """A period's results for three rated players: a win (+20), a loss that takes the second
    below the floor (1373), and no rated game."""
    return engine.RatedColumns(
        ids=ids,
        opening=engine.StateColumns.of(opening),
        k=np.array([k.value for k in ks]),
        k_reason=[k.reason for k in ks],
        games=np.array([2, 1, 0]),
        score=np.array([2000, 0, 0]),
        expected=np.array([1000, 800, 0]),
        applied=np.array([20, 40, 10]),
        exact=np.array([20000, -32000, 0]),
        change=np.array([20, -32, 0]),
        after=np.array([1820, 1373, 2410]),
        peak=np.array([1900, 1373, 2450]),
        last=np.array([date(2026, 2, 9).toordinal(), date(2026, 2, 3).toordinal(), -1]),
        performance=[2100, None, None],
        opponents=np.array([2600, 1600, 0]),
    )


def test_rated_columns_store_what_the_rows_of_the_results_store():
    """Text needing COPY escapes, NULLs, dates and a player below the floor come back equal."""
    period = RatingPeriod.objects.for_date(date(2026, 2, 10))
    players = PlayerFactory.create_batch(3)
    opening = [
        engine.PlayerState(1800, 50, 1900, 1980, date(2026, 1, 5), (), AWKWARD),
        engine.PlayerState(1405, 10, None, None, None, (), None),
        engine.PlayerState(2410, 300, 2450, 1970, None, (), "event:\\"),
    ]
    ks = [KFactor(20, "50 rated games, never 2400+"), KFactor(40, "tab\there"), KFactor(10, "")]
    rated = three_rated([p.pk for p in players], opening, ks)
    written = columns.insert_rated(RatingChange, rows.ROW_COLUMNS, period.pk, rated, "standard")

    assert written == 3
    expected = {
        pid: rows.comparable(rows.change_row(pid, period, result, "standard"))
        for pid, result in zip(rated.ids, engine.rated_results(rated), strict=True)
    }
    reads = reached.RunReads([period], "standard")
    assert reads.period(period, set(), set(rated.ids))[2] == expected
    assert expected[players[0].pk][rows.ROW_COLUMNS.index("first_event")] == AWKWARD
    assert expected[players[1].pk][rows.ROW_COLUMNS.index("status")] == "below_floor"


def test_copy_value_rejects_what_it_cannot_write():
    assert bulk._copy_value(None) == "\\N"
    assert bulk._copy_value("a\tb\\") == "a\\tb\\\\"
    with pytest.raises(TypeError):
        bulk._copy_value(1.5)


def test_the_entry_states_as_columns_are_the_states_as_columns():
    """A full recompute reads the opening states as columns straight from the entry data;
    they equal the columns of the states built one by one, held (carried) states included."""
    players = [
        PlayerFactory(rapid_entry_rating=1650, rapid_entry_rated_games=12,
                      rapid_entry_peak_rating=1700, birth_year=2012),
        PlayerFactory(rapid_entry_rating=2410, rapid_entry_rated_games=300, birth_year=None),
        PlayerFactory(rapid_entry_rating=None, rapid_entry_rated_games=0),
        PlayerFactory(rapid_entry_rating=1500, rapid_entry_rated_games=40),
    ]  # fmt: skip
    table = opening.EntryTable(["standard", "rapid"])
    states = opening.EntryStates(table, "rapid")
    carried = engine.PlayerState(1544, 51, 1560, 1990, date(2026, 1, 30), (), "event:Open")
    states[players[3].pk] = carried
    ids = np.array(sorted(p.pk for p in players))

    expected = engine.StateColumns.of([states[pid] for pid in ids.tolist()])
    found = states.state_columns(ids)

    for mine, theirs in zip(found[:5], expected[:5], strict=True):
        assert mine.tolist() == theirs.tolist()
    assert found.first_event == expected.first_event
    assert found.take(np.array([3])).state(0) == carried


def test_the_entry_states_carry_what_a_period_leaves_as_its_results_say():
    """A replay carries the rated players' closing states as columns (``put_rated``) and the
    others' as objects (``put_states``): each state read back is the one its result holds,
    a player below the floor, a held pool and a first event included."""
    players = PlayerFactory.create_batch(4, entry_rating=None, entry_rated_games=0)
    born = [p.birth_year for p in players]  # a state's birth year is the player's
    table = opening.EntryTable(["standard"])
    states = opening.EntryStates(table, "standard")
    pool = (engine.PoolGame(date(2026, 1, 3), "event:Open", 1700, 10_000),)
    held = engine.PlayerState(None, 0, None, born[0], date(2026, 1, 3), pool, "event:Open")
    states.put_states({players[0].pk: held})
    assert states[players[0].pk] == held
    assert players[0].pk in states
    opening_states = [
        engine.PlayerState(1800, 50, 1900, born[0], date(2026, 1, 5), (), AWKWARD),
        engine.PlayerState(1405, 10, None, born[1], None, (), None),
        engine.PlayerState(2410, 300, 2450, born[2], None, (), "event:\\"),
    ]
    ks = [KFactor(20, ""), KFactor(40, ""), KFactor(10, "")]
    rated = three_rated([p.pk for p in players[:3]], opening_states, ks)

    states.put_rated(rated)

    expected = [result.state for result in engine.rated_results(rated)]
    assert [states[pid] for pid in rated.ids] == expected
    assert players[0].pk not in states  # held as columns now, the pool gone with the rating
    assert states[players[1].pk].rating is None  # below the floor: unrated on the next list
    ids = np.array(sorted(p.pk for p in players))
    found = states.state_columns(ids)
    want = engine.StateColumns.of([states[pid] for pid in ids.tolist()])
    for mine, theirs in zip(found, want, strict=True):
        assert list(mine) == list(theirs)


def test_int_columns_come_back_as_stored():
    """bulk.fetch_int_columns (packed in pairs on PostgreSQL): NULL as -1, odd counts of
    columns, the largest int4."""
    from ladder.records import Player

    PlayerFactory(entry_rating=None, birth_year=None, entry_rated_games=0)
    PlayerFactory(entry_rating=3500, birth_year=2016, entry_rated_games=100_000)
    Player.objects.filter(pk=PlayerFactory().pk).update(rated_games=2**31 - 1)
    for names in (["birth_year"], ["entry_rating", "birth_year", "rated_games"]):
        ids, values = bulk.fetch_int_columns(Player, names)
        found = dict(zip(ids.tolist(), map(tuple, values.tolist()), strict=True))
        stored = {
            pk: tuple(-1 if v is None else v for v in rest)
            for pk, *rest in Player.objects.values_list("pk", *names)
        }
        assert found == stored


def test_bulk_statements_refuse_what_is_not_a_column_with_a_sentence():
    """A real check, not an ``assert`` (which ``python -O`` strips): the statements are built
    from the model's columns only."""
    with pytest.raises(StorageError) as caught:
        bulk.insert_rows(Player, ["games_as_white"], [])
    assert str(caught.value) == "games_as_white is not a column of the table ladder_player."
    with pytest.raises(StorageError, match="games_as_white is not a column"):
        bulk.update_rows(Player, ["games_as_white"], [(1, 2)])


@pytest.mark.parametrize(
    "ids",
    [[], [7], [3, 1, 2], [True, np.int64(2**40), np.int32(-5)], list(range(1, 3000))],
    ids=["none", "one", "unsorted", "other integers", "many"],
)
def test_int_arrays_are_read_as_the_ids_given(ids):
    """bulk.int_array: the text of an integer array, as the recompute's and the history's
    statements read it (``%s::bigint[]``); on SQLite, what ``among`` fills its table with."""
    from django.db import connection

    from ratings.recompute import storage

    made = [PlayerFactory().pk for _ in range(3)]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT x FROM unnest(%s::bigint[]) AS x", [bulk.int_array(ids)])
            assert [row[0] for row in cursor.fetchall()] == [int(i) for i in ids]
    wanted = {int(i) for i in ids} | {made[0]}
    found = Player.objects.filter(storage.among(wanted, "id")).values_list("pk", flat=True)
    assert set(found) == {made[0]} | (set(made) & wanted)


def test_an_int_array_is_integers_only():
    with pytest.raises(ValueError, match="invalid literal"):
        bulk.int_array(["1}, {2"])
