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

from collections.abc import Collection, Mapping, Sequence
from datetime import date

from django.db import transaction

from ladder.records import RatingList, RatingPeriod, kept_lists
from ratings.models import AppliedAdjustment, RatingChange
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
        summary = _recompute(period, rating_list, players, dry_run=dry_run)
        if rating_list == RatingList.STANDARD:
            moved = None if players is None else {*players, *(m.player for m in summary.lines)}
            summary.followed = follow_standard(period, moved, [rating_list], dry_run=dry_run)
        if dry_run:  # everything computed and counted, then rolled back
            transaction.set_rollback(True)
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
        if RatingList.STANDARD in names:
            followed = follow_standard(period, None, names, dry_run=dry_run)
            summaries[RatingList.STANDARD].followed = followed
        if dry_run:
            transaction.set_rollback(True)
        return summaries


def _recompute(
    period: RatingPeriod | None,
    rating_list: str,
    players: Collection[int] | None,
    *,
    dry_run: bool,
    seeded: bool = False,
    later: Mapping[int, date] | None = None,
    reach: Mapping[int, date] | None = None,
) -> Recompute:
    """A full replay of a list from ``period``, or an incremental recompute for ``players``;
    a full replay also when a one-off adjustment's rows must move or be made for everyone (a
    correction reaches only the players it reaches, an adjustment every rated player)."""
    earlier = adjusted_before(period, rating_list)
    if earlier is not None:  # the adjustment moves to ``period``: everyone's rows move
        period, players = earlier, None
    elif players is not None and adjustment_missing(period, rating_list):
        players = None
    if players is None:
        return replay_lists(period, [rating_list], dry_run=dry_run)[rating_list]
    return recompute_players(
        period, rating_list, set(players), dry_run=dry_run, seeded=seeded, later=later,
        reach=reach,
    )  # fmt: skip


def adjustment_missing(period: RatingPeriod | None, rating_list: str) -> bool:
    """Whether a one-off adjustment is due on the list at a period from ``period`` on whose
    rows do not show it made (the period is new, or was the last before the day only since).
    No query unless an adjustment of the list lies after ``period``'s start."""
    start = period.start if period is not None else date.min
    if rules(rating_list).fixed is not None or not any(
        a.on > start and rating_list in a.lists for a in eras.ADJUSTMENTS
    ):
        return False
    periods = list(
        RatingPeriod.objects.filter(start__gte=start).order_by("start").values_list("pk", "end")
    )
    for index, (pk, end) in enumerate(periods):
        following = periods[index + 1][1] if index + 1 < len(periods) else None
        for adjustment in eras.adjustments_due(end, following, rating_list):
            made = AppliedAdjustment.objects.filter(
                period_id=pk, rating_list=rating_list, adjusted_on=adjustment.on
            )
            # Rows adjusted: a replay before the adjustments made were kept said so.
            adjusted = RatingChange.objects.filter(
                period_id=pk, rating_list=rating_list, adjusted_on=adjustment.on
            )
            if not made.exists() and not adjusted.exists():
                return True
    return False


def adjusted_before(period: RatingPeriod | None, rating_list: str) -> RatingPeriod | None:
    """The period before ``period`` when its list carries a one-off adjustment that belongs to
    ``period`` now (made to the list closing the last period that ends before the adjustment's
    day, ``eras.adjustments_due``: a period created since, in between, takes it over). No
    query unless an adjustment of the list lies after ``period``; then three."""
    if period is None or not any(
        a.on > period.end and rating_list in a.lists for a in eras.ADJUSTMENTS
    ):
        return None
    before = RatingPeriod.objects.filter(start__lt=period.start).order_by("-start").first()
    if before is None:
        return None
    carried = RatingChange.objects.filter(
        rating_list=rating_list, period=before, adjusted_on__gt=period.end
    )
    made = AppliedAdjustment.objects.filter(
        rating_list=rating_list, period=before, adjusted_on__gt=period.end
    )
    return before if made.exists() or carried.exists() else None


def follow_standard(
    period: RatingPeriod | None,
    players: set[int] | None,
    done: Sequence[str],
    *,
    dry_run: bool,
) -> dict[str, Recompute]:
    """Rate again, after a recompute of the standard list from ``period``, the rapid and blitz
    players it may move, on each such list the club keeps and ``done`` does not hold: R&B 7.2.1
    (a player unrated there is rated with the standard rating): the players of ``players``
    (None: anyone) who play on it from ``period`` on while unrated on it, incrementally; and
    when the one-off adjustment of 1 October 2022 (raised to standard - 100) lies ahead, the
    players of ``players`` too from the period whose closing list it raises (before it, what
    moved on the standard list does not reach them), or with None the whole list replayed
    from ``period``.
    Returns a summary by list, for the lists that had any to rate (in a dry run too: it reads
    the standard rows the dry run wrote, all rolled back when its transaction ends)."""
    followed: dict[str, Recompute] = {}
    start = period.start if period is not None else date.min
    # The adjustments reading the standard list that the recompute may reach: dated after
    # ``period`` and after a period of the club's.
    reading = [a for a in eras.ADJUSTMENTS if a.uses_standard and a.on > start]
    if (
        reading
        and not RatingPeriod.objects.filter(
            start__gte=start, end__lt=max(a.on for a in reading)
        ).exists()
    ):
        reading = []
    for name in kept_lists():
        if name not in eras.RAPID_BLITZ_LISTS or name in done:
            continue
        ahead = rules(name).fixed is None and any(name in a.lists for a in reading)
        if ahead and players is None:
            followed[name] = _recompute(period, name, None, dry_run=dry_run)
            continue
        # Each player rated again from the period in which the standard list may first
        # reach their rows on this list: a candidate for a seed from their first game on it
        # (and in every period after, while seeded), a player the rise raises by their
        # standard rating from the period it raises, then as any player whose state changed.
        later = seeding_candidates(period, name, players)
        reach: dict[int, date] = {}
        if ahead and players is not None:
            at = _adjusted_period(start, [a for a in reading if name in a.lists])
            reach = dict.fromkeys(players, at.start if at is not None else start)
        if later or reach:
            since = RatingPeriod.objects.filter(start__gte=min([*later.values(), *reach.values()]))
            followed[name] = _recompute(since.order_by("start").first(), name, set(),
                                        dry_run=dry_run, seeded=True, later=later,
                                        reach=reach)  # fmt: skip
    return followed


def _adjusted_period(
    start: date, adjustments: Sequence[eras.RatingAdjustment]
) -> RatingPeriod | None:
    """The first period from ``start`` on whose closing list carries one of ``adjustments``
    (the last period that ends before its day, ``eras.adjustments_due``)."""
    found = None
    for adjustment in adjustments:
        period = (
            RatingPeriod.objects.filter(start__gte=start, end__lt=adjustment.on)
            .order_by("-start")
            .first()
        )
        if period is not None and (found is None or period.start < found.start):
            found = period
    return found
