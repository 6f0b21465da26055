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

from ladder.records import RatingList, RatingPeriod
from ratings.recompute import bulk
from ratings.recompute.incremental import recompute_players
from ratings.recompute.replay import replay_lists
from ratings.recompute.states import rules
from ratings.recompute.storage import LOCK_KEY, check_rating_lists, try_recompute_lock
from ratings.recompute.summary import Recompute

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
            return replay_lists(period, [rating_list], dry_run=dry_run)[rating_list]
        return recompute_players(period, rating_list, set(players), dry_run=dry_run)


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
        return replay_lists(period, list(dict.fromkeys(rating_lists)), dry_run=dry_run)
