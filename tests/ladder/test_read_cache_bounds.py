"""What the read cache may hold: answers keyed on the parameters a view reads, never on junk,
and a bounded number of new answers per client. These tests commit for real, as the read
cache keeps nothing read inside an open transaction."""

import pytest
from django.core.cache import cache
from django.db import connection

from tests import caches
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def players(settings):
    caches.use(settings, caches.DATABASE)
    yield [PlayerFactory(name=f"Reader {n}") for n in range(3)]  # a write: a data version
    cache.clear()


def kept_answers() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM ladder_cache WHERE cache_key LIKE %s", ["%:read:%"])
        return cursor.fetchone()[0]


def test_a_parameter_no_view_reads_adds_nothing_to_the_cache(client, players):
    client.get("/")  # the standings learn which parameters they read
    before = kept_answers()

    answers = [client.get(f"/?junk={n}") for n in range(40)]

    assert {answer.status_code for answer in answers} == {200}
    assert all("X-Read-Cache" not in answer for answer in answers)
    assert kept_answers() == before


def test_a_parameter_the_view_reads_is_kept(client, players):
    client.get("/")
    first, second = client.get("/?list=rapid"), client.get("/?list=rapid")

    assert (first["X-Read-Cache"], second["X-Read-Cache"]) == ("miss", "hit")


def test_one_client_adds_a_bounded_number_of_answers(client, players, settings):
    settings.LADDER_READ_CACHE_CLIENT_ENTRIES = 2
    urls = [f"/players/{player.pk}/" for player in players]

    answers = [client.get(url) for url in urls]

    assert [answer.get("X-Read-Cache") for answer in answers] == ["miss", "miss", None]
    assert answers[2].status_code == 200  # served all the same, only not kept
    other = client.get(urls[2], REMOTE_ADDR="192.0.2.7")
    assert other["X-Read-Cache"] == "miss"  # another client has its own allowance
