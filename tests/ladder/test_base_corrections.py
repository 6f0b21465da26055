"""Base corrections (FIDE.md 10.1): FIDE started a tournament from a rating other than its
list's (2053 where the list said 2052); Ladder takes it as an input with a reason."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from ladder.records import BaseCorrection, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import RatingChange
from ratings.recompute.services import recompute_from
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(committed):
    """April 2025: Ann (2052) beats Bea (2052), K 20: +10 from the list."""
    ann = PlayerFactory(name="Ann Able", fide_id=501, entry_rating=2052, entry_rated_games=50,
                        birth_year=1980)  # fmt: skip
    bea = PlayerFactory(name="Bea Best", fide_id=502, entry_rating=2052, entry_rated_games=50,
                        birth_year=1980)  # fmt: skip
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2025, 4, 6), white=ann, black=bea, result="1-0")]
        )
    return ann, bea


def correct(*args: str) -> str:
    out = StringIO()
    call_command("base_correction", *args, stdout=out)
    return out.getvalue()


def test_the_change_follows_from_the_corrected_rating_and_a_full_replay_agrees(club, committed):
    ann, bea = club
    april = RatingPeriod.objects.get(label="2025-04")
    assert RatingChange.objects.get(player=ann, period=april).rating_after == 2062
    with committed():
        said = correct("501", "--month", "2025-04", "--rating", "2152", "--reason", "FIDE's Ro")
    assert "Ann Able (501) is rated from 2152 on the standard list in 2025-04: FIDE's Ro" in said
    row = RatingChange.objects.get(player=ann, period=april)
    # 2152 v 2052: D +100, PD .64; a win: 20 x .36 = +7.2 -> +7, from 2152.
    assert (row.rating_before, row.change, row.rating_after) == (2152, 7, 2159)
    bea_row = RatingChange.objects.get(player=bea, period=april)
    assert (bea_row.rating_before, bea_row.change) == (2052, -7)  # she meets the corrected Ann
    state = sorted(RatingChange.objects.values_list("player_id", "rating_before", "change"))
    recompute_from(None)
    assert sorted(RatingChange.objects.values_list("player_id", "rating_before", "change")) == (
        state
    )
    correction = BaseCorrection.objects.get()
    assert correction.history.count() == 1  # audited


def test_deleting_it_rates_from_the_list_again(club, committed):
    ann, _ = club
    with committed():
        correct("Ann Able", "--month", "2025-04", "--rating", "2152", "--reason", "Ro")
    with committed():
        correct("Ann Able", "--month", "2025-04", "--rating", "1", "--reason", "x", "--delete")
    assert RatingChange.objects.get(player=ann).rating_after == 2062
    assert not BaseCorrection.objects.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["999", "--month", "2025-04", "--rating", "2100", "--reason", "r"],
         "PLAYER: No player has the FIDE id 999."),
        (["501", "--month", "2025-13", "--rating", "2100", "--reason", "r"],
         "--month: No rating period is labelled '2025-13'."),
        (["501", "--month", "2025-04", "--rating", "abc", "--reason", "r"],
         "--rating: 'abc' is not a whole number."),
        (["501", "--month", "2025-04", "--rating", "900", "--reason", "r"],
         "--rating: A corrected rating lies between 1000 and 3500."),
        (["501", "--month", "2025-04", "--rating", "2100", "--reason", "  "],
         "--reason: This field cannot be blank."),
    ],
)  # fmt: skip
def test_bad_input_is_refused_and_nothing_changes(club, args, message):
    with pytest.raises(CommandError) as error:
        correct(*args)
    assert message in str(error.value)
    assert not BaseCorrection.objects.exists()


def test_a_closed_period_is_refused_with_how_to_reopen_it(club):
    actions.close_period(period=RatingPeriod.objects.get(label="2025-04"))
    with pytest.raises(CommandError) as error:
        correct("501", "--month", "2025-04", "--rating", "2100", "--reason", "r")
    assert "The period 2025-04 is closed; its games are frozen." in str(error.value)


def test_the_api_records_one_and_the_players_card_shows_it(client, club, committed):
    ann, _ = club
    client.force_login(User.objects.create_superuser("boss", "b@example.org", "pw"))
    with committed():
        answer = client.post(
            "/api/v1/base-corrections/",
            {"player": ann.pk, "period": "2025-04", "rating": 2053, "reason": "FIDE's Ro"},
            content_type="application/json",
        )
    assert answer.status_code == HTTPStatus.CREATED, answer.content
    assert answer.json()["rating"] == 2053
    bad = client.post(
        "/api/v1/base-corrections/",
        {"player": ann.pk, "period": "2025-04", "rating": 2053, "reason": ""},
        content_type="application/json",
    )
    assert bad.status_code == HTTPStatus.BAD_REQUEST
    page = client.get(f"/players/{ann.pk}/").content.decode()
    assert "Base correction: rated from 2053 (the list said 2052): FIDE" in page


def test_a_player_with_a_base_correction_is_not_deleted_behind_its_back(client, committed):
    """A corrected player with no game (their games were deleted): the deletion is refused
    with a sentence, never a 500."""
    ann = PlayerFactory(name="Cy Cole", entry_rating=2000)
    period = RatingPeriod.objects.create(label="2025-05", start="2025-05-01", end="2025-05-31")
    actions.save_base_correction(
        correction=BaseCorrection(player=ann, period=period, rating=2010, reason="FIDE's Ro")
    )
    client.force_login(User.objects.create_superuser("boss", "b@example.org", "pw"))
    answer = client.post(f"/admin/ladder/player/{ann.pk}/delete/", {"post": "yes"}, follow=True)
    assert answer.status_code == HTTPStatus.OK
    assert "Cy Cole has base corrections; delete them first to delete the player." in (
        answer.content.decode()
    )
    assert ann.__class__.objects.filter(pk=ann.pk).exists()


@pytest.mark.parametrize("label", ["2025\x00-04", "20 25", "x" * 30, 2025])
@pytest.mark.parametrize("url", ["/api/v1/base-corrections/", "/api/v1/tournaments/"])
def test_a_period_label_no_period_could_have_is_a_field_error(client, club, url, label):
    """A NUL, a space or an over-long label is the field's 400, never a 500 (PostgreSQL refuses
    a NUL in a query), and nothing is written."""
    ann, _ = club
    client.force_login(User.objects.create_superuser("boss", "b@example.org", "pw"))
    body = {"player": ann.pk, "period": label, "rating": 2053, "reason": "r"}
    field = "period"
    if "tournaments" in url:
        body = {"name": "Open", "start": "2025-04-01", "end": "2025-04-02", "rated_in": label}
        field = "rated_in"
    answer = client.post(url, body, content_type="application/json")
    assert answer.status_code == HTTPStatus.BAD_REQUEST, answer.content
    assert field in answer.json(), answer.json()
    assert not BaseCorrection.objects.exists()
