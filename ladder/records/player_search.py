"""Finding players by a name typed anyhow, in the database: the one search of every door.

A player matches a typed name when every word of its search key is in the player's search
key (case, accents, word order and transliteration do not count: ``names.search_key``); when no
player's does, the players whose name is close to it (typos):

- on PostgreSQL, one word by pg_trgm's word similarity (``search_key %> 'word'``) and the
  others as typed, answered from the GIN trigram index of migration 0021, which also answers
  the words' ``LIKE``; the threshold is set on each connection (``WORD_SIMILARITY``: 0.6,
  pg_trgm's default, misses a transposed letter in a short name); when that finds nothing,
  once more at ``FALLBACK_SIMILARITY`` (a changed letter in a word of four or five letters
  keeps too few of its trigrams). A typo in two words may still find nothing there;
- elsewhere (SQLite), by rapidfuzz over the search keys of the players searched, the
  ``SCAN_LIMIT`` closest kept.

``closest`` ranks what matched with ``names.rank`` (rapidfuzz's weighted ratio, Metaphone for
names that sound the same), the order the pages and autocompletes show.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from django.contrib.postgres.lookups import TrigramWordSimilar
from django.contrib.postgres.search import TrigramWordSimilarity
from django.db import DatabaseError, connections, models
from django.db.models import F, Q, Value

from ladder.records import names
from ladder.records.text import parse_fide_id

# The player QuerySet and Player are typed loosely here: ladder.records.players imports this.
PlayerQuerySet = TypeVar("PlayerQuerySet", bound=models.QuerySet[Any])
WORD_SIMILARITY = 0.5  # pg_trgm.word_similarity_threshold on every connection
# The threshold of a second look when nothing is that close: a changed letter in a last name
# of four or five letters keeps two or three of its five or six trigrams (0.4 or 0.5 alike).
FALLBACK_SIMILARITY = 0.3
SCAN_LIMIT = 500  # the closest names a search without trigrams keeps (a statement's values)
RANKED = 200  # the candidates ``closest`` ranks, the most similar first


@contextmanager
def _threshold(alias: str, value: float) -> Iterator[None]:
    """Hold pg_trgm's word similarity threshold at ``value`` on connection ``alias``."""
    setting = "SELECT set_config('pg_trgm.word_similarity_threshold', %s, false)"
    with connections[alias].cursor() as cursor:
        cursor.execute(setting, [str(value)])
        try:
            yield
        finally:  # in an aborted transaction this fails, and its rollback restores the setting
            with suppress(DatabaseError):
                cursor.execute(setting, [str(WORD_SIMILARITY)])


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
    conditions = _conditions(queryset, text)
    if conditions is None:
        return queryset
    words, typos = conditions
    found = queryset.filter(words)
    if typos is None or found.exists():
        return found
    return queryset.filter(typos())


def closest(queryset: models.QuerySet[Any], text: str, *, limit: int = 10) -> list[Any]:
    """Return up to ``limit`` players of ``queryset`` that ``text`` names, the closest first
    (a FIDE id's player first of all). Two queries, three when the words are found nowhere."""
    conditions = _conditions(queryset, text)
    if conditions is None:
        return []
    words, typos = conditions
    key = names.search_key(text.replace("\x00", ""))
    rows = _candidates(queryset.filter(words), key)
    if not rows and typos is not None:
        rows = _close_rows(queryset, key)
    fide_id = parse_fide_id(text)
    keys = [row[1] for row in rows]
    order = [pk for pk, _, found_id in rows if found_id is not None and found_id == fide_id]
    order += [rows[r.index][0] for r in names.rank(key, keys, limit=limit, cutoff=0)]
    order = list(dict.fromkeys(order))[:limit]
    by_pk = queryset.in_bulk(order)
    return [by_pk[pk] for pk in order if pk in by_pk]


def split_national_id(text: str) -> tuple[str, str]:
    """``("NOR", "12345")`` for ``NOR:12345`` or ``NOR 12345``; ``("", "12345")`` for a bare id."""
    text = text.strip()
    for separator in (":", " "):
        federation, found, number = text.partition(separator)
        if found and len(federation) == 3 and federation.isalpha() and number.strip():
            return federation.upper(), number.strip()
    return "", text


def national_id_condition(text: str) -> Q:
    """The players a national id names (see ``split_national_id``); none for a blank one."""
    federation, number = split_national_id(text)
    if not number:
        return Q(pk__in=[])
    condition = Q(national_id__iexact=number)
    return condition & Q(national_federation=federation) if federation else condition


def _conditions(
    queryset: models.QuerySet[Any], text: str
) -> tuple[Q, Callable[[], Q] | None] | None:
    """The condition of the words typed (or the FIDE id), and a maker of the typos' one."""
    # No stored text holds a NUL, and PostgreSQL refuses one in a query parameter.
    text = text.replace("\x00", "").strip()
    if not text:
        return None
    key = names.search_key(text)
    fide_id = parse_fide_id(text)
    by_id = Q(fide_id=fide_id) if fide_id is not None else Q(pk__in=[])
    if any(c.isdigit() for c in text):  # a national id has digits; a name never reads one
        by_id |= national_id_condition(text)
    if not key:  # only punctuation or symbols: as typed
        return by_id | Q(name__icontains=text), None
    return by_id | _all_words(_words(key)), lambda: by_id | _close(queryset, key)


def _candidates(
    found: models.QuerySet[Any], key: str, *, limit: int = RANKED
) -> list[tuple[int, str, int | None]]:
    """The (pk, search key, FIDE id) of up to ``limit`` players found, the most similar to
    ``key`` when there are more."""
    rows = list(found.order_by().values_list("pk", "search_key", "fide_id")[: limit + 1])
    if len(rows) > limit and _trigrams(found):
        similarity = TrigramWordSimilarity(key, "search_key")
        found = found.annotate(similarity=similarity).order_by("-similarity", "pk")
        rows = list(found.values_list("pk", "search_key", "fide_id")[:limit])
    return rows[:limit]


def _words(key: str) -> list[str]:
    """The words a condition names: those of three letters or more (a trigram index cannot
    find a shorter one inside a name), else all."""
    words = key.split()
    return [word for word in words if len(word) >= 3] or words


def _all_words(words: list[str]) -> Q:
    condition = Q()
    for word in words:
        condition &= Q(search_key__contains=word)
    return condition


def _trigrams(queryset: models.QuerySet[Any]) -> bool:
    return bool(connections[queryset.db].vendor == "postgresql")


def _close(queryset: models.QuerySet[Any], key: str) -> Q:
    """The players whose name is close to ``key`` (typos)."""
    return Q(pk__in=[row[0] for row in _close_rows(queryset, key)])


def _close_rows(queryset: models.QuerySet[Any], key: str) -> list[tuple[int, str, int | None]]:
    """The players whose name is close to ``key`` (typos), ranked by ``names.rank``: on
    PostgreSQL among those with one word close to a word typed and the others as typed (a
    word's trigrams with the others' required: a whole name's similarity takes five times
    longer to look up over a million names), elsewhere among all."""
    candidates = queryset.order_by()
    if _trigrams(queryset):
        words = _words(key)
        condition = Q(pk__in=[])
        for index, word in enumerate(words):
            close = Q(TrigramWordSimilar(F("search_key"), Value(word)))
            condition |= _all_words(words[:index] + words[index + 1 :]) & close
        rows = _candidates(candidates.filter(condition), key, limit=SCAN_LIMIT)
        if not rows:  # a changed letter in a short word leaves too few of its trigrams
            with _threshold(queryset.db, FALLBACK_SIMILARITY):
                rows = _candidates(candidates.filter(condition), key, limit=SCAN_LIMIT)
    else:
        rows = list(candidates.values_list("pk", "search_key", "fide_id"))
    ranked = names.rank(key, [row[1] for row in rows], limit=SCAN_LIMIT)
    return [rows[r.index] for r in ranked]
