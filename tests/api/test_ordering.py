"""Every list's ordering is the same on SQLite and PostgreSQL and pages without gaps: the
rows without a value (an unrated player's rating, a missing FIDE id) come last whichever way
the list is ordered, and rows that tie are ordered by their id."""

import pytest

from ladder.api.pagination import PageNumbers
from ladder.records import Player

pytestmark = pytest.mark.django_db

PLAYERS = "/api/v1/players/"


@pytest.fixture
def players(db):
    """Twelve players: ten rated 2000 or 2100, four of them with a FIDE id, and two unrated."""
    rated = [
        Player.objects.create(
            name=f"Rated {n:02}",
            entry_rating=2000 + 100 * (n % 2),
            fide_id=4_200_000 + n if n % 3 == 0 else None,
        )
        for n in range(10)
    ]
    unrated = [Player.objects.create(name=f"Unrated {n}") for n in range(2)]
    return rated, unrated


@pytest.fixture(autouse=True)
def small_pages(monkeypatch):
    """Three rows a page, so that ties fall across pages."""
    monkeypatch.setattr(PageNumbers, "page_size", 3)


def _ids(client, query: str) -> list[int]:
    """Every id of the players' list in the order asked, page after page."""
    ids: list[int] = []
    url: str | None = f"{PLAYERS}?{query}"
    while url is not None:
        body = client.get(url).json()
        ids += [row["id"] for row in body["results"]]
        url = body["next"]
    return ids


@pytest.mark.parametrize("direction", ["", "-"])
def test_the_unrated_come_last_whichever_way_the_ratings_go(anon, players, direction):
    rated, unrated = players

    ids = _ids(anon, f"ordering={direction}rating")

    ratings = {p.pk: p.rating for p in rated}
    assert sorted(ids[-2:]) == sorted(p.pk for p in unrated)
    shown = [ratings[pk] for pk in ids[:-2]]
    assert shown == sorted(shown, reverse=bool(direction))


@pytest.mark.parametrize("direction", ["", "-"])
def test_ties_are_ordered_by_id_and_every_page_is_whole(anon, players, direction):
    rated, unrated = players
    everyone = [*rated, *unrated]

    ids = _ids(anon, f"ordering={direction}rating")

    assert sorted(ids) == sorted(p.pk for p in everyone)  # none twice, none missing
    key = {p.pk: (p.rating is None, p.rating or 0) for p in everyone}
    expected = sorted(
        (p.pk for p in everyone),
        key=lambda pk: (
            key[pk][0],
            -key[pk][1] if direction else key[pk][1],
            -pk if direction else pk,
        ),
    )
    assert ids == expected


def test_a_missing_fide_id_comes_last(anon, players):
    rated, unrated = players
    with_id = sorted((p for p in rated if p.fide_id), key=lambda p: p.fide_id)

    ids = _ids(anon, "ordering=fide_id")

    assert ids[: len(with_id)] == [p.pk for p in with_id]
    assert ids[len(with_id) :] == sorted(p.pk for p in [*rated, *unrated] if not p.fide_id)
