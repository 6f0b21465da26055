"""The duplicate finder: pairs of players that are likely one person entered twice, each with
a score (0-100) and the evidence for it.

Names are compared as their Latin letters (``anyascii``: "Иванчук" is "Ivanchuk"), case,
accents and punctuation aside, word order aside (RapidFuzz's ``token_sort_ratio``: "Able, Ann"
is "Ann Able"). Never every player against every other: players are put in blocks that a
duplicate would share (the same name once normalised, whatever else differs; or the same birth
year and federation and the first letters of one word of the name), and only the players of
one block are compared (RapidFuzz's ``cdist``, in C). A block larger than ``MAX_BLOCK`` (a
federation's thousands of Kumars born in one year) is ordered by name and compared in
overlapping windows of that size: the names alike sit close in that order, but a pair further
apart than a window is not proposed (the price of never comparing all pairs).

Two records FIDE lists as two people (different FIDE ids), of different sexes or of different
birth years are never proposed; a pair an administrator said are two people (``NotDuplicate``)
is not proposed again; a merged record is no longer a player.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from anyascii import anyascii
from django.utils.translation import gettext
from rapidfuzz import fuzz, process

from ladder.records.merges import NotDuplicate
from ladder.records.names import name_key
from ladder.records.players import Player

NAME_CUTOFF = 85  # names less alike than this are not proposed, whatever else agrees
MAX_BLOCK = 2000  # players compared at once, all pairs (4 million comparisons at most)
_SMALL = 6  # blocks this small are compared pair by pair
_PREFIX = 3  # a block shares the first letters of one word of the name
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Person:
    """What the finder reads of a player."""

    pk: int
    name: str
    fide_id: int | None
    birth_year: int | None
    federation: str
    sex: str

    @property
    def latin(self) -> str:
        """The name's words in Latin letters, lower case, in their order."""
        return " ".join(_WORD.findall(anyascii(name_key(self.name)).lower()))


@dataclass(frozen=True)
class Candidate:
    """A likely duplicate: two players, a score out of 100 and the evidence."""

    first: Person
    second: Person
    score: int
    evidence: tuple[str, ...]


def find_duplicates(
    players: Iterable[Person] | None = None, *, min_score: int = NAME_CUTOFF
) -> list[Candidate]:
    """Return the likely duplicates among ``players`` (default: every player not merged),
    best first, leaving out the pairs answered "not a duplicate"."""
    people = list(players) if players is not None else load_people()
    by_pk = {p.pk: p for p in people}
    latin = {p.pk: p.latin for p in people}
    answered = set(NotDuplicate.objects.values_list("first_id", "second_id"))
    seen: set[tuple[int, int]] = set()
    found = []
    for block in _blocks(people, latin):
        for a, b in _close_pairs(block, latin):
            pair = (min(a, b), max(a, b))
            if pair in seen or pair in answered:
                continue
            seen.add(pair)
            candidate = _judge(by_pk[pair[0]], by_pk[pair[1]], latin)
            if candidate is not None and candidate.score >= min_score:
                found.append(candidate)
    found.sort(key=lambda c: (-c.score, c.first.name, c.first.pk, c.second.pk))
    return found


def comparisons(people: list[Person]) -> int:
    """How many pairs of names the finder compares for ``people`` (all pairs: n(n-1)/2)."""
    latin = {p.pk: p.latin for p in people}
    return sum(len(block) * (len(block) - 1) // 2 for block in _blocks(people, latin))


def load_people() -> list[Person]:
    """Every player not merged, as the finder reads them (one query)."""
    rows = Player.objects.current().order_by("pk")
    fields = ("pk", "name", "fide_id", "birth_year", "federation", "sex")
    return [Person(*row) for row in rows.values_list(*fields)]


def _blocks(people: list[Person], latin: dict[int, str]) -> Iterator[list[int]]:
    """The blocks of player ids a duplicate pair would share (see the module's docstring)."""
    blocks: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for person in people:
        words = latin[person.pk].split()
        blocks[("name", " ".join(sorted(words)))].append(person.pk)
        for prefix in {word[:_PREFIX] for word in words}:
            blocks[("near", person.birth_year, person.federation, prefix)].append(person.pk)
    for ids in blocks.values():
        if len(ids) < 2:
            continue
        if len(ids) > MAX_BLOCK:
            ids.sort(key=lambda pk: " ".join(sorted(latin[pk].split())))
        for start in range(0, len(ids), MAX_BLOCK // 2):  # windows overlapping by half
            yield ids[start : start + MAX_BLOCK]
            if start + MAX_BLOCK >= len(ids):
                break


def _close_pairs(block: list[int], latin: dict[int, str]) -> Iterator[tuple[int, int]]:
    """The pairs of the block whose names are at least ``NAME_CUTOFF`` alike."""
    names = [latin[pk] for pk in block]
    if len(block) <= _SMALL:  # most blocks: a call each is cheaper than a matrix
        for i, first in enumerate(names):
            for j in range(i + 1, len(names)):
                if fuzz.token_sort_ratio(first, names[j], score_cutoff=NAME_CUTOFF):
                    yield block[i], block[j]
        return
    scores = process.cdist(
        names, names, scorer=fuzz.token_sort_ratio, score_cutoff=NAME_CUTOFF, dtype=np.uint8
    )
    rows, columns = np.nonzero(np.triu(scores, k=1))
    for i, j in zip(rows.tolist(), columns.tolist(), strict=True):
        yield block[i], block[j]


def _judge(a: Person, b: Person, latin: dict[int, str]) -> Candidate | None:
    """Score a pair and say why; None when the records say they are two people."""
    if a.fide_id and b.fide_id and a.fide_id != b.fide_id:
        return None
    if a.sex and b.sex and a.sex != b.sex:
        return None
    if a.birth_year and b.birth_year and a.birth_year != b.birth_year:
        return None
    similarity = fuzz.token_sort_ratio(latin[a.pk], latin[b.pk])
    evidence = [_name_evidence(a, b, latin, similarity)]
    score = similarity
    if a.birth_year and a.birth_year == b.birth_year:
        evidence.append(gettext("both born in %(year)s") % {"year": a.birth_year})
        score += 5
    if a.federation and a.federation == b.federation:
        evidence.append(gettext("both of %(federation)s") % {"federation": a.federation})
        score += 5
    elif a.federation and b.federation:
        evidence.append(
            gettext("federations differ (%(first)s, %(second)s): a transfer?")
            % {"first": a.federation, "second": b.federation}
        )
        score -= 10
    if bool(a.fide_id) != bool(b.fide_id):
        holder = a if a.fide_id else b
        evidence.append(
            gettext("only %(name)s (#%(id)s) has a FIDE id (%(fide_id)s)")
            % {"name": holder.name, "id": holder.pk, "fide_id": holder.fide_id}
        )
        score += 5
    if a.fide_id and a.fide_id == b.fide_id:  # not possible while FIDE ids are unique
        evidence.append(gettext("the same FIDE id %(fide_id)s") % {"fide_id": a.fide_id})
        score = 100
    return Candidate(a, b, max(0, min(100, round(score))), tuple(evidence))


def _name_evidence(a: Person, b: Person, latin: dict[int, str], similarity: float) -> str:
    names = {"first": a.name, "second": b.name}
    plain = a.name.isascii() and b.name.isascii()
    if name_key(a.name) == name_key(b.name):
        return gettext("the same name")
    if latin[a.pk] == latin[b.pk]:
        if plain:
            return gettext("the same name but for punctuation")
        return gettext("the same name transliterated (%(first)s / %(second)s)") % names
    if sorted(latin[a.pk].split()) == sorted(latin[b.pk].split()):
        if plain:
            return gettext("the same name in another order (%(first)s / %(second)s)") % names
        return (
            gettext("the same name transliterated, in another order (%(first)s / %(second)s)")
            % names
        )
    alike = {**names, "percent": round(similarity)}
    if plain:
        return gettext("close names (%(first)s / %(second)s: %(percent)s%% alike)") % alike
    return (
        gettext("close names, transliterated (%(first)s / %(second)s: %(percent)s%% alike)") % alike
    )
