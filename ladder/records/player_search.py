"""Finding players by a name typed anyhow, in the database: the one search of every door.

A player matches a typed name when every word of its search key is in the player's search
key (case, accents, word order and transliteration do not count: ``names.search_key``); when no
player's does, the players whose name is close to it (typos):

- on PostgreSQL, by pg_trgm's word similarity (``search_key %> 'typed'``), answered from the
  GIN trigram index of migration 0021, which also answers the words' ``LIKE``; the threshold is
  set on each connection (``WORD_SIMILARITY``: 0.6, pg_trgm's default, misses a transposed
  letter in a short name);
- elsewhere (SQLite), by rapidfuzz over the search keys of the players searched, the
  ``SCAN_LIMIT`` closest kept.

``closest`` ranks what matched with ``names.rank`` (rapidfuzz's weighted ratio, Metaphone for
names that sound the same), the order the pages and autocompletes show.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.postgres.lookups import TrigramWordSimilar
from django.contrib.postgres.search import TrigramWordSimilarity
from django.db import models
from django.db.models import F, Q, Value

from ladder.records import names
from ladder.records.text import parse_fide_id

# The player QuerySet and Player are typed loosely here: ladder.records.players imports this.
PlayerQuerySet = TypeVar("PlayerQuerySet", bound=models.QuerySet[Any])
WORD_SIMILARITY = 0.5  # pg_trgm.word_similarity_threshold on every connection
SCAN_LIMIT = 500  # the closest names a search without trigrams keeps (a statement's values)
RANKED = 200  # the candidates ``closest`` ranks, the most similar first


def set_threshold(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Set pg_trgm's word similarity threshold on a new PostgreSQL connection
    (``connection_created``)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('pg_trgm.word_similarity_threshold', %s, false)",
                           [str(WORD_SIMILARITY)])  # fmt: skip


def matching(queryset: PlayerQuerySet, text: str) -> PlayerQuerySet:
    """Filter ``queryset`` to the players ``text`` names: by name (tolerant of case, accents,
    word order, transliteration, and of typos when no name holds the words typed), or by the
    exact FIDE id when it is a number. One query more when the words are found nowhere."""
    # No stored text holds a NUL, and PostgreSQL refuses one in a query parameter.
    text = text.replace("\x00", "").strip()
    if not text:
        return queryset
    key = names.search_key(text)
    fide_id = parse_fide_id(text)
    by_id = Q(fide_id=fide_id) if fide_id is not None else Q(pk__in=[])
    if not key:  # only punctuation or symbols: as typed
        return queryset.filter(by_id | Q(name__icontains=text))
    words = queryset.filter(by_id | _words(key))
    if words.exists():
        return words
    return queryset.filter(by_id | _close(queryset, key))


def closest(queryset: models.QuerySet[Any], text: str, *, limit: int = 10) -> list[Any]:
    """Return up to ``limit`` players of ``queryset`` that ``text`` names, the closest first
    (a FIDE id's player first of all). Two or three queries."""
    key = names.search_key(text.replace("\x00", ""))
    found = matching(queryset, text)
    if _trigrams(queryset):  # the most similar first, for the few ranked
        similarity = TrigramWordSimilarity(key, "search_key")
        found = found.annotate(similarity=similarity).order_by("-similarity", "pk")
    rows = list(found.values_list("pk", "search_key", "fide_id")[:RANKED])
    fide_id = parse_fide_id(text)
    keys = [row[1] for row in rows]
    order = [pk for pk, _, found_id in rows if found_id is not None and found_id == fide_id]
    order += [rows[r.index][0] for r in names.rank(key, keys, limit=limit, cutoff=0)]
    order = list(dict.fromkeys(order))[:limit]
    by_pk = queryset.in_bulk(order)
    return [by_pk[pk] for pk in order if pk in by_pk]


def _words(key: str) -> Q:
    condition = Q()
    for word in key.split():
        condition &= Q(search_key__contains=word)
    return condition


def _trigrams(queryset: models.QuerySet[Any]) -> bool:
    from django.db import connections

    return bool(connections[queryset.db].vendor == "postgresql")


def _close(queryset: models.QuerySet[Any], key: str) -> Q:
    if _trigrams(queryset):
        return Q(TrigramWordSimilar(F("search_key"), Value(key)))
    rows = list(queryset.order_by().values_list("pk", "search_key"))
    ranked = names.rank(key, [row[1] for row in rows], limit=SCAN_LIMIT)
    return Q(pk__in=[rows[r.index][0] for r in ranked])
