"""Previews of a correction, a deletion and an entry of games: the real action's checks and
the real rating run's numbers, and nothing written."""

from __future__ import annotations

from datetime import date

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError

from ladder.exceptions import GamesInvalid, PeriodClosedError
from ladder.records import Game, Player
from ladder.records import versions as data_version
from ladder.writes import actions, previews
from ladder.writes.validation import GameEntry
from ratings.models import RatingChange
from tests.previews import reopened_october

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(committed):
    return reopened_october(committed)


def row_counts() -> dict[str, int]:
    """Every table's row count (the audit and task tables included)."""
    return {
        model._meta.db_table: model._default_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if not model._meta.proxy
    }


def ratings_now() -> dict[str, int | None]:
    return dict(Player.objects.values_list("name", "rating"))


def lines_now() -> dict[tuple[str, str], tuple[int | None, int]]:
    rows = RatingChange.objects.filter(rating_list="standard").values_list(
        "period__label", "player__name", "rating_after", "change"
    )
    return {(label, name): (rating, change) for label, name, rating, change in rows}


def moves(preview) -> dict[str, tuple[int | None, int | None]]:
    return {p.name: (p.old, p.new) for p in preview.players}


def test_a_correction_preview_names_each_players_old_and_new_rating(club):
    preview = previews.correction(game=club["game"], changes={"result": "0-1"}, user=club["user"])

    # Hand-checked (tests/previews.py): Ann +7 -> -13, so 1807 -> 1787 after October.
    october = {(line.period, line.name): line for line in preview.lines}
    ann = october[("2026-10", "Ann")]
    assert (ann.old_rating, ann.new_rating, ann.old_change, ann.new_change) == (1807, 1787, 7, -13)
    ben = october[("2026-10", "Ben")]
    assert ben.new_change - ben.old_change == 20  # -7 -> +13, the draw with Cy unchanged
    # The correction flows into November, closed: Ann's rating after it moves as much.
    november = october[("2026-11", "Ann")]
    assert november.new_rating - november.old_rating == -20
    assert moves(preview)["Ann"] == (november.old_rating, november.new_rating)
    assert preview.periods == {"standard": ["2026-10", "2026-11"]}
    assert str(preview).startswith("Correcting game #")
    assert "would recompute 2026-10 to 2026-11" in str(preview)


def test_the_preview_is_what_the_correction_then_does(club, committed):
    before_ratings, before_lines = ratings_now(), lines_now()
    preview = previews.correction(game=club["game"], changes={"result": "0-1"}, user=club["user"])
    with committed():
        actions.correct_game(game=club["game"], changes={"result": "0-1"}, user=club["user"])
    after_ratings, after_lines = ratings_now(), lines_now()

    changed = {n: (before_ratings[n], after_ratings[n]) for n in after_ratings
               if before_ratings[n] != after_ratings[n]}  # fmt: skip
    assert moves(preview) == changed
    assert set(changed) == {"Ann", "Ben"}
    moved = {key: (before_lines.get(key), after_lines.get(key)) for key in after_lines
             if before_lines.get(key) != after_lines.get(key)}  # fmt: skip
    assert {(line.period, line.name): ((line.old_rating, line.old_change),
                                       (line.new_rating, line.new_change))
            for line in preview.lines} == moved  # fmt: skip


def test_a_preview_writes_nothing(club, committed):
    counts, version = row_counts(), data_version.current().value
    stored = Game.objects.get(pk=club["game"].pk)
    with committed() as callbacks:
        previews.correction(game=club["game"], changes={"result": "0-1"}, user=club["user"])
        previews.deletion(games=[club["game"]], user=club["user"])
        # Into December, which has no period yet: the real correction would create it.
        moved = previews.correction(game=club["game"], changes={"date": date(2026, 12, 1)})
        previews.entry(
            games=[GameEntry(date=date(2026, 10, 20), white=club["cy"], black=club["ann"],
                             result="1-0")], user=club["user"],
        )  # fmt: skip
    assert moved.periods == {"standard": ["2026-10", "2026-11", "2026-12"]}
    assert callbacks == []  # no rating run, no data-version bump after the "commit"
    assert row_counts() == counts
    assert data_version.current().value == version
    assert Game.objects.get(pk=club["game"].pk).result == stored.result


def test_a_deletion_preview_matches_the_deletion(club, committed):
    before = ratings_now()
    preview = previews.deletion(games=[club["game"]], user=club["user"])
    with committed():
        actions.delete_games(games=[club["game"]], user=club["user"])
    after = ratings_now()
    assert moves(preview) == {n: (before[n], after[n]) for n in after if before[n] != after[n]}
    assert str(preview).startswith(f"Deleting game #{club['game'].pk} would recompute 2026-10")


def test_an_entry_preview_matches_the_entry(club, committed):
    games = [GameEntry(date=date(2026, 10, 20), white=club["cy"], black=club["ann"], result="1-0")]
    before = ratings_now()
    preview = previews.entry(games=games, user=club["user"])
    with committed():
        actions.enter_games(games=games, user=club["user"])
    after = ratings_now()
    assert moves(preview) == {n: (before[n], after[n]) for n in after if before[n] != after[n]}
    assert preview.action == "Entering 1 game"


def same_error(preview, real) -> str:
    with pytest.raises(ValidationError) as previewed:
        preview()
    with pytest.raises(ValidationError) as done:
        real()
    assert type(previewed.value) is type(done.value)
    assert str(previewed.value) == str(done.value)
    return str(previewed.value)


def test_bad_input_gives_the_real_actions_errors_and_writes_nothing(club):
    counts = row_counts()
    ann, game = club["ann"], club["game"]
    message = same_error(
        lambda: previews.correction(game=game, changes={"black": ann}),
        lambda: actions.correct_game(game=game, changes={"black": ann}),
    )
    assert "cannot play themselves" in message
    # Into a period that does not exist (and cannot: before the first game date allowed).
    same_error(
        lambda: previews.correction(game=game, changes={"date": date(1800, 1, 1)}),
        lambda: actions.correct_game(game=game, changes={"date": date(1800, 1, 1)}),
    )
    entries = [GameEntry(date=date(2026, 10, 20), white=ann, black=ann, result="1-0")]
    same_error(lambda: previews.entry(games=entries), lambda: actions.enter_games(games=entries))
    assert row_counts() == counts


def test_a_preview_into_a_closed_period_is_refused_like_the_correction(club):
    november_game = Game.objects.get(date=date(2026, 11, 3))
    with pytest.raises(PeriodClosedError):
        previews.correction(game=november_game, changes={"result": "0-1"})
    with pytest.raises(PeriodClosedError):
        previews.deletion(games=[november_game])
    with pytest.raises((PeriodClosedError, GamesInvalid, ValidationError)):
        previews.entry(games=[GameEntry(date=date(2026, 11, 20), white=club["ann"],
                                        black=club["ben"], result="1-0")])  # fmt: skip


def test_a_game_moved_to_another_list_previews_both_lists(club, committed):
    changes = {"time_control": "15+10"}  # rapid: the game leaves the standard list
    before = {name: dict(Player.objects.values_list("name", field)) for name, field in
              (("standard", "rating"), ("rapid", "rapid_rating"))}  # fmt: skip
    preview = previews.correction(game=club["game"], changes=changes, user=club["user"])
    with committed():
        actions.correct_game(game=club["game"], changes=changes, user=club["user"])
    after = {name: dict(Player.objects.values_list("name", field)) for name, field in
             (("standard", "rating"), ("rapid", "rapid_rating"))}  # fmt: skip

    assert set(preview.periods) == {"standard", "rapid"}
    assert preview.several_lists
    assert "Rapid list: 2026-10" in str(preview)
    assert {(p.rating_list, p.name): (p.old, p.new) for p in preview.players} == {
        (name, player): (before[name][player], after[name][player])
        for name in after
        for player in after[name]
        if before[name][player] != after[name][player]
    }


def test_a_standard_correction_preview_names_the_blitz_ratings_it_seeds(club, committed):
    """R&B 7.2.1: Ann, unrated on blitz, plays her first blitz game in December and is rated
    there with her standard rating; a correction of October's standard game moves it, and the
    preview says what it does to her blitz line too, as the correction then does."""
    ann_ = Player.objects.get(name="Ann")
    opponent = Player.objects.create(name="Dee", blitz_entry_rating=1700,
                                     blitz_entry_rated_games=40, birth_year=1970)  # fmt: skip
    with committed():
        actions.enter_games(games=[GameEntry(date=date(2026, 12, 1), white=ann_, black=opponent,
                                             result="1-0", rating_list="blitz")],
                            user=club["user"])  # fmt: skip
    preview = previews.correction(game=club["game"], changes={"result": "0-1"}, user=club["user"])
    assert set(preview.periods) == {"standard", "blitz"}
    blitz = {line.name: line for line in preview.lines if line.rating_list == "blitz"}
    assert "Ann" in blitz  # Dee's own change may round the same
    with committed():
        actions.correct_game(game=club["game"], changes={"result": "0-1"}, user=club["user"])
    ann = RatingChange.objects.get(player=ann_, rating_list="blitz")
    assert (blitz["Ann"].new_rating, blitz["Ann"].new_change) == (ann.rating_after, ann.change)
