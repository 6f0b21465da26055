"""An existing database (one list, before the three lists) migrates with identical ratings."""

import importlib
from datetime import date
from types import SimpleNamespace

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from ladder.records import Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings.models import RatingChange
from ratings.recompute import services
from tests.factories import PlayerFactory, UnratedPlayerFactory

BEFORE_LISTS = [("ladder", "0005_player_rating_unindexed"), ("ratings", "0005_run_folded_into")]


def standard_state():
    """Every stored standard number, as plain values (read with SQL the old schema also has)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, rating, rated_games, peak_rating, last_rated_on, last_change "
            "FROM ladder_player ORDER BY id"
        )
        players = cursor.fetchall()
        cursor.execute(
            "SELECT player_id, period_id, status, rating_before, k, k_applied, games, "
            "score_units, expected_units, change, rating_after FROM ratings_ratingchange "
            "ORDER BY player_id, period_id"
        )
        return players, cursor.fetchall()


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


@pytest.mark.django_db(transaction=True)
def test_an_existing_database_migrates_with_identical_standard_ratings():
    players = [PlayerFactory(entry_rating=1500 + 60 * i) for i in range(6)]
    players.append(UnratedPlayerFactory())
    games = [
        GameEntry(date=date(2026, month, 2 + i), white=players[i], black=players[(i + month) % 7],
                  result=["1-0", "0-1", "1/2-1/2"][(i + month) % 3])
        for month in (1, 2, 3) for i in range(6)
    ]  # fmt: skip
    actions.enter_games(games=games)
    rated = standard_state()
    assert rated[1], "the club has ratings to keep"
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        migrate(BEFORE_LISTS)  # the database as it was before the three lists
        assert standard_state() == rated
    finally:
        migrate(latest)
    assert standard_state() == rated  # the migration keeps every standard number
    assert set(RatingChange.objects.values_list("rating_list", flat=True)) == {"standard"}
    services.recompute_from(None)  # and a full recompute on the new schema agrees
    assert standard_state() == rated
    assert Player.objects.filter(rapid_rating__isnull=False).count() == 0


@pytest.mark.django_db(transaction=True)
def test_plain_text_tokens_become_hashed_ones_and_the_plain_text_is_gone():
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from ladder.records import ApiToken

    user = User.objects.create_user("old-client")
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        migrate([("ladder", "0009_cache_table")])
        key = Token.objects.create(user=user).key
    finally:
        migrate(latest)
    token = ApiToken.objects.get(user=user)
    assert token.digest == ApiToken.hash(key)
    assert not Token.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_games_before_tournaments_become_each_events_tournament_inside_its_month():
    """Migration ladder 0017: each event's games of a month on a list become a tournament
    starting and ending with the month, rated in it; the ratings are those of before."""
    from ladder.records import Game, Tournament

    players = [PlayerFactory(entry_rating=1500 + 60 * i) for i in range(4)]
    games = [
        GameEntry(date=date(2026, month, 2 + i), white=players[i], black=players[(i + 1) % 4],
                  result="1-0", event="Open" if i % 2 else "")
        for month in (1, 2) for i in range(4)
    ]  # fmt: skip
    actions.enter_games(games=games)
    rated = standard_state()
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        migrate([("ladder", "0016_cache_table_always")])
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM ladder_game")
            assert cursor.fetchone()[0] == 8
    finally:
        migrate(latest)
    found = sorted(
        Tournament.objects.values_list("name", "start", "end", "rated_in__label", "rating_list")
    )
    assert found == [
        ("Games of 2026-01", date(2026, 1, 1), date(2026, 1, 31), "2026-01", "standard"),
        ("Games of 2026-02", date(2026, 2, 1), date(2026, 2, 28), "2026-02", "standard"),
        ("Open", date(2026, 1, 1), date(2026, 1, 31), "2026-01", "standard"),
        ("Open", date(2026, 2, 1), date(2026, 2, 28), "2026-02", "standard"),
    ]
    assert not Game.objects.filter(tournament__isnull=True).exists()
    assert all(g.period_id == g.tournament.rated_in_id for g in Game.objects.all())
    services.recompute_from(None)
    assert standard_state() == rated


@pytest.mark.django_db
def test_the_database_caches_table_is_made_when_a_database_was_migrated_with_redis():
    """Migration ladder 0016 makes ``ladder_cache`` where 0009 did not (``REDIS_URL`` set when
    it ran): it crashed there (AttributeError, Django's command run without its handle())."""
    made = importlib.import_module("ladder.migrations.0016_cache_table_always")
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE ladder_cache")  # rolled back with the test's transaction
    assert "ladder_cache" not in connection.introspection.table_names()
    made.create_cache_table(None, SimpleNamespace(connection=connection))
    assert "ladder_cache" in connection.introspection.table_names()
