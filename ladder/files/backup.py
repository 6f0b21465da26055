"""A whole club as one versioned JSON document: ``manage.py export_club`` / ``import_club``.

Format ``ladder-club`` version 1 (README "Backup"): the players with their entry data, the
rating periods with their close/reopen log, the games, and the users with their groups and
permissions -- never a password hash or a token. Ratings are not in it: they are a function of
these inputs, and the import asks for a full recompute, which gives them back identical.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.utils import timezone

from ladder.records import PLAYER_ENTRY_FIELDS, Game, PeriodLog, Player, RatingPeriod
from ladder.writes import audit

FORMAT, VERSION = "ladder-club", 1
RESTORED = "Restored from a club export"
PLAYER_FIELDS = ("name", "fide_id", "sex", "federation", "title", *PLAYER_ENTRY_FIELDS)
GAME_FIELDS = ("date", "result", "event", "round", "rating_list", "time_control")
USER_FIELDS = ("username", "email", "first_name", "last_name", "is_active", "is_staff",
               "is_superuser")  # fmt: skip


class NotAnExport(Exception):
    """The document is not a club export this version can restore; the message says why."""


def _permissions(queryset: Any) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in queryset)


def export_club() -> dict[str, Any]:
    """Return the club as a JSON-ready document (a fixed number of queries)."""
    users = (
        get_user_model()
        .objects.prefetch_related("groups", "user_permissions__content_type")
        .order_by("pk")
    )
    logs: dict[int, list[dict[str, Any]]] = {}
    for log in PeriodLog.objects.select_related("user").order_by("at", "pk"):
        logs.setdefault(log.period_id, []).append({
            "action": log.action, "reason": log.reason, "at": log.at.isoformat(),
            "user": log.user.get_username() if log.user else None,
        })  # fmt: skip
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "groups": [
            {
                "name": g.name,
                "permissions": _permissions(g.permissions.select_related("content_type")),
            }
            for g in Group.objects.order_by("name")
        ],  # fmt: skip
        "users": [
            {
                **{f: getattr(u, f) for f in USER_FIELDS},
                "groups": sorted(g.name for g in u.groups.all()),
                "permissions": _permissions(u.user_permissions.all()),
            }
            for u in users
        ],  # fmt: skip
        "players": [
            {"id": p["pk"], **{f: p[f] for f in PLAYER_FIELDS}, "birth_year": p["birth_year"]}
            for p in Player.objects.order_by("pk").values("pk", "birth_year", *PLAYER_FIELDS)
        ],
        "periods": [
            {
                "id": p.pk,
                "label": p.label,
                "start": p.start.isoformat(),
                "end": p.end.isoformat(),
                "status": p.status,
                "closed_at": p.closed_at.isoformat() if p.closed_at else None,
                "log": logs.get(p.pk, []),
            }
            for p in RatingPeriod.objects.order_by("start")
        ],  # fmt: skip
        "games": [
            {
                "white": g["white_id"],
                "black": g["black_id"],
                "period": g["period_id"],
                **{f: g[f].isoformat() if isinstance(g[f], date) else g[f] for f in GAME_FIELDS},
            }
            for g in Game.objects.order_by("date", "pk").values(
                "white_id", "black_id", "period_id", *GAME_FIELDS
            )
        ],  # fmt: skip
    }


def import_club(document: Any, *, user: Any = None) -> dict[str, int]:
    """Restore an export into an empty club (call inside a transaction); return the counts.
    Every player and game gets its first history version, by ``user``.

    Raise ``NotAnExport`` for a document this version cannot read, ``ValidationError`` when
    the club is not empty or a record is invalid. Users get no usable password.
    """
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise NotAnExport("This is not a Ladder club export (no 'format': 'ladder-club').")
    if document.get("version") != VERSION:
        raise NotAnExport(f"This export has version {document.get('version')!r}; this Ladder "
                          f"reads version {VERSION}.")  # fmt: skip
    if Player.objects.exists() or RatingPeriod.objects.exists() or Game.objects.exists():
        raise ValidationError("The club is not empty: restore into a new database.")
    try:
        return _restore(document, user=user)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise NotAnExport(f"The export is damaged: {type(error).__name__} {error}.") from error


def _permission_objects(names: list[str]) -> list[Permission]:
    wanted = {tuple(name.split(".", 1)) for name in names}
    found = Permission.objects.select_related("content_type")
    return [p for p in found if (p.content_type.app_label, p.codename) in wanted]


def _restore(document: dict[str, Any], *, user: Any) -> dict[str, int]:
    groups = {}
    for data in document["groups"]:
        group, _ = Group.objects.get_or_create(name=data["name"])
        group.permissions.set(_permission_objects(data["permissions"]))
        groups[group.name] = group
    users = {}
    User = get_user_model()
    for data in document["users"]:
        user = User(**{f: data[f] for f in USER_FIELDS})
        user.set_unusable_password()
        user.save()
        user.groups.set([groups[name] for name in data["groups"]])
        user.user_permissions.set(_permission_objects(data["permissions"]))
        users[user.get_username()] = user
    players = {}
    for data in document["players"]:
        player = Player(**{f: data[f] for f in (*PLAYER_FIELDS, "birth_year")})
        player.full_clean(validate_unique=False, validate_constraints=False)
        player.start_from_entry()
        players[data["id"]] = player
    Player.objects.bulk_create(players.values())
    audit.record_created(Player, [p.pk for p in players.values()], user=user, reason=RESTORED)
    periods = {}
    for data in document["periods"]:
        period = RatingPeriod.objects.create(
            label=data["label"], start=date.fromisoformat(data["start"]),
            end=date.fromisoformat(data["end"]), status=data["status"],
            closed_at=datetime.fromisoformat(data["closed_at"]) if data["closed_at"] else None,
        )  # fmt: skip
        periods[data["id"]] = period
        PeriodLog.objects.bulk_create(
            PeriodLog(period=period, action=log["action"], reason=log["reason"],
                      at=datetime.fromisoformat(log["at"]), user=users.get(log["user"]))
            for log in data["log"]
        )  # fmt: skip
    games = [
        Game(white=players[g["white"]], black=players[g["black"]], period=periods[g["period"]],
             **{f: date.fromisoformat(g[f]) if f == "date" else g[f] for f in GAME_FIELDS})
        for g in document["games"]
    ]  # fmt: skip
    Game.objects.bulk_create(games, batch_size=2000)
    audit.record_created(Game, [g.pk for g in games], user=user, reason=RESTORED)
    return {"users": len(users), "players": len(players), "periods": len(periods),
            "games": len(games)}  # fmt: skip
