"""Reads kept under the data version: served again until a write or a rating run moves it.

These tests commit for real (``transaction=True``): the version moves after a commit, and reads
made inside an open transaction are never kept. The cache is the database cache, as deployed.
"""

import io
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from ladder.files import csv_import
from ladder.records import Game, Player, RatingPeriod
from ladder.records import versions as data_version
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import runs
from tests import caches
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db(transaction=True)

READS = [
    "/",
    "/players/{a}/",
    "/periods/",
    "/periods/2026-03/",
    "/api/v1/players/",
    "/api/v1/players/{a}/",
    "/api/v1/players/{a}/history/",
    "/api/v1/games/",
    "/api/v1/periods/",
    "/api/v1/rating-list/",
    "/api/v1/freshness/",
    "/periods/2026-03/list.csv",
    "/periods/2026-03/games.csv",
    "/players/{a}/history.csv",
]


@pytest.fixture(params=["database", "redis"])
def shared_cache(request, settings):
    """The deployed caches: the database's, and Redis (when one answers on this machine)."""
    backend = caches.redis(_redis_url()) if request.param == "redis" else caches.DATABASE
    caches.use(settings, backend)
    yield request.param
    cache.clear()


@pytest.fixture
def league(shared_cache):
    a, b, c = (PlayerFactory(name=name, entry_rating=rating) for name, rating in
               (("Ann Able", 1800), ("Ben Bold", 1700), ("Cy Calm", 1600)))  # fmt: skip
    actions.enter_games(
        games=[
            GameEntry(date=date(2026, 3, 2), white=a, black=b, result="1-0"),
            GameEntry(date=date(2026, 3, 9), white=c, black=a, result="1/2-1/2"),
        ]
    )
    return {"a": a, "b": b, "c": c, "cache": shared_cache}


def urls(league):
    return [url.format(a=league["a"].pk) for url in READS]


def test_a_read_is_rendered_once_per_version_and_validated_by_its_etag(client, league):
    for url in urls(league):
        first, second = client.get(url), client.get(url)
        assert first.status_code == 200, url
        assert (first["X-Read-Cache"], second["X-Read-Cache"]) == ("miss", "hit"), url
        assert first.content == second.content
        for header in ("Content-Type", "Content-Disposition"):
            assert second.get(header) == first.get(header), (url, header)
        assert first["ETag"] == second["ETag"]
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304, url
        assert not again.content


def test_the_api_answers_each_format_apart(league):
    api = APIClient()
    url = f"/api/v1/players/{league['a'].pk}/"
    as_json = api.get(url, HTTP_ACCEPT="application/json")
    as_html = api.get(url, HTTP_ACCEPT="text/html")
    assert as_json["Content-Type"] == "application/json"
    assert as_html["Content-Type"].startswith("text/html")
    assert api.get(url, HTTP_ACCEPT="application/json").json() == as_json.json()


def correct(league):
    game = Game.objects.get(white=league["a"], black=league["b"])
    actions.correct_game(game=game, changes={"result": "0-1"})


def delete(league):
    actions.delete_games(games=Game.objects.filter(white=league["c"]))


def enter(league):
    game = GameEntry(date=date(2026, 3, 16), white=league["b"], black=league["c"], result="1-0")
    actions.enter_games(games=[game])


def entry_rating(league):
    player = Player.objects.get(pk=league["a"].pk)
    player.entry_rating = 1850
    actions.save_player(player=player)


def rename(league):
    player = Player.objects.get(pk=league["a"].pk)
    player.name = "Ann Able-Baker"
    actions.save_player(player=player)


def close(league):
    actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))


def import_players(league):
    csv_import.import_players(io.StringIO("name,fide_id,rating\nDee Deft,4100001,1550\n"))


WRITES = {
    "correct a result": correct,
    "delete games": delete,
    "enter a game": enter,
    "change an entry rating": entry_rating,
    "rename a player": rename,
    "close the period": close,
    "import players": import_players,
}


@pytest.mark.parametrize("write", list(WRITES))
def test_every_write_makes_every_read_answer_afresh(client, league, write):
    before = {}
    for url in urls(league):
        client.get(url)
        before[url] = client.get(url)
        assert before[url]["X-Read-Cache"] == "hit"
    WRITES[write](league)
    for url in urls(league):
        after = client.get(url)
        assert after["X-Read-Cache"] == "miss", (write, url)
        assert after["ETag"] != before[url]["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"]).status_code == 200


def test_no_stale_rating_after_a_correction(client, league):
    url = f"/api/v1/players/{league['a'].pk}/"
    rating = client.get(url).json()["rating"]
    assert client.get(url)["X-Read-Cache"] == "hit"
    correct(league)  # Ann's win over Ben becomes a loss
    assert client.get(url).json()["rating"] < rating
    page = client.get(f"/players/{league['a'].pk}/")
    assert str(Player.objects.get(pk=league["a"].pk).rating) in page.content.decode()


@override_settings(
    LADDER_RECOMPUTE="background",
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
)
def test_a_finished_run_makes_the_reads_answer_afresh(client, league):
    url = f"/api/v1/players/{league['a'].pk}/"
    rating = client.get(url).json()["rating"]
    correct(league)  # queued: a worker will rate it
    pending = client.get("/api/v1/freshness/").json()
    assert pending["pending"]
    assert client.get(url).json()["rating"] == rating  # not rated yet, and says so
    assert client.get(url)["X-Read-Cache"] == "hit"
    version = data_version.current().value
    (run,) = runs.execute_pending()  # what the worker does
    assert run.status == "done"
    assert data_version.current().value > version
    fresh = client.get(url)
    assert fresh["X-Read-Cache"] == "miss"
    assert fresh.json()["rating"] < rating
    assert not client.get("/api/v1/freshness/").json()["pending"]


def test_only_what_is_the_same_for_everyone_is_kept(client, league):
    url = f"/api/v1/players/{league['a'].pk}/"
    client.force_login(User.objects.create_user("ann"))  # a session cookie
    assert "X-Read-Cache" not in client.get(url)
    assert "X-Read-Cache" not in APIClient().get(url, HTTP_AUTHORIZATION="Token nope")
    client.logout()
    anonymous = client.__class__()
    calculator = anonymous.get("/calculator/?rating=1500&opponent=2000&result=1")
    assert calculator.status_code == 200
    assert "X-Read-Cache" not in calculator  # computed from its query, not from the records
    assert anonymous.get(url)["X-Read-Cache"] == "miss"


def test_reads_inside_a_transaction_are_never_kept(client, league):
    from django.db import transaction

    url = f"/api/v1/players/{league['a'].pk}/"
    with transaction.atomic():
        Player.objects.filter(pk=league["a"].pk).update(name="Uncommitted Name")
        inside = client.get(url)
        transaction.set_rollback(True)
    assert "X-Read-Cache" not in inside
    assert client.get(url).json()["name"] == "Ann Able"


def test_a_version_lost_with_its_row_starts_beyond_every_earlier_one(league):
    before = data_version.current().value
    from ladder.records import DataVersion

    DataVersion.objects.all().delete()  # a database emptied by hand: nothing may be served
    assert data_version.current().value == 0
    data_version.bump()
    assert data_version.current().value > before


def test_a_new_day_is_read_afresh(client, league, monkeypatch):
    """Activity, a junior's K and the chart's line to today follow the calendar, not a write."""
    from django.utils import timezone

    url = f"/players/{league['a'].pk}/"
    client.get(url)
    assert client.get(url)["X-Read-Cache"] == "hit"
    tomorrow = timezone.localdate().toordinal() + 1
    monkeypatch.setattr(timezone, "localdate", lambda *args: date.fromordinal(tomorrow))
    assert client.get(url)["X-Read-Cache"] == "miss"


def _redis_url() -> str:
    url = caches.redis_url(15)
    if url is None:
        pytest.skip("no Redis server reachable (REDIS_URL)")
    return url


def test_the_redis_cache_keeps_one_client_and_serves_reads(client, league, settings):
    if league["cache"] != "redis":
        pytest.skip("Redis only")
    assert cache._cache.get_client() is cache._cache.get_client(key="x")
    cache.set("ladder-test", {"a": 1}, 30)
    assert cache.get("ladder-test") == {"a": 1}
    url = f"/api/v1/players/{league['a'].pk}/"
    assert client.get(url)["X-Read-Cache"] == "miss"
    assert client.get(url)["X-Read-Cache"] == "hit"
    correct(league)
    assert client.get(url)["X-Read-Cache"] == "miss"


def test_on_redis_a_kept_read_asks_the_database_nothing(client, league, settings):
    """The version's copy in Redis, the kept answer and the throttle: one round trip."""
    if league["cache"] != "redis":
        pytest.skip("Redis only")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = f"/api/v1/players/{league['a'].pk}/"
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url)["X-Read-Cache"] == "hit"
        assert client.get("/")["X-Read-Cache"] in ("miss", "hit")
        assert client.get("/")["X-Read-Cache"] == "hit"
    first_page = len(queries)
    assert first_page > 0  # the standings' first read was rendered
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
        client.get("/")
    assert len(queries) == 0


def test_on_redis_a_bump_landing_late_never_lowers_the_version(league):
    if league["cache"] != "redis":
        pytest.skip("Redis only")
    now = data_version.current()
    data_version.bump()
    later = data_version.current()
    data_version.mirror(now)  # an earlier bump's copy arriving last
    raw = cache.read(data_version.MIRROR_KEY, "nothing")[0]
    assert data_version.from_mirror(raw).value == later.value > now.value
    cache.delete(data_version.MIRROR_KEY)  # lost (expired, evicted): read again, copied again
    assert data_version.current().value == later.value
    assert cache.read(data_version.MIRROR_KEY, "nothing")[0] is not None


def test_kept_api_answers_still_count_against_the_throttle(client, league, monkeypatch):
    """A kept answer is served before DRF's dispatch: the anonymous throttle is counted first,
    and a throttled client gets DRF's own 429."""
    from ladder.caching.throttling import AnonThrottle

    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "3/hour"})
    url = f"/api/v1/players/{league['a'].pk}/"
    answers = [client.get(url) for _ in range(3)]
    assert [a.get("X-Read-Cache") for a in answers] == ["miss", "hit", "hit"]
    refused = client.get(url, HTTP_IF_NONE_MATCH=answers[0]["ETag"])
    assert refused.status_code == 429
    assert "X-Read-Cache" not in refused
    assert "Retry-After" in refused


def test_with_the_database_cache_a_kept_read_is_one_query(client, league):
    """The version and the kept answer in one query; on PostgreSQL the throttle's count too."""
    if league["cache"] != "database":
        pytest.skip("the database cache")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = f"/api/v1/players/{league['a'].pk}/"
    client.get(url), client.get("/")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url)["X-Read-Cache"] == "hit"
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/")["X-Read-Cache"] == "hit"
    assert len(queries) == 1


def test_a_busy_clients_kept_reads_count_nothing_in_the_store(
    client, league, monkeypatch, settings
):
    """Served from the reservation its process holds (``ladder.caching.throttling``): the
    kept read reads the version and the answer, and writes nothing."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ladder.caching.throttling import AnonThrottle

    settings.LADDER_THROTTLE_SYNC_SECONDS = 1
    monkeypatch.setattr(AnonThrottle, "timer", staticmethod(lambda: 1_000_000.0))
    url = f"/api/v1/players/{league['a'].pk}/"
    for _ in range(3):  # counted alone, then with a reservation of two
        client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url)["X-Read-Cache"] == "hit"
    assert not [q for q in queries if "throttle" in q["sql"]]
    if league["cache"] == "database":
        assert len(queries) == 1


ODD_READS = [
    "/api/v1/players/?format=bogus",
    "/api/v1/players/%00/",
    "/players/%C3%28/",
    "/players/99999/",
    "/api/v1/players/?page=999",
    "/?" + "x" * 5000,
    "/api/v1/players/?ordering=%27",
    "/periods/nope/",
]


@pytest.mark.parametrize("url", ODD_READS)
def test_odd_reads_are_answered_never_kept_wrongly_never_500(shared_cache, url):
    client = Client()
    first, second, head = client.get(url), client.get(url), client.head(url)
    assert max(first.status_code, second.status_code, head.status_code) < 500, url
    assert first.status_code == second.status_code
    if first.status_code != 200:
        assert "X-Read-Cache" not in second  # only what answered 200 is kept


def test_a_host_not_allowed_is_refused_before_any_lookup(shared_cache):
    assert Client(HTTP_HOST="evil.example").get("/").status_code == 400
