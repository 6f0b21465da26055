"""What a recompute reports: its summary, and the ratings and lines it moved."""

from __future__ import annotations

from dataclasses import dataclass, field

from ratings.rules.wording import gettext_noop

# What a recompute says, as templates the doors translate (``ladder.records.translations``):
# the summary is stored with its run in English and shown in the reader's language.
_NOTHING = gettext_noop("Nothing to recompute: there are no rating periods.")
_SPAN = gettext_noop("%(first)s to %(last)s")
_SAID = {
    (False, True): gettext_noop("%(span)s recomputed: 1 player's rating changed."),
    (False, False): gettext_noop("%(span)s recomputed: %(count)s players' ratings changed."),
    (True, True): gettext_noop("%(span)s recomputed: 1 player's rating would change."),
    (True, False): gettext_noop("%(span)s recomputed: %(count)s players' ratings would change."),
}


@dataclass(frozen=True)
class RatingMove:
    """A player's rating on the list after the recompute, before and after (None: unrated)."""

    player: int
    old: int | None
    new: int | None


@dataclass(frozen=True)
class LineMove:
    """A player's line of one period that the recompute changed: the rating after the period
    and the change in it, before and after (None: no line, the player had no game there)."""

    period: str
    player: int
    old_rating: int | None
    new_rating: int | None
    old_change: int | None
    new_change: int | None


@dataclass
class Recompute:
    """What a recompute did, in words an administrator understands.

    ``moves`` names each player whose rating changed (old and new); ``lines`` each period's
    line whose rating or change moved, as far as the recompute compared them (an incremental
    one does, period by period; a full replay rewrites the periods whole and leaves it empty).
    """

    periods: list[str] = field(default_factory=list)
    rows: int = 0
    players_changed: int = 0
    dry_run: bool = False
    moves: list[RatingMove] = field(default_factory=list)
    lines: list[LineMove] = field(default_factory=list)
    # The recomputes of other lists this one's changes reached, by list (a standard rating
    # seeds rapid and blitz: R&B 7.2.1).
    followed: dict[str, Recompute] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.periods:
            return _NOTHING
        span = (
            self.periods[0]
            if len(self.periods) == 1
            else _SPAN % {"first": self.periods[0], "last": self.periods[-1]}
        )
        said = _SAID[(self.dry_run, self.players_changed == 1)]
        return said % {"span": span, "count": self.players_changed}
