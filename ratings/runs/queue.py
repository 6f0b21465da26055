"""The queued run of each list: found and locked, created, and widened as changes merge in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from ladder.records import RatingList, RatingPeriod
from ratings.exceptions import RunQueueError
from ratings.models import RatingRun, RunStatus

REASON_LENGTH = RatingRun._meta.get_field("reason").max_length or 300


def merge_into_queued(
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any,
) -> RatingRun | None:
    run = locked_queued_run(rating_list)
    if run is None:
        return None
    widen(run, period, players)
    if run.requested_by_id is None and user is not None and user.is_authenticated:
        run.requested_by, run.reason = user, reason[:REASON_LENGTH]
    run.changes += 1
    run.last_change_at = timezone.now()
    run.save(update_fields=["from_period", "players", "requested_by", "reason", "changes",
                            "last_change_at"])  # fmt: skip
    return run


def widen(run: RatingRun, period: RatingPeriod | None, players: Iterable[int] | None) -> None:
    """Make ``run`` rate from the earlier period and for the union of the players."""
    current = run.from_period  # None: from the first period already
    if current is not None and (period is None or period.start < current.start):
        run.from_period = period
    if run.players is not None:
        run.players = None if players is None else sorted({*run.players, *players})


def locked_queued_run(rating_list: str | None) -> RatingRun | None:
    """The waiting run of a list (None: the oldest of any list), locked until the caller's
    transaction ends (writers queue behind it)."""
    queued = RatingRun.objects.filter(status=RunStatus.QUEUED).select_related("from_period")
    if rating_list is not None:
        queued = queued.filter(rating_list=rating_list)
    return queued.order_by("pk").select_for_update(of=("self",)).first()


def create_queued(
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any,
) -> RatingRun:
    run = RatingRun(
        rating_list=rating_list,
        from_period=period,
        players=None if players is None else sorted(set(players)),
        reason=reason[:REASON_LENGTH],
        requested_by=user if user is not None and user.is_authenticated else None,
    )
    try:
        with transaction.atomic():
            run.save()
    except IntegrityError:
        # Another transaction queued a run at the same moment: merge into that one instead.
        return merge_into_waiting(rating_list, period, players, reason, user)
    return run


def merge_into_waiting(
    rating_list: str,
    period: RatingPeriod | None,
    players: Iterable[int] | None,
    reason: str,
    user: Any,
) -> RatingRun:
    """``merge_into_queued``, for a caller that has just seen a queued run of the list: raise
    ``RunQueueError`` if it was taken meanwhile (the caller's transaction is then undone)."""
    merged = merge_into_queued(rating_list, period, players, reason, user)
    if merged is None:
        label = RatingList(rating_list).label.lower()
        raise RunQueueError(
            f"The queued rating run of the {label} list was taken by another process while "
            "more work was joining it, so nothing was saved. Please try again."
        )
    return merged
