"""Rating services: the only code that writes ratings.

``recompute_from`` walks a period and every later one in date order, in one transaction. A full
replay loads each period in a fixed number of queries whatever the number of players (its games
packed into one value, the players' states carried from period to period in memory), rates it
with the pure ``ratings.rules.engine`` and writes it back in bulk. Given the players whose own
inputs changed, it rates only them and whoever their changes reach through the games, and writes
only the rows that differ; a property test (tests/ratings/test_incremental.py) holds that equal
to a full replay.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.db import transaction

from ladder.records import RatingList, RatingPeriod, kept_lists
from ratings.recompute import bulk
from ratings.recompute.incremental import recompute_players
from ratings.recompute.replay import replay_lists
from ratings.recompute.states import rules, seeding_candidates
from ratings.recompute.storage import LOCK_KEY, check_rating_lists, try_recompute_lock
from ratings.recompute.summary import Recompute
from ratings.rules import eras

# What callers use beside the two services (the lock, for the run executor and the previews;
# the rule options, for the API's description of them).
__all__ = [
    "LOCK_KEY",
    "Recompute",
    "recompute_from",
    "recompute_lists",
    "rules",
    "try_recompute_lock",
]


def recompute_from(
    period: RatingPeriod | None = None,
    *,
    rating_list: str = RatingList.STANDARD,
    players: Collection[int] | None = None,
    dry_run: bool = False,
) -> Recompute:
    """Recompute one list (FIDE.md 9: each is rated alone, on its own games) from ``period``
    (default: the first) through every later period; refresh the players' state on it.

    With ``players`` None every player of every period is rated again (a full replay). With
    ``players`` given, only those players' inputs changed (a game of theirs, their entry data or
    birth year): they are rated again in every period from ``period`` on, and so is everyone
    their changes reach through the games (DESIGN Flow 3); every other row stays as stored.
    With ``dry_run`` everything is computed and counted, then rolled back.
    """
    with bulk.gc_paused(), transaction.atomic():
        if players is None:
            summary = replay_lists(period, [rating_list], dry_run=dry_run)[rating_list]
        else:
            summary = recompute_players(period, rating_list, set(players), dry_run=dry_run)
        if rating_list == RatingList.STANDARD and not dry_run:
            moved = None if players is None else {*players, *(m.player for m in summary.lines)}
            summary.followed = follow_standard(period, moved, [rating_list], dry_run=dry_run)
        return summary


def recompute_lists(
    period: RatingPeriod | None = None,
    *,
    rating_lists: Sequence[str],
    dry_run: bool = False,
) -> dict[str, Recompute]:
    """A full replay of several lists from ``period``, in one pass; a summary per list.

    The same as ``recompute_from(period, rating_list=name)`` for each list, in one transaction:
    the lists are rated apart (FIDE.md 9) but read and written together (see
    ``replay_lists``), which is what makes a federation's three lists cost less than three
    recomputes.
    """
    check_rating_lists(rating_lists)
    with bulk.gc_paused(), transaction.atomic():
        names = list(dict.fromkeys(rating_lists))
        summaries = replay_lists(period, names, dry_run=dry_run)
        if RatingList.STANDARD in names and not dry_run:
            followed = follow_standard(period, None, names, dry_run=dry_run)
            summaries[RatingList.STANDARD].followed = followed
        return summaries


def follow_standard(
    period: RatingPeriod | None,
    players: set[int] | None,
    done: Sequence[str],
    *,
    dry_run: bool,
) -> dict[str, Recompute]:
    """Rate again, after a recompute of the standard list from ``period``, the rapid and blitz
    players it may move (R&B 7.2.1: a player unrated there is rated with the standard rating):
    on each such list the club keeps and ``done`` does not hold, the players of ``players``
    (None: anyone) who play on it from ``period`` on while unrated on it, incrementally.
    Returns a summary by list, for the lists that had any to rate. (A dry run, rolled back
    before it ends, reports the standard list only.)"""
    followed: dict[str, Recompute] = {}
    for name in kept_lists():
        if name not in eras.RAPID_BLITZ_LISTS or name in done:
            continue
        candidates = seeding_candidates(period, name, players)
        if candidates:
            followed[name] = recompute_players(
                period, name, candidates, dry_run=dry_run, seeded=True
            )
    return followed
