"""A read's SQL compiled once (``ladder.records.compiled``) reads what its QuerySet reads: the
same SQL run, the same instances (their values, related instances, deferred fields and
database), the same rows; whatever it cannot run, the QuerySet runs."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.db import connection, connections, models
from django.db.models import signals
from django.db.models.query_utils import DeferredAttribute
from django.test.utils import CaptureQueriesContext

from ladder.records import FideListEntry, Game, Player
from ladder.records import compiled as compiled_module
from ladder.records.compiled import Compiled
from tests.factories import GameFactory, PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db


def state(obj: models.Model | None) -> Any:
    """Everything an instance holds: its values, database, deferred fields, and the related
    instances read with it."""
    if obj is None:
        return None
    values = {k: v for k, v in vars(obj).items() if k != "_state"}
    related = {name: state(other) for name, other in obj._state.fields_cache.items()}
    return (type(obj), values, obj._state.db, obj._state.adding, obj.get_deferred_fields(), related)


def same_as_the_orm(compiled: Compiled, build, *values: Any, rows: bool = False) -> list[Any]:
    """Run ``compiled`` twice (compiling, then compiled) and its QuerySet once: the same SQL,
    the same answer."""
    with CaptureQueriesContext(connection) as orm_queries:
        expected = [tuple(r) for r in build(*values)] if rows else list(build(*values))
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            found = compiled.rows(*values) if rows else compiled.objects(*values)
        assert [q["sql"] for q in queries] == [q["sql"] for q in orm_queries]
        if rows:
            assert found == expected
        else:
            assert [state(o) for o in found] == [state(o) for o in expected]
    return found


def by_pk(pk):
    return Player.objects.filter(pk=pk).order_by()[:21]


def test_a_player_by_id_is_the_orm_s_and_a_missing_one_none():
    players = [PlayerFactory(fide_id=1503014, title="FM"), UnratedPlayerFactory()]
    compiled = Compiled(by_pk)
    for player in players:
        assert same_as_the_orm(compiled, by_pk, player.pk) == [player]
    assert same_as_the_orm(compiled, by_pk, 99_999_999) == []


def games_on(period_ids, after):
    return (
        Game.objects.filter(period__in=period_ids, date__gte=after)
        .select_related("period", "white", "tournament")
        .defer("created", "period__created", "white__search_key")
        .order_by("date", "pk")
    )


def test_select_related_defer_and_dates_are_the_orm_s():
    hero = PlayerFactory()
    for day in (date(2026, 2, 3), date(2026, 3, 4), date(2026, 3, 20), date(2026, 4, 1)):
        GameFactory(white=hero, date=day)
    periods = tuple(sorted({g.period_id for g in Game.objects.all()}))
    compiled = Compiled(games_on)
    found = same_as_the_orm(compiled, games_on, periods, date(2026, 3, 1))
    assert [g.date for g in found] == [date(2026, 3, 4), date(2026, 3, 20), date(2026, 4, 1)]
    assert found[0].white == hero
    assert "search_key" in found[0].white.get_deferred_fields()
    # Another shape (one period fewer) is compiled on its own, and a later date reads fewer.
    assert len(same_as_the_orm(compiled, games_on, periods[1:], date(2026, 3, 10))) == 2


def fide_rows(ids):
    return FideListEntry.objects.filter(fide_id__in=ids).order_by("fide_id")


def test_big_integer_columns_and_texts_are_the_orm_s():
    for fide_id in (1503014, 4100018, 2_300_000_000):  # one beyond a 32-bit integer
        FideListEntry.objects.create(
            month=date(2026, 3, 1), fide_id=fide_id, name=f"Player {fide_id}", standard_k=20
        )
    compiled = Compiled(fide_rows)
    found = same_as_the_orm(compiled, fide_rows, (1503014, 2_300_000_000, 7))
    assert [r.fide_id for r in found] == [1503014, 2_300_000_000]
    named = Compiled(lambda name: FideListEntry.objects.filter(name=name).values_list("fide_id"))
    assert named.rows("Player 4100018") == [(4100018,)]
    assert named.rows("Player 4100018'; --") == []


def test_values_list_rows_with_their_converters_are_the_orm_s():
    GameFactory(date=date(2026, 3, 10))
    GameFactory(date=date(2026, 4, 12), result="1/2-1/2")

    def dates(after):
        return Game.objects.filter(date__gt=after).order_by("date").values_list("date", "result")

    compiled = Compiled(dates)
    assert same_as_the_orm(compiled, dates, date(2026, 1, 1), rows=True) == [
        (date(2026, 3, 10), "1-0"),
        (date(2026, 4, 12), "1/2-1/2"),
    ]
    assert same_as_the_orm(compiled, dates, date(2026, 4, 1), rows=True) == [
        (date(2026, 4, 12), "1/2-1/2")
    ]


@pytest.mark.parametrize("value", [None, (), True, 1.5, date(2026, 3, 1)])
def test_what_it_cannot_run_the_queryset_runs(value):
    """``None`` (``IS NULL``), an empty tuple (no query at all), a boolean, a float: the
    QuerySet's own; a date through a transform, compiled."""
    PlayerFactory(fide_id=None)
    PlayerFactory(fide_id=1503014)

    def by_fide_id(fide_id):
        if isinstance(fide_id, tuple):
            return Player.objects.filter(fide_id__in=fide_id).order_by("pk")
        if isinstance(fide_id, date):
            return Player.objects.filter(created__date__lt=fide_id).order_by("pk")
        return Player.objects.filter(fide_id=fide_id).order_by("pk")

    compiled = Compiled(by_fide_id)
    same_as_the_orm(compiled, by_fide_id, value)


class Recording:
    """A router that sends reads to the primary and counts what it is asked."""

    asked = 0

    def db_for_read(self, model, **hints):
        Recording.asked += 1
        return "default"


def test_the_database_is_asked_of_the_router_on_every_call(settings):
    player = PlayerFactory()
    settings.DATABASE_ROUTERS = [f"{__name__}.Recording"]
    compiled = Compiled(by_pk)
    Recording.asked = 0
    for _ in range(3):
        assert compiled.objects(player.pk) == [player]
    assert Recording.asked == 3


def test_values_list_of_annotations_in_the_order_asked():
    """An annotation asked before a field comes after it in the SQL: the rows as asked."""
    PlayerFactory(name="Ann")

    def named(name):
        return (
            Player.objects.filter(name=name)
            .annotate(one=models.Value(1, models.IntegerField()))
            .values_list("one", "name", "rating")
        )

    assert same_as_the_orm(Compiled(named), named, "Ann", rows=True) == [(1, "Ann", 1800)]


def test_freshness_is_the_orm_s():
    from ratings.runs import status

    assert Compiled(status._freshness).rows() == [tuple(r) for r in status._freshness()]
    assert status.freshness() == status.Freshness(rated_up_to=None, pending=0, failed_run=None)


def test_a_small_integer_column_compared_is_the_orm_s():
    """A stand-in beyond a column's range would be answered by Django without SQL (no rows):
    the stand-ins fit even a small integer column, and such a shape runs its QuerySet."""
    low, high = PlayerFactory(entry_rating=1500), PlayerFactory(entry_rating=2400)

    def above(lowest):
        return Player.objects.filter(rating__gt=lowest).order_by("pk").values_list("pk")

    compiled = Compiled(above)
    assert same_as_the_orm(compiled, above, 1400, rows=True) == [(low.pk,), (high.pk,)]
    assert same_as_the_orm(compiled, above, 2000, rows=True) == [(high.pk,)]


def test_instances_are_made_through_init_when_a_receiver_listens():
    """Instances are made by writing their fields, but never around ``pre_init`` and
    ``post_init``: with a receiver connected, each instance is made by ``Model.from_db``."""
    player = PlayerFactory(name="Ann")
    compiled = Compiled(by_pk)
    seen: list[tuple[str, Any]] = []

    def before(sender, **kwargs):
        seen.append(("pre", sender))

    def after(sender, instance, **kwargs):
        seen.append(("post", instance.name))

    assert same_as_the_orm(compiled, by_pk, player.pk) == [player]  # compiled, no receiver
    assert seen == []
    signals.pre_init.connect(before, sender=Player)
    signals.post_init.connect(after, sender=Player)
    try:
        assert compiled.objects(player.pk) == [player]
    finally:
        signals.pre_init.disconnect(before, sender=Player)
        signals.post_init.disconnect(after, sender=Player)
    assert seen == [("pre", Player), ("post", "Ann")]


def test_a_field_with_an_attribute_of_its_own_is_set_through_it(monkeypatch):
    """A field whose attribute does something when set (a descriptor of its own, as a file
    field's) has its value set through it, as ``Model.__init__`` sets it."""
    player = PlayerFactory(name="Ann")
    written: list[Any] = []

    class Watched(DeferredAttribute):
        def __set__(self, instance, value):
            written.append(value)
            instance.__dict__[self.field.attname] = value

    monkeypatch.setattr(Player, "name", Watched(Player._meta.get_field("name")))
    compiled_module._plain.cache_clear()
    try:
        assert same_as_the_orm(Compiled(by_pk), by_pk, player.pk) == [player]
    finally:
        monkeypatch.undo()
        compiled_module._plain.cache_clear()
    assert written == ["Ann"] * 3  # the QuerySet's, then both compiled runs'


def test_instances_made_by_their_fields_behave_as_the_orm_s():
    """What a read does with an instance afterwards: a deferred field read on demand, a
    related instance read through its id, then set, and the instance saved."""
    hero, other = PlayerFactory(name="Hero"), PlayerFactory(name="Other")
    game = GameFactory(white=hero)
    found = Compiled(lambda pk: Game.objects.filter(pk=pk).defer("event")).objects(game.pk)[0]
    assert found.get_deferred_fields() == {"event"}
    assert found.event == game.event  # read now
    assert found.white == hero
    assert found.white.name == "Hero"
    found.white = other
    assert found.white_id == other.pk
    found.save(update_fields=["white"])
    assert Game.objects.get(pk=game.pk).white_id == other.pk
    assert found._state.adding is False
    assert found._state.db == "default"


@pytest.mark.parametrize("keys_first", [False, True])
def test_pages_are_the_querysets_slices(keys_first):
    """Each page, and the count, as the QuerySet's own, the keys found first or not: ties on
    the rating, unrated players, a merged one off the list."""
    for n in range(7):
        PlayerFactory(entry_rating=2000 + 100 * (n % 3))
    UnratedPlayerFactory.create_batch(2)
    merged = PlayerFactory(entry_rating=2100)
    Player.objects.filter(pk=merged.pk).update(merged_into=Player.objects.first())

    def build(*cutoff: int) -> models.QuerySet[Player]:
        return Player.objects.current().filter(pk__gt=cutoff[0]).standings()

    pages = compiled_module.CompiledPages(build, keys_first=keys_first)
    for cutoff in (0, Player.objects.order_by("pk")[2].pk):
        expected = list(build(cutoff))
        paged = pages.of(cutoff)
        assert paged.count() == len(expected)
        for bottom in range(0, len(expected) + 3, 3):
            found = paged[bottom : bottom + 3]
            assert [state(p) for p in found] == [state(p) for p in expected[bottom : bottom + 3]]


def test_the_first_page_of_none_is_empty_without_a_query():
    PlayerFactory(entry_rating=2000)
    pages = compiled_module.CompiledPages(lambda: Player.objects.filter(rating__isnull=True))
    paged = pages.of()

    with CaptureQueriesContext(connection) as queries:
        assert paged[0:0] == []
    assert len(queries) == 0
    assert paged.count() == 0


def test_the_querys_own_values_are_written_into_its_text_on_postgresql():
    """On PostgreSQL the query's own values (a text with a quote and percent signs, a date,
    a number) are written into the statement as psycopg writes them on the client, so that
    the server plans with them; only the call's values stay parameters. The rows, and the
    text Django logs, are the ORM's."""
    kept = PlayerFactory(name="50% o'clock", birth_year=1990)
    PlayerFactory(name="Fifty o'clock", birth_year=1990)

    def matching(birth_year):
        return (
            Player.objects.filter(
                name__contains="0% o'c", birth_year=birth_year, entry_rating__gte=1000
            )
            .exclude(last_rated_on=date(2001, 2, 3))
            .order_by("pk")
            .values_list("pk", "name")
        )

    compiled = Compiled(matching)
    assert same_as_the_orm(compiled, matching, 1990, rows=True) == [(kept.pk, kept.name)]
    assert same_as_the_orm(compiled, matching, 1991, rows=True) == []
    statement = compiled._statements[connections["default"]][(int,)]
    assert statement is not None
    if connection.vendor == "postgresql":
        assert len(statement.params) == 1  # the birth year, the call's
        assert "o''c%%'" in statement.sql
        assert "'2001-02-03'::date" in statement.sql
    else:
        assert len(statement.params) > 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statements")
def test_a_value_psycopg_cannot_write_leaves_the_statement_as_it_was():
    unwritable, slots = object(), [(1, 0, -1, None)]
    sql, params, kept = compiled_module._constants_written(
        connections["default"], "SELECT %s, %s, '%%'", [unwritable, 5], slots
    )
    assert (sql, params, kept) == ("SELECT %s, %s, '%%'", [unwritable, 5], slots)
    sql, params, kept = compiled_module._constants_written(
        connections["default"], "SELECT %s, %s, '%%'", ["50%", 5], slots
    )
    assert (sql, params, kept) == ("SELECT '50%%', %s, '%%'", [5], [(0, 0, -1, None)])
