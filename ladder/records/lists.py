"""FIDE's three lists and the names of a player's fields on each."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, gettext_lazy

from ratings.rules import fide


class RatingList(models.TextChoices):
    """FIDE's three lists (FIDE.md 9): every game is rated on one; a player has a rating on each.
    The names are the rules' (``fide.LISTS``, which a time control chooses among)."""

    STANDARD = fide.LIST_STANDARD, gettext_lazy("Standard")
    RAPID = fide.LIST_RAPID, gettext_lazy("Rapid")
    BLITZ = fide.LIST_BLITZ, gettext_lazy("Blitz")


@dataclass(frozen=True)
class ListFields:
    """The names of a player's fields for one list: entry data and the derived state.

    The standard list keeps the names it always had (API v1 clients read them); the rapid and
    blitz lists prefix them.
    """

    entry_rating: str
    entry_rated_games: str
    entry_peak_rating: str
    rating: str
    rated_games: str
    peak_rating: str
    last_rated_on: str
    last_change: str

    @property
    def entry(self) -> tuple[str, str, str]:
        return (self.entry_rating, self.entry_rated_games, self.entry_peak_rating)

    @property
    def derived(self) -> tuple[str, str, str, str, str]:
        return (self.rating, self.rated_games, self.peak_rating, self.last_rated_on,
                self.last_change)  # fmt: skip


def _list_fields(prefix: str) -> ListFields:
    names = ("entry_rating", "entry_rated_games", "entry_peak_rating", "rating", "rated_games",
             "peak_rating", "last_rated_on", "last_change")  # fmt: skip
    return ListFields(*(prefix + name for name in names))


LIST_FIELDS: dict[str, ListFields] = {
    RatingList.STANDARD: _list_fields(""),
    RatingList.RAPID: _list_fields("rapid_"),
    RatingList.BLITZ: _list_fields("blitz_"),
}


def kept_lists() -> list[str]:
    """The lists the club keeps (setting ``LADDER_LISTS``; default all three), FIDE's order."""
    return list(settings.LADDER_LISTS)


def default_list() -> str:
    """The list a game goes on when nothing says otherwise: standard, if the club keeps it."""
    kept = kept_lists()
    return RatingList.STANDARD if RatingList.STANDARD in kept else kept[0]


def parse_list(value: str | None) -> str:
    """Return the list a request names (``?list=``): blank or absent is the club's default list;
    else one the club keeps, written in any case. Raise ``ValueError`` with the sentence every
    door shows: for a name that is no list, or a list the club does not keep (as the write path
    refuses to put a game on it, no door reads it)."""
    name = (value or "").strip().lower()
    if not name:
        return default_list()
    if name not in RatingList.values:
        *most, last = RatingList.values
        raise ValueError(
            gettext("'%(value)s' is not a list; use %(most)s or %(last)s.")
            % {"value": value, "most": ", ".join(most), "last": last}
        )
    kept = kept_lists()
    if name not in kept:
        raise ValueError(
            gettext("The club keeps no %(name)s list (it keeps: %(kept)s).")
            % {"name": name, "kept": ", ".join(kept)}
        )
    return name


def entry_fields(rating_list: str) -> tuple[str, ...]:
    """A change to any of these changes the player's ratings on that list from the first game."""
    return (*LIST_FIELDS[rating_list].entry, "birth_year")


# A change to any of these changes the player's ratings (on some list) from their first game on.
PLAYER_ENTRY_FIELDS = tuple(
    dict.fromkeys(name for fields in LIST_FIELDS.values() for name in (*fields.entry,))
) + ("birth_year",)
