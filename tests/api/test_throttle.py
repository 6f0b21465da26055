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
@pytest.mark.parametrize("sync_seconds", [0, 1])
def test_concurrent_counts_in_the_database_are_never_lost(
    settings, clock, monkeypatch, sync_seconds
):
    """Without Redis the counts are one atomic statement each (PostgreSQL: real connections);
    what the threads let through between two counts is kept in the process (``sync_seconds``
    1), and every request is in the table or there."""
    from django.db import connection
    from django.test import RequestFactory

    if connection.vendor != "postgresql":
        pytest.skip("concurrent connections: PostgreSQL")
    settings.CACHES = {"default": BACKENDS["database"]}
    settings.LADDER_THROTTLE_SYNC_SECONDS = sync_seconds
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

    stored = ThrottleCount.objects.get().count
    assert stored - held() == 200  # every request counted, and what is reserved, not served
    if sync_seconds == 0:
        assert stored == 200


def held() -> int:
    """What this process reserved of the client's requests and has not served."""
    from ladder.caching.throttling import _LEDGER

    return sum(figures.held for figures in _LEDGER.clients.values())


def stored(backend: str, window: int = START // HOUR) -> int:
    """The requests of ``window`` counted in the shared store (the test client's)."""
    if backend == "redis":
        return int(cache.get(f"throttle_anon_127.0.0.1:{window}") or 0)
    from ladder.records import ThrottleCount

    row = ThrottleCount.objects.get()
    return row.count if row.slot == window * HOUR else 0


@pytest.fixture
def far_from_limit(clock, monkeypatch, settings):
    """1,600 requests an hour, and a process may serve its reservations for a second."""
    settings.LADDER_THROTTLE_SYNC_SECONDS = 1
    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "1600/hour"})
    return clock


@pytest.fixture
def counts(monkeypatch):
    """The counts made in the shared store, one item each."""
    made = []
    settle = AnonThrottle.settle

    def counted(self, before, count):
        made.append(count)
        return settle(self, before, count)

    monkeypatch.setattr(AnonThrottle, "settle", counted)
    return made


def test_a_client_far_from_its_limit_is_counted_in_the_store_now_and_then(
    backend, far_from_limit, counts
):
    clock = far_from_limit
    assert statuses(1) == [200]
    assert (stored(backend), held(), len(counts)) == (1, 0, 1)  # unknown: counted alone
    assert statuses(1) == [200]
    assert (stored(backend), held()) == (4, 2)  # with twice what it asked since, reserved
    assert statuses(198) == [200] * 198
    # The reservations grow with what the client asks: 2, 6, 14, 30, 62, then a sixteenth
    # of what it has left.
    assert len(counts) < 12
    assert stored(backend) - held() == 200
    clock[0] += 1  # a second since the count: what is left of the reservation given back
    assert statuses(1) == [200]
    assert stored(backend) - held() == 201
    clock[0] += 5  # quiet for a while: nothing asked, nothing reserved
    assert statuses(1) == [200]
    assert (stored(backend), held()) == (202, 0)


def test_a_new_window_is_counted_in_the_store_at_once(backend, far_from_limit, counts):
    clock = far_from_limit
    assert statuses(20) == [200] * 20
    made = len(counts)
    clock[0] = START + HOUR  # the next window, within the second
    assert statuses(1) == [200]
    assert len(counts) == made + 1
    # What was reserved in the last window stays counted there, unserved.
    assert stored(backend, START // HOUR + 1) - held() == 1


def test_a_client_is_served_its_limit_and_no_more(backend, far_from_limit):
    codes = statuses(1700)
    assert codes[:1600] == [200] * 1600
    assert codes[1600:] == [429] * 100
    assert (stored(backend), held()) == (1600, 0)


def test_any_number_of_processes_together_serve_the_limit_and_no_more(
    backend, far_from_limit, monkeypatch
):
    """Each process serves only what it reserved in the store first: sixteen or forty, taking
    turns at full speed, never pass the limit. While the others hold reservations the client
    may be refused early; a second on, what they did not serve is given back, and served."""
    from ladder.caching import throttling
    from ladder.records import ThrottleCount

    clock = far_from_limit
    for processes in (16, 40):
        clock[0] = START
        cache.clear()
        ThrottleCount.objects.all().delete()
        ledgers = [throttling._Ledger() for _ in range(processes)]
        client = APIClient()
        served = 0
        for turn in range(2000):
            monkeypatch.setattr(throttling, "_LEDGER", ledgers[turn % processes])
            served += client.get(URL).status_code == 200
            held = sum(f.held for ledger in ledgers for f in ledger.clients.values())
            assert stored(backend) - held == served <= 1600
        for _ in range(5):  # then a request a process a second, five seconds
            clock[0] += 1
            for ledger in ledgers:
                monkeypatch.setattr(throttling, "_LEDGER", ledger)
                served += client.get(URL).status_code == 200
        assert served == 1600


def test_a_process_forgets_the_clients_it_has_not_counted_lately(
    backend, far_from_limit, monkeypatch
):
    from ladder.caching import throttling

    monkeypatch.setattr(throttling, "_KEPT", 3)
    clock = far_from_limit

    def ask(address: str) -> int:
        return APIClient().get(URL, REMOTE_ADDR=address).status_code

    assert [ask(f"192.0.2.{n}") for n in range(1, 4)] == [200] * 3
    assert len(throttling._LEDGER.clients) == 3
    clock[0] += 1
    assert ask("192.0.2.4") == 200
    assert list(throttling._LEDGER.clients) == ["throttle_anon_192.0.2.4"]
