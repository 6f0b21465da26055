"""What the API's validators enforce, written as OpenAPI constraints read from the validators
and rules themselves (never typed a second time): the characters a text may not hold, the
time controls the rules read, the words a score may be written with.

A generator (openapi-python-client) or a fuzzer (Schemathesis) then builds what the API
accepts; the API still checks everything itself and answers its own sentences.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from django.core.exceptions import ValidationError

from ladder.records.text import refuse_control_characters, refuse_control_characters_but_lines
from ratings.rules import calculator, fide

# The text validators whose rule is one character at a time (a text passes when each of its
# characters does), so that the characters they refuse make a pattern.
TEXT_VALIDATORS: tuple[Callable[[str], None], ...] = (
    refuse_control_characters,
    refuse_control_characters_but_lines,
)


@functools.cache
def allowed_text_pattern(validator: Callable[[str], None]) -> str:
    """A pattern of the texts ``validator`` lets through: the characters it refuses, found by
    asking it of every character of the Basic Multilingual Plane (where every control and
    bidirectional character lies), excluded from a class."""
    refused = []
    for code in range(0x10000):
        try:
            validator(chr(code))
        except ValidationError:
            refused.append(code)
    ranges = "".join(
        _escape(first) if first == last else f"{_escape(first)}-{_escape(last)}"
        for first, last in _runs(refused)
    )
    return f"^[^{ranges}]*$"


def text_pattern_of(validators: list) -> str | None:
    """The pattern of the first character-by-character text validator among ``validators``."""
    for validator in validators:
        if validator in TEXT_VALIDATORS:
            return allowed_text_pattern(validator)
    return None


def time_control_pattern() -> str:
    """A time control as ``fide.parse_time_control`` reads it (the schema adds the blank one a
    field allows). The rules read it in ASCII mode: the classes are spelled out so that a
    Unicode regex engine reads the same."""
    return fide.TIME_CONTROL_PATTERN.replace(r"\d", "[0-9]").replace(r"\s", r"[\t\n\v\f\r ]")


def score_words() -> list[str]:
    """The words a score may be written with (the calculator also takes them in capitals)."""
    return list(calculator.SCORE_WORDS)


def _escape(code: int) -> str:
    return f"\\u{code:04x}"


def _runs(codes: list[int]) -> Iterator[tuple[int, int]]:
    """Consecutive runs of sorted code points, as (first, last)."""
    start = previous = None
    for code in codes:
        if previous is not None and code == previous + 1:
            previous = code
            continue
        if start is not None:
            yield start, previous  # type: ignore[misc]
        start = previous = code
    if start is not None:
        yield start, previous  # type: ignore[misc]
