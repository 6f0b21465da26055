"""Merging two records of one person and undoing it (``actions.merge_players``): every
reference moves, the ratings are rated again through a run, closed lists get a revision, and
an unmerge leaves the club exactly as if the merge had never been made."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils import timezone

from ladder.exceptions import ReopenRefused
from ladder.records import (
    BaseCorrection,
    Game,
    Player,
    PlayerMerge,
    RatingPeriod,
    kept_lists,
)
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import publication, selectors
from ratings.models import Publication, RatingChange, RatingRun, RunStatus
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

_CHANGE_FIELDS = [
    f.name for f in RatingChange._meta.concrete_fields if f.name not in {"id"}
]  # every column of the rating history but the row's id
_PLAYER_FIELDS = [
    f.attname for f in Player._meta.concrete_fields if f.name not in {"updated"}
]  # identity, entry data, derived state and the merge mark


def game(day: date, white: Player, black: Player, result: str, **more: Any) -> GameEntry:
    return GameEntry(date=day, white=white, black=black, result=result, **more)


@pytest.fixture
def club(committed):
    """January and February 2026 closed, March open. Ann (FIDE 101) and her second record
    "Ann Able" (no FIDE id, her own games) each play Bob and Cat."""
    ann = PlayerFactory(name="Ann Able", fide_id=101, entry_rating=1900, federation="")
    dup = PlayerFactory(name="Able, Ann", entry_rating=1850, federation="NOR", title="WFM")
    bob = PlayerFactory(name="Bob Best", fide_id=102, entry_rating=1700)
    cat = PlayerFactory(name="Cat Cole", fide_id=103, entry_rating=2000)
    with committed():
        actions.enter_games(
            games=[
                game(date(2026, 1, 5), ann, bob, "1-0", event="Jan Open", round="1"),
                game(date(2026, 1, 12), dup, cat, "1/2-1/2", event="Jan Open", round="2"),
                game(date(2026, 2, 3), bob, dup, "0-1"),
                game(date(2026, 2, 9), ann, cat, "0-1"),
                game(date(2026, 3, 2), dup, bob, "1-0"),
            ]
        )
    with committed():
        actions.close_period(period=RatingPeriod.objects.get(label="2026-01"))
    with committed():
        actions.close_period(period=RatingPeriod.objects.get(label="2026-02"))
    return ann, dup, bob, cat


def state() -> dict[str, Any]:
    """Everything a merge may touch and an unmerge must restore, by value."""
    periods = list(RatingPeriod.objects.order_by("start"))
    published = {}
    for period, rating_list in [(p, name) for p in periods for name in kept_lists()]:
        found = publication.as_published(period, rating_list)
        if found is not None:
            lines = [
                (ln.player_id, ln.status, ln.rating, ln.change, ln.k, ln.games, ln.total_games)
                for ln in found[1]
            ]
            published[period.label, rating_list] = sorted(lines)
    return {
        "history": sorted(RatingChange.objects.values_list(*_CHANGE_FIELDS)),
        "players": sorted(Player.objects.values_list(*_PLAYER_FIELDS)),
        "games": sorted(Game.objects.values_list("pk", "white_id", "black_id", "result")),
        "corrections": sorted(BaseCorrection.objects.values_list("pk", "player_id", "rating")),
        "lists": {
            (p.label, name): [
                (e.player.pk, e.rating, e.change, e.games) for e in selectors.rating_list(p, name)
            ]
            for p in periods
            for name in kept_lists()
        },
        "published": published,
    }


def test_merge_moves_every_reference_rates_again_and_revises_the_closed_lists(club, committed):
    ann, dup, bob, cat = club
    with committed():
        outcome = actions.merge_players(keep=ann.pk, other=dup.pk, reason="One person, two cards")
    assert not Game.objects.filter(white=dup).exists()
    assert not Game.objects.filter(black=dup).exists()
    assert Game.objects.filter(white=ann).count() + Game.objects.filter(black=ann).count() == 5
    dup.refresh_from_db()
    ann.refresh_from_db()
    assert dup.merged_into == ann
    assert (ann.federation, ann.title, ann.fide_id) == ("NOR", "WFM", 101)  # blank ones taken
    assert not RatingChange.objects.filter(player=dup).exists()
    # Ann now has a game in every period, rated from her own entry rating of 1900.
    periods = RatingChange.objects.filter(player=ann).values_list("period__label", flat=True)
    assert sorted(periods) == ["2026-01", "2026-02", "2026-03"]
    # The two closed lists are revised with the merge as the reason; Ann's second line is gone.
    for label in ("2026-01", "2026-02"):
        latest = Publication.objects.filter(period__label=label).order_by("-revision").first()
        assert latest is not None
        assert latest.revision == 2
        assert latest.reason.startswith("Merge of Able, Ann")
        assert "One person, two cards" in latest.reason
        assert not latest.lines.filter(player=dup).exists()
    assert {p.period.label for p in outcome.revisions} == {"2026-01", "2026-02"}
    assert outcome.games == 3
    assert outcome.from_period.label == "2026-01"
    assert dup.pk not in {e.player.pk for e in selectors.rating_list()}
    # A full replay agrees with what the merge's run wrote.
    rows = sorted(RatingChange.objects.values_list(*_CHANGE_FIELDS))
    with committed():
        actions.recompute()
    assert sorted(RatingChange.objects.values_list(*_CHANGE_FIELDS)) == rows


def test_merge_then_unmerge_equals_never_merged(club, committed):
    ann, dup, bob, cat = club
    BaseCorrection.objects.create(
        player=dup, period=RatingPeriod.objects.get(label="2026-03"), rating=1860, reason="FIDE"
    )
    with committed():
        actions.recompute()
    before = state()
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="Same person")
    assert state() != before
    assert BaseCorrection.objects.get().player_id == ann.pk
    with committed():
        outcome = actions.unmerge_players(other=dup.pk, reason="Twins, not one person")
    assert state() == before
    assert outcome.games == 3
    assert outcome.base_corrections == 1
    record = PlayerMerge.objects.get()
    assert record.undone_at is not None
    assert record.undo_reason == "Twins, not one person"
    # Published means published: the lists carry the merge and its undoing as revisions.
    january = Publication.objects.filter(period__label="2026-01", rating_list="standard")
    assert [p.revision for p in january.order_by("revision")] == [1, 2, 3]
    assert january.order_by("revision")[2].reason.startswith("Unmerge of Able, Ann")


@pytest.mark.parametrize(
    ("keep", "other", "field", "message"),
    [
        ("ann", "ann", "other", "A player cannot be merged with themselves."),
        ("ann", 999_999, "other", "There is no player #999999."),
        (999_999, "dup", "keep", "There is no player #999999."),
        ("ann", "x", "other", "“x” is not a player id (a whole number)."),
    ],
)
def test_bad_ids_are_field_errors_and_change_nothing(club, keep, other, field, message):
    players = {"ann": club[0].pk, "dup": club[1].pk}
    before = state()
    with pytest.raises(ValidationError) as error:
        actions.merge_players(
            keep=players.get(keep, keep), other=players.get(other, other), reason="r"
        )
    assert error.value.message_dict == {field: [message]}
    assert state() == before


def test_a_reason_is_required(club):
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=club[0].pk, other=club[1].pk, reason="  ")
    assert error.value.message_dict == {"reason": ["Give a reason for the merge; it is recorded."]}


def test_players_who_met_cannot_be_merged(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.enter_games(games=[game(date(2026, 3, 20), ann, dup, "1-0")])
    before = state()
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    (message,) = error.value.message_dict["other"]
    assert "merged, a player would play themselves" in message
    assert "2026-03-20" in message
    assert state() == before


def test_two_games_in_one_round_are_refused_naming_both(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.enter_games(
            games=[
                game(date(2026, 3, 21), ann, bob, "1-0", event="Spring", round="3"),
                game(date(2026, 3, 21), cat, dup, "1-0", event="Spring", round="3"),
            ]
        )
    first, second = Game.objects.filter(date=date(2026, 3, 21)).order_by("pk")
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    assert error.value.message_dict["other"] == [
        f"Round 3 of Spring on 2026-03-21: Ann Able (101) played game #{first.pk} and Able, Ann "
        f"game #{second.pk}; merged, a player would play twice in one round."
    ]
    assert PlayerMerge.objects.count() == 0


def test_already_merged_and_not_merged(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=bob.pk, other=dup.pk, reason="r")
    assert error.value.message_dict == {
        "other": [f"Able, Ann was merged into player #{ann.pk} already."]
    }
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=dup.pk, other=bob.pk, reason="r")
    assert "merge into that player instead" in error.value.message_dict["keep"][0]
    with pytest.raises(ValidationError) as error:
        actions.unmerge_players(other=bob.pk)
    assert error.value.message_dict == {
        "other": ["Bob Best (102) is not merged into anyone; nothing to undo."]
    }


def test_two_fide_ids_are_two_people(club):
    ann, dup, bob, cat = club
    with pytest.raises(ValidationError) as error:
        actions.merge_players(keep=ann.pk, other=bob.pk, reason="r")
    assert error.value.message_dict["other"] == [
        "Ann Able and Bob Best have different FIDE ids (101 and 102): FIDE lists them as two "
        "people."
    ]


def test_a_merged_record_cannot_be_edited(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    dup.refresh_from_db()
    dup.entry_rating = 1500
    with pytest.raises(ValidationError, match="unmerge them to change this record"):
        actions.save_player(player=dup)


def test_the_standings_rating_list_and_lookup_leave_the_merged_record_out(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    names = [
        e.player.name for e in selectors.rating_list(RatingPeriod.objects.get(label="2026-02"))
    ]
    assert "Able, Ann" not in names
    assert "Ann Able" in names


def test_a_closed_list_beyond_its_window_needs_the_reopen_permission(club, settings):
    ann, dup, bob, cat = club
    settings.LADDER_CORRECTION_WINDOW_DAYS = 30
    later = timezone.now() + timedelta(days=400)
    before = state()
    with pytest.raises(ReopenRefused) as error:
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r", now=later)
    assert error.value.messages[0].startswith(
        "It changes the published list of 2026-01. The correction window of 2026-01 (30 days"
    )
    assert state() == before
    boss = User.objects.create_superuser("boss", "boss@example.org", "pw")
    outcome = actions.merge_players(keep=ann.pk, other=dup.pk, reason="r", user=boss, now=later)
    assert outcome.record.user == boss


def test_in_background_mode_a_merge_into_closed_lists_rates_before_it_publishes(
    club, settings, committed
):
    ann, dup, bob, cat = club
    settings.LADDER_RECOMPUTE = "background"
    with committed():
        outcome = actions.merge_players(keep=ann.pk, other=dup.pk, reason="Same person")
    assert {p.period.label for p in outcome.revisions} == {"2026-01", "2026-02"}
    assert not RatingRun.objects.filter(status=RunStatus.QUEUED).exists()
    january = RatingChange.objects.get(player=ann, period__label="2026-01")
    assert january.games == 2  # her own game and the merged record's


def test_a_player_with_no_game_leaves_the_published_lists_and_comes_back(club, committed):
    ann, dup, bob, cat = club
    newcomer = PlayerFactory(name="Ann Able Junior", entry_rating=None, entry_rated_games=0)
    with committed():
        actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    before = state()
    with committed():
        outcome = actions.merge_players(keep=ann.pk, other=newcomer.pk, reason="r")
    assert outcome.games == 0
    assert outcome.from_period.label == "2026-03"
    march = Publication.objects.filter(period__label="2026-03", rating_list="standard")
    assert not march.order_by("-revision").first().lines.filter(player=newcomer).exists()
    with committed():
        actions.unmerge_players(other=newcomer.pk)
    assert state() == before


def test_a_merge_of_a_merge_is_followed_and_unmerged_in_order(club, committed, client):
    ann, dup, bob, cat = club
    third = PlayerFactory(name="A. Able")
    with committed():
        actions.merge_players(keep=dup.pk, other=third.pk, reason="r")
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    assert client.get(f"/players/{third.pk}/")["Location"] == f"/players/{ann.pk}/"
    with pytest.raises(ValidationError) as error:
        actions.unmerge_players(other=third.pk)
    assert error.value.message_dict == {
        "other": [f"Able, Ann was merged into player #{ann.pk} since; unmerge Able, Ann first."]
    }
    with committed():
        actions.unmerge_players(other=dup.pk)
    with committed():
        actions.unmerge_players(other=third.pk)
    assert not Player.objects.filter(merged_into__isnull=False).exists()


def test_on_the_demo_club_merge_then_unmerge_equals_never_merged(committed):
    """Six months on three lists, five of them closed and published. Boris's games of the first
    month and of the open one were entered under a second record; merge it into his, then
    unmerge it, and compare everything."""
    from io import StringIO

    from django.core.management import call_command

    with committed():
        call_command("seed_demo", stdout=StringIO())
    boris = Player.objects.get(name="Boris Aleksandrov")
    dup = PlayerFactory(name="Aleksandrov, Boris", entry_rating=2400, fide_id=None)
    periods = list(RatingPeriod.objects.order_by("start"))
    first, last = periods[0], periods[-1]
    with committed():
        actions.reopen_period(period=first, reason="Boris's second card")
    for period in (first, last):
        for game in Game.objects.filter(period=period).filter(white=boris)[:3]:
            with committed():
                actions.correct_game(game=game, changes={"white": dup})
    with committed():
        actions.close_period(period=first)
    before = state()
    with committed():
        outcome = actions.merge_players(keep=boris.pk, other=dup.pk, reason="One person")
    assert outcome.games >= 4
    assert outcome.from_period == first
    labels = {p.period.label for p in outcome.revisions}
    assert labels == {p.label for p in periods[:-1]}  # every closed list, none beyond
    assert state() != before
    with committed():
        actions.unmerge_players(other=dup.pk)
    assert state() == before


def test_a_base_correction_of_a_merged_record_is_refused(club, committed):
    ann, dup, bob, cat = club
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="r")
    correction = BaseCorrection(
        player=dup, period=RatingPeriod.objects.get(label="2026-03"), rating=1900, reason="FIDE"
    )
    with pytest.raises(ValidationError) as error:
        actions.save_base_correction(correction=correction)
    assert error.value.message_dict == {
        "player": [f"Able, Ann was merged into player #{ann.pk}; correct that player's rating."]
    }
    assert not BaseCorrection.objects.exists()
