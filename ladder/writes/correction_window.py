"""The correction window: how long after publication a closed period may be reopened.

FIDE and the Dutch federation accept corrections only within a window after a list is
published. A club may set one (``settings.LADDER_CORRECTION_WINDOW_DAYS``, default none): for
that many days after a period's list was first published any administrator who may change
periods reopens it; beyond them only holders of the permission ``ladder.reopen_after_window``
(directly, through a group, or as superusers), and the refusal names them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Min, Q
from django.utils import timezone

from ladder.exceptions import ReopenRefused
from ladder.records import RatingPeriod
from ratings.models import Publication

PERMISSION = "ladder.reopen_after_window"
PERMISSION_LABEL = "Can reopen a period after its correction window"
_NAMED = 10  # holders named in a refusal; the rest are counted


def window_end(period: RatingPeriod) -> datetime | None:
    """Return when ``period``'s correction window ends, or None when the club has none.

    The window counts from the first publication of its list (revision 1; the period's
    ``closed_at`` for a period closed before lists were kept).
    """
    days = settings.LADDER_CORRECTION_WINDOW_DAYS
    if days is None:
        return None
    first = Publication.objects.filter(period=period, revision=1).aggregate(at=Min("published_at"))
    published = first["at"] or period.closed_at
    return published + timedelta(days=days) if published is not None else None


def check_reopen(period: RatingPeriod, *, user: Any, now: datetime | None = None) -> None:
    """Raise ``ReopenRefused`` when ``period``'s window has ended and ``user`` (None: a command
    run without ``--user``) lacks the permission; the message says who holds it."""
    ends = window_end(period)
    now = now or timezone.now()
    if ends is None or now <= ends:
        return
    if user is not None and user.is_authenticated and user.has_perm(PERMISSION):
        return
    days = settings.LADDER_CORRECTION_WINDOW_DAYS
    raise ReopenRefused(
        f"The correction window of {period.label} ({days} day{'' if days == 1 else 's'} after "
        f"its list was first published) ended on {_day(ends)}; reopening it now needs the "
        f"permission “{PERMISSION_LABEL}”, which {holders_sentence()}"
    )


def describe(period: RatingPeriod, *, now: datetime | None = None) -> str:
    """Say how long ``period`` may still be reopened, for the administrators' pages."""
    if settings.LADDER_CORRECTION_WINDOW_DAYS is None:
        return "None: the club sets no correction window."
    ends = window_end(period)
    if ends is None:
        return "Starts when the period's list is first published."
    if (now or timezone.now()) <= ends:
        return f"Open until {_day(ends)}."
    return f"Ended on {_day(ends)}; reopening needs the permission “{PERMISSION_LABEL}”."


def holders() -> tuple[list[str], list[str]]:
    """Return the usernames of the active users who hold the permission: those given it
    (directly or through a group), and the superusers."""
    app_label, codename = PERMISSION.split(".")
    given = Q(
        user_permissions__codename=codename, user_permissions__content_type__app_label=app_label
    ) | Q(
        groups__permissions__codename=codename,
        groups__permissions__content_type__app_label=app_label,
    )
    User = get_user_model()
    rows = (
        User.objects.filter(is_active=True)
        .filter(given | Q(is_superuser=True))
        .values_list(User.USERNAME_FIELD, "is_superuser")
        .distinct()
        .order_by(User.USERNAME_FIELD)
    )
    granted = [name for name, superuser in rows if not superuser]
    superusers = [name for name, superuser in rows if superuser]
    return granted, superusers


def holders_sentence() -> str:
    """Say who holds the permission, as the end of a sentence."""
    granted, superusers = holders()
    if not granted and not superusers:
        return (
            "nobody holds: ask whoever runs the server to create an administrator "
            "(manage.py createsuperuser) who can grant it."
        )
    named = granted[:_NAMED]
    if len(granted) > _NAMED:
        named.append(f"{len(granted) - _NAMED} more")
    if superusers:
        shown = superusers[:_NAMED] + (
            [f"{len(superusers) - _NAMED} more"] if len(superusers) > _NAMED else []
        )
        plural = len(superusers) > 1
        noun = "administrators (superusers)" if plural else "administrator (superuser)"
        named.append(f"the {noun} {_and(shown)}")
    one = len(granted) + len(superusers) == 1
    return f"{_and(named)} {'holds' if one else 'hold'}."


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _day(moment: datetime) -> str:
    local = timezone.localtime(moment)
    return f"{local.day} {local:%b %Y} {local:%H:%M}"
