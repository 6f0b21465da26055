"""Close names: the index gives difflib's own answer (it only skips what difflib skips)."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.records.names import NameIndex

# Letters, a few accented ones and characters that share a bucket (code points 64 apart).
ALPHABET = "abcdeijlmnorstuvyz -'éöçAŁ" + chr(ord("a") + 64) + chr(ord("e") + 128)
names = st.text(alphabet=ALPHABET, min_size=0, max_size=14)


@settings(max_examples=500, deadline=None)
@given(st.lists(names, max_size=60, unique=True), names, st.sampled_from([0.0, 0.6, 0.8, 1.0]))
def test_the_same_answer_as_difflib(keys, word, cutoff):
    expected = difflib.get_close_matches(word, keys, n=3, cutoff=cutoff)
    assert NameIndex(keys).close_matches(word, n=3, cutoff=cutoff) == expected


def test_a_federation_of_names():
    keys = [f"player {i:06d}" for i in range(20_000)] + ["ann able", "anna abel", "dan able"]
    index = NameIndex(keys)
    for word in (
        "ann able",
        "player 01234",
        "nobody known",
        "anne abel",
        "playr 000017",
        "player 00001x",
    ):
        assert index.close_matches(word) == difflib.get_close_matches(word, keys, n=3)
