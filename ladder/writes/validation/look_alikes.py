"""Look-alike names: a new or renamed player whose name only looks like a name.

A name is refused, at every door that adds or renames players (the admin's form, the API, CSV
and tournament-file imports), when

- it holds invisible characters (zero-width spaces and joiners, direction marks, a byte order
  mark: ``names.INVISIBLE``): what a reader sees is another name;
- a word mixes Latin letters with letters of another script that look like Latin ones (a
  Cyrillic "е" in "Gеn"): no one writes a name so, but it would stand beside the real one;
- it looks the same as another player's name (``names.skeleton``: Unicode's confusables)
  without being the same text, one of the two being written with such characters (a wholly
  Cyrillic "Рау" beside the Latin "Pay"). Namesakes written alike stay allowed, as today.

Each message names the existing player it looks like, when there is one. Refusing rather than
quietly cleaning the name: the person typing learns that the player already exists.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext

from ladder.records import Player
from ladder.records.names import (
    invisible_characters,
    look_alike_letters,
    search_key,
    skeleton,
)
from ladder.writes.validation.games import IN_LIST_LIMIT


def check_look_alikes(players: Sequence[Player], *, sources: Sequence[str] = ()) -> list[str]:
    """Return each player's look-alike problem with their name ("" for none), in order.

    ``sources`` name the players of a batch ("line 5") for one that looks like another of the
    same batch. One query.
    """
    names = [" ".join(player.name.split()) for player in players]
    stored = _stored_look_alikes(players)
    problems = []
    first: dict[str, int] = {}  # a skeleton -> the first player of the batch with it
    for index, (player, name) in enumerate(zip(players, names, strict=True)):
        seen = skeleton(name)
        twin = next((p for p in stored.get(search_key(name), ()) if _alike(p.name, name, seen)
                     and p.pk != player.pk), None)  # fmt: skip
        label = (
            gettext("the existing player %(player)s") % {"player": _named(twin)}
            if twin is not None
            else ""
        )
        if not label and seen in first and _alike(names[first[seen]], name, seen):
            other = first[seen]
            source = sources[other] if sources else gettext("player %(n)s") % {"n": other + 1}
            label = f"{source} ({names[other]})"
        first.setdefault(seen, index)
        problems.append(_problem(name, label, twin))
    return problems


def check_player_name(player: Player) -> None:
    """Refuse a new or renamed player's look-alike name (``ValidationError`` on ``name``)."""
    if player.pk is not None:
        stored = Player.objects.filter(pk=player.pk).values_list("name", flat=True).first()
        if stored == player.name:
            return
    problem = check_look_alikes([player])[0]
    if problem:
        raise ValidationError({"name": [problem]})


def _problem(name: str, label: str, twin: Player | None) -> str:
    invisible, alike = invisible_characters(name), look_alike_letters(name)
    if twin is not None and not invisible and not alike:
        what = _what(invisible_characters(twin.name), look_alike_letters(twin.name))
        return gettext(
            "'%(name)s' looks the same as %(other)s, whose name is written with %(what)s; "
            "correct that player's name first, or enter that player."
        ) % {"name": name, "other": label, "what": what}
    what = _what(invisible, alike)
    if label:
        return gettext(
            "'%(name)s' looks the same as %(other)s but is written with %(what)s; enter that "
            "player instead, or type the name in plain letters."
        ) % {"name": name, "other": label, "what": what}
    if invisible:
        return gettext("The name holds %(what)s, which no one sees; type the name without it.") % {
            "what": what
        }
    if alike and _mixed(name, alike):
        return gettext(
            "The name mixes Latin letters with %(what)s, which look like Latin ones; type it in "
            "one script."
        ) % {"what": what}
    return ""


def _what(invisible: list[str], alike: list[str]) -> str:
    parts = []
    if invisible:
        parts.append(
            ngettext(
                "the invisible character %(chars)s",
                "the invisible characters %(chars)s",
                len(invisible),
            )
            % {"chars": _describe(invisible)}
        )
    if alike:
        parts.append(gettext("letters of another script (%(chars)s)") % {"chars": _describe(alike)})
    if len(parts) == 2:
        return gettext("%(first)s and %(second)s") % {"first": parts[0], "second": parts[1]}
    return parts[0] if parts else gettext("other characters")


def _describe(chars: list[str]) -> str:
    return ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in chars)


def _mixed(name: str, alike: list[str]) -> bool:
    """Whether a word with look-alike letters also holds Latin letters of its own."""
    for word in name.split():
        if any(c in alike for c in word) and any(
            c.isalpha() and c not in alike and unicodedata.name(c, "").startswith("LATIN")
            for c in word
        ):
            return True
    return False


def _alike(stored: str, name: str, seen: str) -> bool:
    """Two names look alike: the same skeleton, not the same text, one of them not plain."""
    stored = " ".join(stored.split())
    if stored == name or skeleton(stored) != seen:
        return False
    return any(invisible_characters(n) or look_alike_letters(n) for n in (stored, name))


def _named(player: Player) -> str:
    return f"{player} (#{player.pk})"


def _stored_look_alikes(players: Sequence[Player]) -> dict[str, list[Player]]:
    """The stored players whose search key is one of the players' (look-alikes share it): one
    query, for many players every stored player's (SQLite limits a statement's values)."""
    keys = {search_key(p.name) for p in players} - {""}
    if not keys:
        return {}
    stored = Player.objects.order_by("pk")
    if len(keys) <= IN_LIST_LIMIT:
        stored = stored.filter(search_key__in=sorted(keys))
    found: dict[str, list[Player]] = {}
    rows = stored.values_list("pk", "name", "fide_id", "search_key")
    for pk, name, fide_id, key in rows.iterator(chunk_size=10_000):
        if key in keys:
            found.setdefault(key, []).append(Player(pk=pk, name=name, fide_id=fide_id))
    return found
