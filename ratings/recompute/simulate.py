"""Parallel lists: a whole list rated again under other rules, written nowhere (FIDE.md 10.2).

FIDE said in 2009 that it regretted not having had such a comparison before it changed K. A
simulation is a full replay in a transaction that is rolled back, with the rule set of another
day (``LADDER_RULES`` as a date) and, if asked, a changed K, cap or floor; what it reports is
each player whose rating after the latest period would differ, and a summary.
"""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass
from datetime import date

from django.db import transaction

from ladder.records import RatingPeriod
from ratings.recompute import bulk
from ratings.recompute.replay import replay_lists
from ratings.recompute.states import rules
from ratings.recompute.summary import RatingMove
from ratings.rules import engine

# The levels a change of rules may take players across (FIDE.md 7: CM, FM, IM levels; 2000).
THRESHOLDS = (2000, 2200, 2400)


@dataclass(frozen=True)
class Simulation:
    """What a list would be under other rules: each differing player and a summary."""

    rating_list: str
    periods: list[str]
    moves: list[RatingMove]  # old: as stored now; new: as simulated

    @property
    def changes(self) -> list[int]:
        """The differences of the players rated both ways (new - old)."""
        return [m.new - m.old for m in self.moves if m.new is not None and m.old is not None]

    @property
    def mean_change(self) -> float | None:
        found = self.changes
        return statistics.fmean(found) if found else None

    @property
    def largest_change(self) -> int | None:
        return max(self.changes, key=abs, default=None)

    def crossing(self, threshold: int) -> tuple[int, int]:
        """How many players the other rules take up across ``threshold``, and how many down."""
        up = down = 0
        for move in self.moves:
            old, new = move.old or 0, move.new or 0
            up += old < threshold <= new
            down += new < threshold <= old
        return up, down


def simulate_rules(
    *,
    period: RatingPeriod | None,
    rating_list: str,
    on: date | None = None,
    k: int | None = None,
    cap: int | None = None,
    floor: int | None = None,
) -> Simulation:
    """Rate ``rating_list`` from ``period`` (None: the first) under the rule set in force on
    ``on`` (None: the club's own) with an optional K for everyone, cap or floor; write nothing.
    """
    club = rules(rating_list)
    options = dataclasses.replace(
        club,
        fixed=on if on is not None else club.fixed,
        club_k=k if k is not None else club.club_k,
        cap=cap,
        floor=floor,
    )

    def rules_of(name: str) -> engine.Rules:
        return options

    with bulk.gc_paused(), transaction.atomic():
        summary = replay_lists(period, [rating_list], dry_run=True, rules_of=rules_of)
        transaction.set_rollback(True)  # computed, never written
    found = summary[rating_list]
    return Simulation(rating_list, list(found.periods), sorted(found.moves, key=_order))


def _order(move: RatingMove) -> tuple[int, int]:
    old, new = move.old or 0, move.new or 0
    return (-abs(new - old), move.player)
