"""How a player's name is looked up: its key (``name_key``), and names close to one typed.

``name_key`` is the one rule every door matches names by (round entry, the API, CSV, TRF and
PGN files): the same letters whatever their case, accents, Unicode form or spacing.

Names close to one typed: ``difflib.get_close_matches``, the same answer, over many names.

difflib works out the exact similarity of the typed name with every name in turn: over a
federation's 100,000 names that is about a second for one unknown name (measured), which a
big file's refusal waits for. ``NameIndex`` counts each name's characters once and bounds,
for all names at once in numpy, the similarity each can reach: twice the characters it shares
with the typed name over both lengths, which is difflib's own ``quick_ratio`` (or more, where
characters share a bucket) and never less than the exact ratio. The exact ratio is then worked
out best bound first, and the search stops when no name left can reach the cutoff or beat the
best found: the answer is difflib's, for a few hundred exact comparisons.
"""

from __future__ import annotations

import difflib
import heapq
import unicodedata
from collections.abc import Sequence

import numpy as np


def name_key(name: str) -> str:
    """Return the key a name is looked up by: case folded, accents dropped, any run of spaces
    one space ("  Ivančuk, VASSILY " and "ivancuk, vassily" are one key).

    Accents are dropped because a typed name often lacks the ones the list has; two players
    whose names differ only by them are told apart by their FIDE ids, as namesakes are.
    """
    if not name.isascii():  # most names are (FIDE's lists are): they skip the slow part
        decomposed = unicodedata.normalize("NFKD", name)
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


# Each character is counted in the bucket of its code point modulo 127: every ASCII character
# has a bucket of its own, and the others share (which only raises the bound).
_BUCKETS = 127
_CHUNK = 10_000  # names counted at a time


class NameIndex:
    """Names (lookup keys) with their characters counted, for ``close_matches``."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.lengths = np.fromiter(map(len, self.names), dtype=np.int64, count=len(self.names))
        # A count is at most a name's length (a Player.name holds 200 characters at most).
        self.counts = np.zeros((len(self.names), _BUCKETS), dtype=np.uint16)
        for start in range(0, len(self.names), _CHUNK):  # counted a chunk at a time: the
            chunk = self.names[start : start + _CHUNK]  # int64 counts of all names at once
            rows = np.repeat(np.arange(len(chunk)), self.lengths[start : start + _CHUNK])
            counts = np.bincount(  # would take 100 MB for a federation
                rows * _BUCKETS + _buckets("".join(chunk)), minlength=len(chunk) * _BUCKETS
            )
            self.counts[start : start + len(chunk)] = counts.reshape(len(chunk), _BUCKETS)

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """``difflib.get_close_matches(word, names, n, cutoff)``, exactly."""
        if not word or not self.names or n <= 0:
            return difflib.get_close_matches(word, self.names, n=n, cutoff=cutoff)
        typed = np.bincount(_buckets(word), minlength=_BUCKETS).astype(np.uint16)
        shared = np.minimum(self.counts, typed).sum(axis=1, dtype=np.int64)
        bounds = 2.0 * shared / (self.lengths + len(word))  # as difflib computes a ratio
        order = np.argsort(-bounds, kind="stable")
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(word)  # as get_close_matches sets them
        best: list[tuple[float, str]] = []  # the n best (score, name), the least first
        for k, bound in zip(order.tolist(), bounds[order].tolist(), strict=True):
            if bound < cutoff or (len(best) == n and bound < best[0][0]):
                break  # no name left can reach the cutoff, or beat (or tie) the n best
            name = self.names[k]
            matcher.set_seq1(name)
            score = matcher.ratio()
            if score >= cutoff:
                if len(best) < n:
                    heapq.heappush(best, (score, name))
                elif (score, name) > best[0]:
                    heapq.heapreplace(best, (score, name))
        return [name for _, name in sorted(best, reverse=True)]


def _buckets(text: str) -> np.ndarray:
    """Each character's bucket."""
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    return (points % _BUCKETS).astype(np.int64)
