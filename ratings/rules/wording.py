"""The rules' own sentences: written in English here, translated at the doors.

The rules import nothing of Django, so they cannot translate. Every sentence they make (a K's
reason, a line of "Rules in force", the calculator's labels and refusals) is built from a
template marked with ``gettext_noop``: a no-op that ``makemessages`` gathers into the
catalogues (Django passes ``--keyword=gettext_noop`` to xgettext), with its values filled in
by ``%``: ``gettext_noop("fewer than 30 rated games (%(games)s)") % {"games": 12}``.

What comes out is a plain English ``str``: the rules and the records keep it as they always
did (a rating change stores its K's reason). A door that shows one to a reader finds its
template back (``read``) and translates it: ``ladder.records.rules_texts.translated`` gives
``gettext(template) % values``. A template is therefore a module-level constant, marked when
its module is imported; ``read`` knows each marked template once the rules are imported.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_TEMPLATES: dict[str, None] = {}  # every template marked, in order (a dict: each once)
_PLACE = re.compile(r"%\((\w+)\)[sd]|%%")


def gettext_noop(template: str) -> str:
    """Mark ``template`` as a sentence to translate (makemessages gathers it); return it."""
    _TEMPLATES[template] = None
    return template


@dataclass(frozen=True, slots=True)
class Wording:
    """A sentence read back: the template it was built from and the values filled in."""

    template: str
    values: dict[str, str]


def read(text: str) -> Wording | None:
    """Return the marked template ``text`` was built from and its values; None for a text
    the rules did not make (a reason typed by the club, a sentence of an older version)."""
    # The texts read are few (a K's reason per player: a handful of sentences), and matching
    # one tried every template's pattern (a fifth of a 50-player API page): each is matched
    # once per set of templates marked.
    return _matched(len(_TEMPLATES), text)


@functools.lru_cache(maxsize=4096)
def _matched(templates: int, text: str) -> Wording | None:
    """``_match``, kept per number of templates marked (a module marking more reads again)."""
    return _match(text)


def _match(text: str) -> Wording | None:
    if text in _TEMPLATES and not _PLACE.search(text):
        return Wording(text, {})
    for template, pattern in _patterns():
        found = pattern.fullmatch(text)
        if found is not None:
            return Wording(template, found.groupdict())
    return None


_compiled: list[tuple[str, re.Pattern[str]]] = []


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The templates with values, as patterns (compiled again when more were marked)."""
    with_values = [t for t in _TEMPLATES if _PLACE.search(t)]
    if len(_compiled) != len(with_values):
        _compiled[:] = [(t, _pattern(t)) for t in with_values]
    return _compiled


@functools.lru_cache(maxsize=8192, typed=True)  # a K's reasons: the same few hundred, each period
def fill(template: str, value: object) -> str:
    """Fill the one value a template names, whatever its name (a hashable value)."""
    place = _PLACE.search(template)
    if place is None or not place.group(1):
        raise ValueError(f"{template!r} names no value")
    return template % {place.group(1): value}


def _pattern(template: str) -> re.Pattern[str]:
    parts, at, seen = [], 0, set()
    for place in _PLACE.finditer(template):
        parts.append(re.escape(template[at : place.start()]))
        name = place.group(1)
        if name is None:
            parts.append("%")
        elif name in seen:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>.+?)")
            seen.add(name)
        at = place.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts), re.DOTALL)
