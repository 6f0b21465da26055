"""Previews: what a correction, a deletion or an entry of games would do, saving nothing.

A preview runs the real action (``ladder.writes.actions``: the same validation, the same messages,
the same locks), then rates synchronously what the action asked the rating runs to rate (each
queued run's list, from its period, for its players: an incremental recompute, as the run
would do it), reads each player whose rating would change, old and new, and rolls everything
back: the game, its history row, the rating run and the data version's bump never commit.

A run already queued before the preview (background mode, a change not rated yet) is rated
with it, as the real run would rate it: the preview says what saving would leave behind.
On PostgreSQL a preview and a rating run never wait on each other in a circle: the preview
gives way to a run executing meanwhile (see ``_preview``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from ladder.records import Game, Player, RatingList
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import runs
from ratings.models import RatingRun, RunStatus
from ratings.recompute import services

# How long a preview waits for a rating run that executes meanwhile, and what it says then.
PATIENCE = 30.0
BUSY = "The ratings are being recomputed just now; ask for the preview again in a moment."

__all__ = ["LineChange", "Preview", "RatingChangeAhead", "correction", "deletion", "entry"]


@dataclass(frozen=True)
class RatingChangeAhead:
    """A player's rating on a list, now and after the change (None: unrated)."""

    rating_list: str
    player_id: int
    name: str
    old: int | None
    new: int | None

    def __str__(self) -> str:
        return f"{self.name} {_rating(self.old)} → {_rating(self.new)}"

    @property
    def list_label(self) -> str:
        return str(RatingList(self.rating_list).label)


@dataclass(frozen=True)
class LineChange:
    """A player's line of one period that the change would move: the rating after the period
    and the change in it, before and after (None: no line there)."""

    rating_list: str
    period: str
    player_id: int
    name: str
    old_rating: int | None
    new_rating: int | None
    old_change: int | None
    new_change: int | None

    def __str__(self) -> str:
        return (
            f"{self.period} {self.name}: {_rating(self.old_rating)} → {_rating(self.new_rating)} "
            f"(change {_signed(self.old_change)} → {_signed(self.new_change)})"
        )

    @property
    def list_label(self) -> str:
        return str(RatingList(self.rating_list).label)


@dataclass
class Preview:
    """What an action would do to the ratings: the periods recomputed (by list) and each player
    whose rating would change, old → new (``players``), with their lines period by period
    (``lines``)."""

    action: str
    periods: dict[str, list[str]] = field(default_factory=dict)
    players: list[RatingChangeAhead] = field(default_factory=list)
    lines: list[LineChange] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.players:
            return self.headline
        return f"{self.headline[:-1]}: {', '.join(map(str, self.players))}."

    @property
    def headline(self) -> str:
        """The periods recomputed and how many ratings would change, in one sentence."""
        if not any(self.periods.values()):
            return f"{self.action} would recompute nothing: no rating would change."
        spans = "; ".join(
            f"{_list_name(name)}{_span(labels)}" for name, labels in self.periods.items() if labels
        )
        count = len(self.players)
        ratings = "1 player's rating" if count == 1 else f"{count} players' ratings"
        return f"{self.action} would recompute {spans}: {ratings} would change."

    @property
    def several_lists(self) -> bool:
        """Whether the change reaches more than one list (then each line names its list)."""
        return len([labels for labels in self.periods.values() if labels]) > 1


def correction(*, game: Game, changes: Mapping[str, Any], user: Any = None) -> Preview:
    """Preview ``actions.correct_game``: its errors, or what it would do to the ratings."""
    return _preview(
        f"Correcting game #{game.pk}",
        lambda: actions.correct_game(game=game, changes=changes, user=user),
    )


def deletion(*, games: Iterable[Game], user: Any = None) -> Preview:
    """Preview ``actions.delete_games``: its errors, or what it would do to the ratings."""
    games = list(games)
    what = f"Deleting game #{games[0].pk}" if len(games) == 1 else f"Deleting {len(games)} games"
    return _preview(what, lambda: actions.delete_games(games=games, user=user))


def entry(*, games: Sequence[GameEntry], user: Any = None) -> Preview:
    """Preview ``actions.enter_games``: its errors, or what it would do to the ratings."""
    what = "Entering 1 game" if len(games) == 1 else f"Entering {len(games)} games"
    return _preview(what, lambda: actions.enter_games(games=games, user=user))


class _Busy(Exception):
    """A rating run is executing: give way to it."""


class _Rollback(Exception):
    """Carry the preview out of the transaction it rolls back."""

    def __init__(self, preview: Preview) -> None:
        super().__init__(preview.action)
        self.preview = preview


def _preview(action: str, write: Callable[[], object]) -> Preview:
    """Run ``write`` and rate what it queued, in a transaction that is always rolled back.

    The write takes the real action's locks; the recompute lock is only ever *tried* after
    them (``services.try_recompute_lock``): a rating run executing meanwhile may be waiting
    for a row the write locked, so the preview gives way (rolls back, waits a moment, tries
    again) instead of waiting for it. While a preview holds the lock, a write committed beside
    it leaves its run queued (immediate mode): what waits is executed once the preview is done.
    """
    deadline, pause = time.monotonic() + PATIENCE, 0.01
    while True:
        try:
            with transaction.atomic():
                write()
                if not services.try_recompute_lock():
                    raise _Busy
                raise _Rollback(_rate_queued(action))
        except _Rollback as done:
            preview = done.preview
            break
        except _Busy:
            if time.monotonic() > deadline:
                raise ValidationError(BUSY) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    runs.settle()
    return preview


def _rate_queued(action: str) -> Preview:
    """Rate each queued run's work as its run would, in a dry run; name the players."""
    preview = Preview(action)
    summaries: list[tuple[str, services.Recompute]] = []
    queued = RatingRun.objects.filter(status=RunStatus.QUEUED).select_related("from_period")
    for run in queued.order_by("rating_list", "pk"):
        summary = services.recompute_from(
            run.from_period, rating_list=run.rating_list, players=run.players, dry_run=True
        )
        preview.periods[run.rating_list] = summary.periods
        summaries.append((run.rating_list, summary))
        for name, followed in summary.followed.items():  # rapid and blitz seeded (R&B 7.2.1)
            preview.periods.setdefault(name, followed.periods)
            summaries.append((name, followed))
    ids = {m.player for _, s in summaries for m in s.moves}
    ids |= {line.player for _, s in summaries for line in s.lines}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
    for name, summary in summaries:
        preview.players += [
            RatingChangeAhead(name, m.player, names.get(m.player, "?"), m.old, m.new)
            for m in summary.moves
        ]
        preview.lines += [
            LineChange(name, line.period, line.player, names.get(line.player, "?"),
                       line.old_rating, line.new_rating, line.old_change, line.new_change)
            for line in summary.lines
        ]  # fmt: skip
    preview.players.sort(key=lambda p: (p.name.casefold(), p.player_id, p.rating_list))
    preview.lines.sort(key=lambda p: (p.period, p.name.casefold(), p.player_id, p.rating_list))
    return preview


def _rating(value: int | None) -> str:
    return "unrated" if value is None else str(value)


def _signed(value: int | None) -> str:
    return "none" if value is None else f"{value:+d}"


def _span(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{labels[0]} to {labels[-1]}"


def _list_name(rating_list: str) -> str:
    """Nothing for the standard list (most clubs keep only it), else "Rapid list: "."""
    if rating_list == RatingList.STANDARD:
        return ""
    return f"{RatingList(rating_list).label} list: "
