"""How a player's name is matched: its keys, its look-alikes, and names close to one typed.

Every door finds players by name through this module (round entry, the admin's searches and
autocompletes, the pages, the API's ``?search=``, CSV, TRF and PGN files), so a name is found
the same way wherever it is typed:

- ``name_key``: the identity a name is looked up by exactly: case, accents, Unicode form,
  spacing, invisible characters and look-alike letters of another script do not count
  ("Ivančuk,  VASSILY", "ivancuk, vassily" and "Ivanсuk, Vassily" with a Cyrillic "с" are
  one key).
- ``search_key``: what a search compares (the ``Player.search_key`` column, trigram-indexed on
  PostgreSQL): the name transliterated to ASCII (anyascii: "Иванчук" is "ivanchuk", "Müller"
  "muller"), lower case, punctuation as spaces.
- ``skeleton``: what a reader sees (Unicode's confusables, UTS #39): a name with invisible
  characters or with letters of another script that look like Latin ones has the skeleton of
  the plain name, which the write path refuses beside an existing player (``look_alike``).
- ``score`` / ``close_matches``: typo, word order and sound-alike tolerant similarity
  (rapidfuzz's weighted ratio, with jellyfish's Metaphone for names that sound the same).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import jellyfish
from anyascii import anyascii
from confusable_homoglyphs import categories, confusables
from rapidfuzz import fuzz, process

# Characters that show nothing, or only change the direction of what follows: a name holding
# one looks like the name without it. (The bidirectional overrides U+202A-U+202E and isolates
# U+2066-U+2069 are refused as control characters by ``refuse_control_characters``.)
INVISIBLE = frozenset(
    {
        "\u00ad",  # soft hyphen
        "\u034f",  # combining grapheme joiner
        "\u061c",  # Arabic letter mark
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\u17b4",  # Khmer vowel inherent aq
        "\u17b5",  # Khmer vowel inherent aa
        "\u180e",  # Mongolian vowel separator
        *map(chr, range(0x200B, 0x2010)),  # zero-width space, non-joiner, joiner, LRM, RLM
        *map(chr, range(0x2060, 0x2065)),  # word joiner, invisible operators
        "\u3164",  # Hangul filler
        "\ufeff",  # byte order mark (zero-width no-break space)
        "\uffa0",  # halfwidth Hangul filler
    }
)
_STRIP_INVISIBLE = {ord(c): None for c in INVISIBLE}
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
# A name's scores at or above this are "close" (as difflib's 0.6 was, on rapidfuzz's 0-100).
CLOSE = 75.0
_SOUNDS_ALIKE = 90.0  # the score of names whose every word sounds the same


def invisible_characters(name: str) -> list[str]:
    """Return the invisible characters a name holds, in order of first appearance."""
    return list(dict.fromkeys(c for c in name if c in INVISIBLE))


@functools.lru_cache(maxsize=4096)
def _latin_look_alike(char: str) -> str | None:
    """The ASCII letter a character of another script looks like (Cyrillic "е" is "e"), from
    Unicode's confusables (confusable-homoglyphs); None for ASCII and for no look-alike."""
    if char.isascii() or not char.isalpha():
        return None
    for glyph in confusables.confusables_data.get(char, ()):
        if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalpha():
            return str(glyph["c"])
    return None


@functools.lru_cache(maxsize=8192)
def _script(char: str) -> str:
    """The script of a character, as Unicode's data name it (LATIN, CYRILLIC, COMMON...)."""
    return str(categories.alias(char))


def _latin_only(text: str) -> bool:
    return all(_script(c) in ("LATIN", "COMMON") for c in set(text) if not c.isascii())


def look_alike_letters(name: str) -> list[str]:
    """Return the letters of another script that make a word look Latin when it is not: a
    Latin word with a Cyrillic "е" in it ("Gеn"), or a word all of whose letters look like
    Latin ones ("Рау" in Cyrillic). A word wholly in another script with letters of its own
    ("Иванчук") has none: it is a name in that script."""
    found: list[str] = []
    if name.isascii() or _latin_only(name):
        return found
    for word in name.split():
        letters = [c for c in word if c.isalpha()]
        foreign = [c for c in letters if not c.isascii() and _script(c) != "LATIN"]
        if not foreign:
            continue
        alike = [c for c in foreign if _latin_look_alike(c) is not None]
        mixed = any(_script(c) == "LATIN" for c in letters)
        if alike and (mixed or len(alike) == len(foreign)):
            found += [c for c in alike if c not in found]
    return found


def skeleton(name: str) -> str:
    """Return what a reader sees of a name: invisible characters dropped, the compatibility
    form (NFKC: full-width letters are letters), look-alike letters of another script as the
    Latin letter they look like, spacing as single spaces. Case and accents are kept."""
    if name.isascii():
        return " ".join(name.split())
    text = unicodedata.normalize("NFKC", name.translate(_STRIP_INVISIBLE))
    if _latin_only(text):  # most names that are not ASCII: accented Latin letters
        return " ".join(text.split())
    alike = set(look_alike_letters(text))
    if alike:
        text = "".join(_latin_look_alike(c) or c if c in alike else c for c in text)
    return " ".join(text.split())


def name_key(name: str) -> str:
    """Return the key a name is looked up by: the ``skeleton``, case folded, accents dropped
    ("  Ivančuk, VASSILY " and "ivancuk, vassily" are one key).

    Accents are dropped because a typed name often lacks the ones the list has; two players
    whose names differ only by them are told apart by their FIDE ids, as namesakes are.
    """
    if not name.isascii():  # most names are (FIDE's lists are): they skip the slow part
        decomposed = unicodedata.normalize("NFKD", skeleton(name))
        letters = "".join(c for c in decomposed if not unicodedata.combining(c))
        name = unicodedata.normalize("NFC", letters)
    return " ".join(name.split()).casefold()


def name_keys(name: str) -> set[str]:
    """The keys of the ways a name may be written: as given, and ``Lastname, Firstname``
    turned round (as TRF and PGN files write it)."""
    keys = {name_key(name)}
    last, comma, first = name.partition(",")
    if comma:
        keys.add(name_key(f"{first} {last}"))
    return keys


def search_key(name: str) -> str:
    """Return what a search compares of a name: its ``skeleton`` in ASCII (anyascii's
    transliteration), lower case, every run of other characters one space."""
    text = name if name.isascii() else anyascii(skeleton(name))
    return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())


def words_of(key: str) -> str:
    """Return the words of a ``search_key`` in alphabetical order: one key for every order and
    spelling of the same words ("Carlsen, Magnus", "magnus carlsen")."""
    return " ".join(sorted(key.split()))


def _sounds(key: str) -> tuple[str, ...]:
    return tuple(sorted(jellyfish.metaphone(word) for word in key.split()))


def score(query: str, candidate: str) -> float:
    """Return how close two search keys are, 0 to 100: rapidfuzz's weighted ratio (typos,
    words in any order, a part of the name), or ``_SOUNDS_ALIKE`` when their words sound the
    same (Metaphone: "Karlsen" and "Carlsen")."""
    found = fuzz.WRatio(query, candidate)
    if found < _SOUNDS_ALIKE and query and _sounds(query) == _sounds(candidate):
        return _SOUNDS_ALIKE
    return float(found)


@dataclass(frozen=True)
class Ranked:
    """A candidate with its score, best first when sorted."""

    score: float
    key: str
    index: int


def rank(query: str, keys: Sequence[str], *, limit: int, cutoff: float = CLOSE) -> list[Ranked]:
    """Return the ``limit`` keys closest to ``query`` (both search keys) scoring at least
    ``cutoff``, best first (ties: the shorter key, then the earlier)."""
    if not query or not keys or limit <= 0:
        return []
    # rapidfuzz's C++ pass over every key, with a lower bar: the sound-alike and the rank
    # are worked out for the few it keeps.
    found = process.extract(
        query, keys, scorer=fuzz.WRatio, limit=max(limit * 10, 50), score_cutoff=cutoff * 0.8
    )
    ranked = [Ranked(score(query, key), key, index) for key, _, index in found]
    ranked = [r for r in ranked if r.score >= cutoff]
    ranked.sort(key=lambda r: (-r.score, len(r.key), r.index))
    return ranked[:limit]


def close_matches(typed: str, names: Iterable[str], n: int = 3) -> list[str]:
    """Return up to ``n`` of ``names`` closest to the name ``typed`` (typos, word order,
    accents, transliteration, sound), best first: the "Did you mean" of every door."""
    names = list(names)
    keys = [search_key(name) for name in names]
    return [names[r.index] for r in rank(search_key(typed), keys, limit=n)]
