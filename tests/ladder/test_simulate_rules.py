"""manage.py simulate_rules: a whole list under other rules, compared, written nowhere."""

from __future__ import annotations

import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ladder.records import Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(committed):
    """Ann (1990) beats Bea (1990) in March 2026, both established: K 20, +10 and -10."""
    ann = PlayerFactory(name="Ann Able", entry_rating=1990, entry_rated_games=40, birth_year=1980)
    bea = PlayerFactory(name="Bea Best", entry_rating=1990, entry_rated_games=40, birth_year=1980)
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 3, 4), white=ann, black=bea, result="1-0")]
        )
    ann.refresh_from_db()
    assert ann.rating == 2000
    return ann, bea


def simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate_rules", *args, stdout=out)
    return out.getvalue()


def stored():
    return (
        sorted(RatingChange.objects.values_list("player_id", "period_id", "change", "k")),
        sorted(Player.objects.values_list("pk", "rating")),
    )


def test_a_lower_k_for_everyone_is_reported_player_by_player_and_writes_nothing(club):
    before = stored()
    found = json.loads(simulate("--rules", "current", "--k", "10", "--format", "json"))
    assert stored() == before
    assert found["players_changed"] == 2
    assert [(p["name"], p["stored"], p["simulated"]) for p in found["players"]] == [
        ("Ann Able", 2000, 1995),
        ("Bea Best", 1980, 1985),
    ]
    assert (found["mean_change"], abs(found["largest_change"])) == (0, 5)
    assert found["crossing"]["2000"] == {"up": 0, "down": 1}


def test_the_rules_of_2013_rate_an_established_player_with_k_15(club):
    text = simulate("--rules", "2013-01")
    # K 15: 15 x 0.5 = 7.5 -> 8 (half away from zero), against +10 today.
    assert "Ann Able" in text
    assert "2000 ->     1998  -2" in text
    assert "Bea Best" in text
    assert "1980 ->     1982  +2" in text
    assert "Players changed: 2." in text
    assert "Crossing 2000: 0 up, 1 down." in text


def test_a_narrower_cap_changes_nothing_between_equals(club):
    assert "Players changed: 0." in simulate("--rules", "current", "--cap", "350")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "2013-13"], "--rules: '2013-13' is neither 'by-date', 'current' nor a day"),
        (["--rules", "current", "--k", "0"], "--k: '0' is not a whole number from 1 to 100."),
        (["--rules", "current", "--from", "1999-01"], "No rating period is labelled '1999-01'."),
        (["--rules", "current", "--floor", "x"], "--floor: 'x' is not a whole number"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(club, args, message):
    with pytest.raises(CommandError) as error:
        simulate(*args)
    assert message in str(error.value)


def test_the_admin_page_shows_the_same_and_refuses_a_bad_day(admin_client, club):
    before = stored()
    page = admin_client.get(
        "/admin/ladder/ratingperiod/simulate/",
        {"rules": "current", "k": "10", "rating_list": "standard"},
    )
    assert page.status_code == 200
    text = page.content.decode()
    assert "Players changed: 2." in text
    assert "Crossing 2000: 0 up, 1 down." in text
    assert '<th scope="row">Ann Able</th><td>2000</td><td>1995</td><td>-5</td>' in text
    assert stored() == before
    bad = admin_client.get(
        "/admin/ladder/ratingperiod/simulate/", {"rules": "soon", "rating_list": "standard"}
    ).content.decode()
    assert "&#x27;soon&#x27; is neither" in bad
    listing = admin_client.get("/admin/ladder/ratingperiod/").content.decode()
    assert 'href="/admin/ladder/ratingperiod/simulate/"' in listing
