"""The anonymous throttle counts a sliding window with two counters per client, in the shared
cache: the database's by default, Redis's when there is one (one round trip, atomic)."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from ladder.caching.throttling import AnonThrottle
from tests import caches

pytestmark = pytest.mark.django_db

URL = "/api/v1/players/"
HOUR = 3600
START = 1_000 * HOUR  # the start of a window


_REDIS = caches.redis_url(7)
BACKENDS = {"database": caches.DATABASE, "redis": caches.redis(_REDIS or "")}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request, settings):
    if request.param == "redis" and not _REDIS:
        pytest.skip("no Redis server reachable (REDIS_URL)")
    caches.use(settings, BACKENDS[request.param])
    yield request.param
    cache.clear()


@pytest.fixture
def clock(monkeypatch):
    """The throttle's clock, set by the test; 4 anonymous requests an hour."""
    now = [float(START)]
    monkeypatch.setattr(AnonThrottle, "timer", staticmethod(lambda: now[0]))
    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "4/hour"})
    return now


def statuses(count: int) -> list[int]:
    client = APIClient()
    return [client.get(URL).status_code for _ in range(count)]


def test_the_last_window_counts_for_the_part_of_it_the_hour_still_covers(backend, clock):
    assert statuses(5) == [200, 200, 200, 200, 429]
    # Half way into the next hour, half of the last one's four still count: two more.
    clock[0] = START + HOUR + HOUR / 2
    assert statuses(3) == [200, 200, 429]
    # Two hours on, nothing counts any more.
    clock[0] = START + 3 * HOUR
    assert statuses(5) == [200, 200, 200, 200, 429]


def test_retry_after_says_when_a_request_is_served_again(backend, clock):
    assert statuses(4) == [200] * 4
    refused = APIClient().get(URL)
    assert refused.status_code == 429
    # Just into the next hour, a little less than the four count: one more fits.
    assert refused["Retry-After"] == str(HOUR + 1)
    clock[0] = START + HOUR
    assert statuses(1) == [429]
    clock[0] = START + HOUR + 1
    assert statuses(1) == [200]
    # The last hour's 4 now weigh 4 - 1/900 and this one's 1 counts: 1 - 1/900 must slide
    # out, at 4 an hour (900 s each): 899 s, and a second more.
    refused = APIClient().get(URL)
    assert refused["Retry-After"] == "900"
    clock[0] += 899
    assert statuses(1) == [429]
    clock[0] += 1
    assert statuses(1) == [200]


def test_refused_requests_are_not_counted(backend, clock):
    assert statuses(14) == [200] * 4 + [429] * 10
    clock[0] = START + HOUR + HOUR / 2
    assert statuses(3) == [200, 200, 429]


def test_concurrent_counts_on_redis_are_never_lost(settings):
    url = BACKENDS["redis"]["LOCATION"]
    if not url:
        pytest.skip("no Redis server reachable (REDIS_URL)")
    settings.CACHES = {"default": BACKENDS["redis"]}
    cache.clear()
    barrier = threading.Barrier(8)

    def count() -> None:
        barrier.wait()
        for _ in range(50):
            cache.count("counted", 60, also="other")

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.count("counted", 60, also="other") == (0, 401)
    cache.clear()


@pytest.mark.django_db(transaction=True)
def test_concurrent_counts_in_the_database_are_never_lost(settings, clock, monkeypatch):
    """Without Redis the counts are one atomic statement each (PostgreSQL: real connections)."""
    from django.db import connection
    from django.test import RequestFactory

    if connection.vendor != "postgresql":
        pytest.skip("concurrent connections: PostgreSQL")
    settings.CACHES = {"default": BACKENDS["database"]}
    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "100000/hour"})
    barrier = threading.Barrier(8)
    allowed: list[bool] = []

    def count() -> None:
        try:
            barrier.wait()
            for _ in range(25):
                allowed.append(AnonThrottle().allow_request(RequestFactory().get(URL), None))
        finally:
            connection.close()

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert allowed == [True] * 200
    from ladder.records import ThrottleCount

    assert ThrottleCount.objects.get().count == 200
