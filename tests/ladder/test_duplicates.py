"""The duplicate finder (``ladder.records.duplicates``) and the find_duplicates command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ladder.records import duplicates
from ladder.records.duplicates import Person, find_duplicates
from ladder.writes import actions
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def pairs(found: list[duplicates.Candidate]) -> set[frozenset[str]]:
    return {frozenset((c.first.name, c.second.name)) for c in found}


def test_it_finds_typos_reversed_names_transliterations_and_a_fide_id_on_one():
    PlayerFactory(name="Magnus Carlsen", birth_year=1990, federation="NOR", fide_id=1503014)
    PlayerFactory(name="Magnus Carslen", birth_year=1990, federation="NOR")
    PlayerFactory(name="Able, Ann", birth_year=1980, federation="ENG")
    PlayerFactory(name="Ann Able", birth_year=1980, federation="ENG")
    PlayerFactory(name="Иванчук Василий", birth_year=1969, federation="UKR")
    PlayerFactory(name="Ivanchuk, Vasiliy", birth_year=1969, federation="UKR")
    PlayerFactory(name="Bob Best", birth_year=1970, federation="ENG")
    found = {frozenset((c.first.name, c.second.name)): c for c in find_duplicates()}
    assert set(found) == {
        frozenset(("Magnus Carlsen", "Magnus Carslen")),
        frozenset(("Able, Ann", "Ann Able")),
        frozenset(("Иванчук Василий", "Ivanchuk, Vasiliy")),
    }
    carlsen = found[frozenset(("Magnus Carlsen", "Magnus Carslen"))]
    assert carlsen.evidence[0] == "close names (Magnus Carlsen / Magnus Carslen: 93% alike)"
    assert "both born in 1990" in carlsen.evidence
    only = f"only Magnus Carlsen (#{carlsen.first.pk}) has a FIDE id (1503014)"
    assert only in carlsen.evidence
    able = found[frozenset(("Able, Ann", "Ann Able"))]
    assert able.evidence[0] == "the same name in another order (Able, Ann / Ann Able)"
    assert able.score == 100
    ivanchuk = found[frozenset(("Иванчук Василий", "Ivanchuk, Vasiliy"))]
    assert ivanchuk.evidence[0] == (
        "close names, transliterated (Иванчук Василий / Ivanchuk, Vasiliy: 94% alike)"
    )
    PlayerFactory(name="Ivanchuk Vasilii", birth_year=1969, federation="UKR")
    spelled = [c for c in find_duplicates() if "Ivanchuk Vasilii" in (c.first.name, c.second.name)]
    assert "the same name transliterated (Иванчук Василий / Ivanchuk Vasilii)" in [
        c.evidence[0] for c in spelled
    ]


def test_records_that_say_two_people_are_not_proposed():
    PlayerFactory(name="Ann Able", fide_id=1, birth_year=1980)
    PlayerFactory(name="Ann Able", fide_id=2, birth_year=1980)  # FIDE: two people
    PlayerFactory(name="Cat Cole", birth_year=1980)
    PlayerFactory(name="Cat Cole", birth_year=1981)  # born in different years
    PlayerFactory(name="Dan Dale", sex="M")
    PlayerFactory(name="Dan Dale", sex="F")
    assert find_duplicates() == []


def test_the_same_name_is_found_whatever_else_is_missing():
    PlayerFactory(name="Eve Ezra", birth_year=None, federation="", fide_id=77)
    PlayerFactory(name="EVE  ezra", birth_year=1999, federation="FRA")
    (found,) = find_duplicates()
    assert found.evidence[0] == "the same name"


def test_not_a_duplicate_is_remembered_and_merged_records_leave(committed):
    ann = PlayerFactory(name="Ann Able", birth_year=1980)
    ann2 = PlayerFactory(name="Ann Abel", birth_year=1980)
    cat = PlayerFactory(name="Cat Cole", birth_year=1980)
    cat2 = PlayerFactory(name="Cole, Cat", birth_year=1980)
    assert pairs(find_duplicates()) == {
        frozenset(("Ann Able", "Ann Abel")),
        frozenset(("Cat Cole", "Cole, Cat")),
    }
    actions.mark_not_duplicate(first=ann2, second=ann, note="Twins")
    actions.mark_not_duplicate(first=ann, second=ann2)  # said twice is said once
    assert pairs(find_duplicates()) == {frozenset(("Cat Cole", "Cole, Cat"))}
    with committed():
        actions.merge_players(keep=cat.pk, other=cat2.pk, reason="Entered twice")
    assert find_duplicates() == []


def test_it_never_compares_every_pair():
    """A large club: the comparisons made are those within blocks, far fewer than all pairs."""
    first = [
        "Ann",
        "Bob",
        "Cat",
        "Dan",
        "Eve",
        "Fay",
        "Gus",
        "Hal",
        "Ida",
        "Jon",
        "Kim",
        "Lea",
        "Max",
    ]
    parts = ["ka", "lo", "mi", "ne", "pu", "ro", "sa", "ti", "vo", "we", "ya", "zu", "br", "tr"]
    people = [
        Person(
            pk,
            f"{first[pk * 5 % 13]} {parts[pk % 14]}{parts[pk // 14 % 14]}{parts[pk // 196 % 14]}",
            None,
            1950 + pk * 7 % 61,
            ["ENG", "NOR", "GER"][pk // 5 % 3],
            "",
        )
        for pk in range(1, 6001)
    ]
    assert duplicates.comparisons(people) < 6000 * 5999 // 2 // 1000  # a thousandth of all
    planted = Person(9999, people[0].name.replace("a", "e", 1), None, people[0].birth_year,
                     people[0].federation, "")  # fmt: skip
    found = {(c.first.pk, c.second.pk) for c in find_duplicates([*people, planted])}
    assert (people[0].pk, planted.pk) in found


def test_the_command_lists_pairs_and_refuses_bad_options():
    PlayerFactory(name="Ann Able", birth_year=1980, federation="ENG")
    PlayerFactory(name="Able, Ann", birth_year=1980, federation="ENG")
    out = StringIO()
    call_command("find_duplicates", stdout=out)
    assert "100  #" in out.getvalue()
    assert out.getvalue().strip().endswith("1 likely duplicate pair.")
    out = StringIO()
    call_command("find_duplicates", "--format", "csv", stdout=out)
    assert out.getvalue().splitlines()[0] == "score,id,name,other_id,other_name,evidence"
    with pytest.raises(CommandError, match="--min-score: A score lies between 0 and 100."):
        call_command("find_duplicates", "--min-score", "101")
