"""FIDE's three lists and the names of a player's fields on each."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import models


class RatingList(models.TextChoices):
    """FIDE's three lists (FIDE.md 9): every game is rated on one; a player has a rating on each."""

    STANDARD = "standard", "Standard"
    RAPID = "rapid", "Rapid"
    BLITZ = "blitz", "Blitz"


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


def entry_fields(rating_list: str) -> tuple[str, ...]:
    """A change to any of these changes the player's ratings on that list from the first game."""
    return (*LIST_FIELDS[rating_list].entry, "birth_year")


# A change to any of these changes the player's ratings (on some list) from their first game on.
PLAYER_ENTRY_FIELDS = tuple(
    dict.fromkeys(name for fields in LIST_FIELDS.values() for name in (*fields.entry,))
) + ("birth_year",)
