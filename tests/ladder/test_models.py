"""Records: database constraints and model validation give clear, field-named errors."""

from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from ladder.records import Game, Player, RatingPeriod, Result
from ladder.writes import actions
from ladder.writes.validation import GameEntry, PlayerLookup
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def test_database_refuses_self_play():
    player = PlayerFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(date=date(2026, 3, 1), white=player, black=player, result="1-0")


def test_database_refuses_an_unknown_result():
    with pytest.raises(IntegrityError), transaction.atomic():
        GameFactory(result="2-0")


def test_database_refuses_an_entry_rating_above_3500():
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerFactory(entry_rating=3600)


def test_database_refuses_a_duplicate_fide_id():
    PlayerFactory(fide_id=123)
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerFactory(fide_id=123)


def test_database_refuses_a_period_that_ends_before_it_starts():
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingPeriod.objects.create(label="x", start=date(2026, 3, 2), end=date(2026, 3, 1))


def record(**fields):
    return actions.enter_games(games=[GameEntry(**fields)])


def test_self_play_is_a_field_error():
    player = PlayerFactory()
    with pytest.raises(ValidationError) as error:
        record(date=date(2026, 3, 1), white=player, black=player, result="1-0")
    assert error.value.message_dict["black"] == ["A player cannot play themselves."]
    assert not Game.objects.exists()


def test_unknown_result_is_a_field_error():
    with pytest.raises(ValidationError) as error:
        record(date=date(2026, 3, 1), white=PlayerFactory(), black=PlayerFactory(), result="2-0")
    assert "result" in error.value.message_dict


def test_missing_date_is_a_field_error():
    with pytest.raises(ValidationError) as error:
        record(date=None, white=PlayerFactory(), black=PlayerFactory(), result="1-0")
    assert "date" in error.value.message_dict


def test_birth_year_in_the_future_and_entry_rating_range():
    player = Player(name="Future", birth_year=2999, entry_rating=3600)
    with pytest.raises(ValidationError) as error:
        player.full_clean()
    assert "is in the future" in error.value.message_dict["birth_year"][0]
    assert "entry_rating" in error.value.message_dict


def test_duplicate_fide_id_is_a_field_error():
    PlayerFactory(fide_id=4100001)
    with pytest.raises(ValidationError) as error:
        Player(name="Twin", fide_id=4100001).full_clean()
    assert "fide_id" in error.value.message_dict


def test_overlapping_periods_are_refused():
    PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    period = RatingPeriod(label="spring", start=date(2026, 3, 15), end=date(2026, 4, 15))
    with pytest.raises(ValidationError, match="overlaps 2026-03"):
        period.full_clean()


def test_a_game_creates_the_period_of_its_month():
    game = GameFactory(date=date(2026, 2, 14))
    assert (game.period.label, game.period.start, game.period.end) == (
        "2026-02",
        date(2026, 2, 1),
        date(2026, 2, 28),
    )


def test_a_game_in_a_month_partly_covered_by_a_custom_period_is_refused():
    RatingPeriod.objects.create(label="custom", start=date(2026, 3, 15), end=date(2026, 4, 14))
    with pytest.raises(ValidationError, match="would overlap custom"):
        GameFactory(date=date(2026, 4, 20))


@pytest.mark.parametrize(
    ("text", "code"),
    [("1-0", "1-0"), ("½-½", "1/2-1/2"), ("0.5-0.5", "1/2-1/2"), ("=", "1/2-1/2"),
     ("1/2", "1/2-1/2"), ("+/-", "+/-"), ("-/+", "-/+"), ("0-0", "0-0"), (" 0-1 ", "0-1")],
)  # fmt: skip
def test_results_as_people_type_them(text, code):
    assert Result.parse(text) == code


def test_an_unknown_result_names_the_accepted_ones():
    with pytest.raises(ValueError, match="use 1-0, 0-1, 1/2-1/2"):
        Result.parse("2-0")


def test_player_lookup_by_fide_id_name_and_ambiguity():
    alice = PlayerFactory(name="Alice Brown", fide_id=77)
    PlayerFactory(name="Bob")
    PlayerFactory(name="Bob")
    lookup = PlayerLookup.load()
    assert lookup.find("77") == alice
    assert lookup.find("  alice   BROWN ") == alice
    assert lookup.find("Alice Brown (77)") == alice
    with pytest.raises(LookupError, match="Several players are named 'Bob'"):
        lookup.find("Bob")
    with pytest.raises(
        LookupError, match="No player is named 'Alise Brown'. Did you mean 'Alice Brown'"
    ):
        lookup.find("Alise Brown")


@pytest.mark.parametrize("text", ["²", "٧٧", "99999999999999999999999", "0"])
def test_player_lookup_refuses_what_only_looks_like_a_fide_id(text):
    PlayerFactory(name="Alice", fide_id=77)
    # Other digits than 0-9 are no FIDE id at all (one parser, every door); the rest name none.
    refused = "No player (has the FIDE id|is named)|is not a FIDE id: write a whole number"
    with pytest.raises(LookupError, match=refused):
        PlayerLookup.load().find(text)
