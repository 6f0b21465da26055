"""Published lists: kept as published when a period closes; changed only by visible revisions."""

from datetime import date
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import override_settings
from rest_framework.test import APIClient

from ladder.records import Game, Player, RatingPeriod
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import Publication, RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def league(committed):
    ann, ben, cy = (PlayerFactory(name=n, entry_rating=r) for n, r in
                    (("Ann", 1800), ("Ben", 1700), ("Cy", 1600)))  # fmt: skip
    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 3, 2), white=ann, black=ben, result="1-0"),
                GameEntry(date=date(2026, 4, 6), white=ben, black=cy, result="1/2-1/2"),
                GameEntry(date=date(2026, 4, 7), white=ann, black=cy, result="1-0"),
            ]
        )
    return {"ann": ann, "ben": ben, "cy": cy, "closer": User.objects.create_user("closer")}


def period(label):
    return RatingPeriod.objects.get(label=label)


def test_closing_publishes_the_list_that_closes_the_period(league):
    actions.close_period(period=period("2026-03"), user=league["closer"])
    (published,) = Publication.objects.filter(rating_list="standard")
    assert (published.revision, published.published_by, published.players_changed) == (
        1, league["closer"], 0
    )  # fmt: skip
    lines = {line.player.name: line for line in published.lines.select_related("player")}
    assert set(lines) == {"Ann", "Ben", "Cy"}  # every player on the list, not only those who played
    assert (lines["Ann"].rating, lines["Ann"].change, lines["Ann"].games) == (1807, 7, 1)
    assert (lines["Cy"].rating, lines["Cy"].change, lines["Cy"].games) == (1600, 0, 0)
    # every kept list is published
    assert Publication.objects.filter(period=published.period).count() == 3


def test_a_correction_is_published_as_a_revision_with_its_reason(league, committed):
    march = period("2026-03")
    actions.close_period(period=march)
    actions.reopen_period(period=march, reason="Round 1 was entered reversed.")
    with committed():
        game = Game.objects.get(date=date(2026, 3, 2))
        actions.correct_game(game=game, changes={"result": "0-1"})
    actions.close_period(period=march, user=league["closer"])
    first, second = Publication.objects.filter(period=march, rating_list="standard")
    assert (second.revision, second.reason, second.players_changed) == (
        2, "Round 1 was entered reversed.", 2
    )  # fmt: skip
    assert sorted(second.differences) == sorted([
        [league["ann"].pk, 1807, 1787, 7, -13], [league["ben"].pk, 1693, 1713, -7, 13],
    ])  # fmt: skip
    # The first publication is kept as it was.
    ann = first.lines.get(player=league["ann"])
    assert (ann.rating, ann.change) == (1807, 7)
    # Closing again with nothing changed publishes nothing new.
    actions.reopen_period(period=march, reason="A look.")
    actions.close_period(period=march)
    assert Publication.objects.filter(period=march, rating_list="standard").count() == 2


def test_a_correction_flowing_into_a_later_closed_period_revises_it_too(league, committed):
    march, april = period("2026-03"), period("2026-04")
    actions.close_period(period=march)
    actions.close_period(period=april)
    actions.reopen_period(period=march, reason="Reversed result.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=march)
    revised = Publication.objects.get(period=april, rating_list="standard", revision=2)
    assert revised.corrected_in == march
    assert revised.players_changed >= 2
    assert Publication.objects.filter(period=april, revision=2).count() == 1  # standard only


@override_settings(
    LADDER_RECOMPUTE="background",
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
)
def test_a_list_still_being_rated_is_not_published(league, committed):
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 3, 9), white=league["cy"], black=league["ann"],
                             result="1-0")]
        )  # fmt: skip
    with pytest.raises(ValidationError, match=r"still being computed \(rating run #\d+\)"):
        actions.close_period(period=period("2026-03"))
    assert not Publication.objects.exists()
    assert not period("2026-03").is_closed


def test_the_period_page_and_the_api_show_each_revision(league, committed, client):
    march = period("2026-03")
    actions.close_period(period=march)
    actions.reopen_period(period=march, reason="Round 1 was entered reversed.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=march)
    page = client.get(march.get_absolute_url()).content.decode()
    assert "Published " in page
    assert "Round 1 was entered reversed." in page
    assert "2 players' ratings changed" in page
    assert "1807 → 1787" in page
    body = APIClient().get(f"/api/v1/periods/{march.pk}/").json()
    first, second = body["publications"]
    assert (first["revision"], second["revision"]) == (1, 2)
    assert second["reason"] == "Round 1 was entered reversed."
    ann = next(d for d in second["differences"] if d["name"] == "Ann")
    assert (ann["old_rating"], ann["new_rating"]) == (1807, 1787)


def test_rating_list_as_published(league, committed):
    march = period("2026-03")
    actions.close_period(period=march)
    actions.reopen_period(period=march, reason="Reversed.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    out = StringIO()
    call_command("rating_list", "--period", "2026-03", "--as-published", "1", stdout=out)
    assert "as published" in out.getvalue()
    assert "1807" in out.getvalue()  # as first published, before the correction
    with pytest.raises(CommandError, match="no revision 3 of published standard list"):
        call_command("rating_list", "--period", "2026-03", "--as-published", "3")
    with pytest.raises(CommandError, match="a period's list is published when the period"):
        call_command("rating_list", "--period", "2026-04", "--as-published")


@pytest.fixture
def newcomers(league):
    """Dee, on March's list without a game, and (after March and April close) Nina, who
    joins, and Dee's entry rating corrected: neither touches a published list."""
    dee = PlayerFactory(name="Dee", entry_rating=1500)
    actions.close_period(period=period("2026-03"))
    actions.close_period(period=period("2026-04"))
    nina = actions.save_player(player=Player(name="Nina", entry_rating=1900))
    dee.entry_rating = 1550
    actions.save_player(player=dee)
    return {**league, "dee": dee, "nina": nina}


def published_ids():
    return set(Publication.objects.values_list("pk", flat=True))


def test_closing_again_without_a_correction_publishes_nothing(newcomers):
    before = published_ids()
    actions.reopen_period(period=period("2026-03"), reason="A look.")
    actions.close_period(period=period("2026-03"))
    assert published_ids() == before  # nor a revision of April blaming March


def test_the_full_run_after_migration_0014_fills_the_totals_and_publishes_nothing(newcomers):
    """Rows written before migration ratings 0014 hold no opponents' total; the full run
    docs/commands.md asks for after upgrading writes it and leaves every published list."""
    RatingChange.objects.update(opponents_total=None)
    before = published_ids()
    call_command("recompute_ratings", stdout=StringIO())
    assert published_ids() == before
    assert not RatingChange.objects.filter(games__gt=0, opponents_total=None).exists()


def test_a_revision_lists_only_the_lines_that_changed_and_names_the_correction(
    newcomers, committed
):
    march, april = period("2026-03"), period("2026-04")
    actions.reopen_period(period=march, reason="Round 1 was entered reversed.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=march)
    ann, ben, cy, dee, nina = (newcomers[n] for n in ("ann", "ben", "cy", "dee", "nina"))
    revised = Publication.objects.get(period=march, rating_list="standard", revision=2)
    assert (revised.reason, revised.corrected_in) == ("Round 1 was entered reversed.", None)
    assert {row[0] for row in revised.differences} == {ann.pk, ben.pk}
    lines = {line.player_id: line for line in revised.lines.all()}
    assert nina.pk not in lines  # she joined after March
    assert lines[dee.pk].rating == 1500  # as published: no game, so no correction of hers
    later = Publication.objects.get(period=april, rating_list="standard", revision=2)
    assert (later.reason, later.corrected_in) == ("", march)
    assert {row[0] for row in later.differences} <= {ann.pk, ben.pk, cy.pk}
    assert {ann.pk, ben.pk} <= {row[0] for row in later.differences}
    assert nina.pk not in {line.player_id for line in later.lines.all()}
    # Only the standard list changed.
    assert Publication.objects.filter(revision=2).count() == 2


def test_a_player_whose_games_a_correction_deleted_is_revised_to_the_entry_data(league):
    march = period("2026-03")
    actions.close_period(period=march)
    actions.reopen_period(period=march, reason="The game was never played.")
    actions.delete_games(games=list(Game.objects.filter(date=date(2026, 3, 2))))
    actions.close_period(period=march)
    revised = Publication.objects.get(period=march, rating_list="standard", revision=2)
    assert sorted(revised.differences) == sorted([
        [league["ann"].pk, 1807, 1800, 7, 0], [league["ben"].pk, 1693, 1700, -7, 0],
    ])  # fmt: skip


def test_a_correction_is_published_beyond_an_open_period_only_when_it_closes(league, committed):
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 5, 4), white=league["ben"], black=league["ann"],
                             result="1-0")]
        )  # fmt: skip
    march, april, may = period("2026-03"), period("2026-04"), period("2026-05")
    for closing in (march, april, may):
        actions.close_period(period=closing)
    actions.reopen_period(period=april, reason="A look at April.")
    actions.reopen_period(period=march, reason="Round 1 was entered reversed.")
    with committed():
        actions.correct_game(
            game=Game.objects.get(date=date(2026, 3, 2)), changes={"result": "0-1"}
        )
    actions.close_period(period=march)
    # April is open: May's list would carry a correction still in progress.
    assert not Publication.objects.filter(period=may, revision=2).exists()
    actions.close_period(period=period("2026-04"))
    april_revised = Publication.objects.get(period=april, rating_list="standard", revision=2)
    assert (april_revised.reason, april_revised.corrected_in) == ("A look at April.", march)
    may_revised = Publication.objects.get(period=may, rating_list="standard", revision=2)
    assert (may_revised.reason, may_revised.corrected_in) == ("", march)


def test_the_official_list_is_the_latest_revision_of_the_latest_period_on_each_list(
    django_assert_num_queries,
):
    """Read in one query, whatever the number of periods published (one subquery per list)."""
    from ratings.publication import official
    from tests.factories import PeriodFactory

    # Made out of order: the latest period is the one starting last, not the one made last.
    may = PeriodFactory(start=date(2026, 5, 1), end=date(2026, 5, 31))
    march = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    april = PeriodFactory(start=date(2026, 4, 1), end=date(2026, 4, 30))
    made = {}
    for when, rating_list, revisions in (
        (march, "standard", 3),  # an old period revised often
        (may, "standard", 1),
        (april, "standard", 2),
        (april, "rapid", 2),
        (march, "rapid", 1),
    ):
        for revision in range(1, revisions + 1):
            made[when.label, rating_list, revision] = Publication.objects.create(
                period=when, rating_list=rating_list, revision=revision
            )
    with django_assert_num_queries(1):
        latest = official.latest_publications(["standard", "rapid", "blitz"], people=False)
    assert latest == {
        "standard": made["2026-05", "standard", 1],
        "rapid": made["2026-04", "rapid", 2],
    }
    assert latest["standard"].period.label == "2026-05"  # its period read with it
