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
from django.utils.translation import gettext, gettext_noop, ngettext

from ladder.exceptions import ReopenRefused
from ladder.records import RatingPeriod
from ratings.models import Publication

PERMISSION = "ladder.reopen_after_window"
PERMISSION_LABEL = gettext_noop("Can reopen a period after its correction window")
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
    days = int(settings.LADDER_CORRECTION_WINDOW_DAYS or 0)  # set: the window has ended
    raise ReopenRefused(
        ngettext(
            "The correction window of %(period)s (%(days)s day after its list was first "
            "published) ended on %(day)s; reopening it now needs the permission "
            "“%(permission)s”, which %(holders)s",
            "The correction window of %(period)s (%(days)s days after its list was first "
            "published) ended on %(day)s; reopening it now needs the permission "
            "“%(permission)s”, which %(holders)s",
            days,
        )
        % {
            "period": period.label,
            "days": days,
            "day": _day(ends),
            "permission": gettext(PERMISSION_LABEL),
            "holders": holders_sentence(),
        }
    )


def describe(period: RatingPeriod, *, now: datetime | None = None) -> str:
    """Say how long ``period`` may still be reopened, for the administrators' pages."""
    if settings.LADDER_CORRECTION_WINDOW_DAYS is None:
        return gettext("None: the club sets no correction window.")
    ends = window_end(period)
    if ends is None:
        return gettext("Starts when the period's list is first published.")
    if (now or timezone.now()) <= ends:
        return gettext("Open until %(day)s.") % {"day": _day(ends)}
    return gettext("Ended on %(day)s; reopening needs the permission “%(permission)s”.") % {
        "day": _day(ends),
        "permission": gettext(PERMISSION_LABEL),
    }


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
        return gettext(
            "nobody holds: ask whoever runs the server to create an administrator "
            "(manage.py createsuperuser) who can grant it."
        )
    named = granted[:_NAMED]
    if len(granted) > _NAMED:
        named.append(_more(len(granted) - _NAMED))
    if superusers:
        shown = superusers[:_NAMED] + (
            [_more(len(superusers) - _NAMED)] if len(superusers) > _NAMED else []
        )
        named.append(
            ngettext(
                "the administrator (superuser) %(names)s",
                "the administrators (superusers) %(names)s",
                len(superusers),
            )
            % {"names": _and(shown)}
        )
    holding = len(granted) + len(superusers)
    return ngettext("%(names)s holds.", "%(names)s hold.", holding) % {"names": _and(named)}


def _more(count: int) -> str:
    return gettext("%(count)s more") % {"count": count}


def _and(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return gettext("%(first)s and %(second)s") % {
        "first": ", ".join(items[:-1]),
        "second": items[-1],
    }


def _day(moment: datetime) -> str:
    local = timezone.localtime(moment)
    return f"{local.day} {local:%b %Y} {local:%H:%M}"
