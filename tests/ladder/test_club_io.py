"""export_club / import_club: a club survives the round trip with identical ratings."""

from __future__ import annotations

import json
from datetime import date
from io import StringIO

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.management import CommandError, call_command

from ladder.records import ApiToken, Game, PeriodLog, Player, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import Publication, PublishedRating, RatingChange
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def ratings():
    changes = RatingChange.objects.order_by(
        "player__fide_id", "period__start", "rating_list"
    ).values_list("player__fide_id", "period__label", "rating_list", "rating_after", "change")
    players = Player.objects.order_by("fide_id").values_list("fide_id", "rating", "rapid_rating")
    return list(changes), list(players)


def club():
    players = [PlayerFactory(fide_id=100 + i, entry_rating=1500 + 50 * i) for i in range(6)]
    players.append(UnratedPlayerFactory(fide_id=200))
    games = [
        GameEntry(date=date(2026, month, 2 + i), white=players[i],
                  black=players[(i + month - 5) % 7],
                  result=["1-0", "0-1", "1/2-1/2"][(i + month) % 3],
                  time_control="15+10" if i == 5 else "")
        for month in (7, 8, 9) for i in range(6)
    ]  # fmt: skip
    actions.enter_games(games=games)
    boss = User.objects.create_superuser("boss", "boss@example.org", "secret-pw")
    secretary = User.objects.create_user("sec", password="also-secret")
    group, _ = Group.objects.get_or_create(name="Club administrators")
    group.permissions.set(Permission.objects.filter(codename__in=["add_game", "change_game"]))
    secretary.groups.add(group)
    secretary.user_permissions.add(Permission.objects.get(codename="add_player"))
    ApiToken.issue(secretary, days=9)
    for label in ("2026-07", "2026-08"):
        actions.close_period(period=RatingPeriod.objects.get(label=label), user=boss)
    actions.reopen_period(period=RatingPeriod.objects.get(label="2026-08"), reason="Typo\nfixed",
                          user=boss)  # fmt: skip


def test_a_club_round_trips_with_identical_ratings(tmp_path):
    club()
    before = ratings()
    assert before[0], "the club has ratings"
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stderr=StringIO())
    text = path.read_text()
    for secret in ("secret-pw", "pbkdf2", "digest"):  # no password, hash or token
        assert secret not in text
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("ladder-club", 1)
    # Published lists are protected (PROTECT): emptying the club by hand removes them first.
    emptied = (PublishedRating, Publication, Game, PeriodLog, RatingChange, RatingPeriod, Player)
    for model in (*emptied, ApiToken, User, Group):
        model.objects.all().delete()
    out = StringIO()
    call_command("import_club", str(path), stdout=out)
    assert "Restored 2 users, 7 players, 3 periods, 18 games." in out.getvalue()
    assert ratings() == before
    assert list(RatingPeriod.objects.values_list("label", "status")) == [
        ("2026-07", "closed"), ("2026-08", "open"), ("2026-09", "open")]  # fmt: skip
    assert PeriodLog.objects.filter(action="reopened", reason="Typo\nfixed",
                                    user__username="boss").exists()  # fmt: skip
    sec = User.objects.get(username="sec")
    assert not sec.has_usable_password()
    assert sec.has_perm("ladder.add_game")
    assert sec.has_perm("ladder.add_player")
    assert not ApiToken.objects.exists()


def test_import_refuses_a_club_that_is_not_empty(tmp_path):
    PlayerFactory()
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stderr=StringIO())
    with pytest.raises(CommandError, match="The club is not empty"):
        call_command("import_club", str(path), stdout=StringIO())
    assert Player.objects.count() == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "is not JSON"),
        ('{"format": "other"}', "This is not a Ladder club export"),
        ('{"format": "ladder-club", "version": 9}', "this Ladder reads version 1"),
        ('{"format": "ladder-club", "version": 1, "groups": []}', "The export is damaged"),
    ],
)
def test_a_file_that_is_no_export_is_refused(tmp_path, text, message):
    path = tmp_path / "club.json"
    path.write_text(text)
    with pytest.raises(CommandError, match=message):
        call_command("import_club", str(path), stdout=StringIO())
    assert not User.objects.exists()
