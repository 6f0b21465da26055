"""A whole club as one versioned JSON document: ``manage.py export_club`` / ``import_club``.

Format ``ladder-club`` version 6: the players with their entry data and national ids (and,
for a merged record, the player it was merged into), the rating periods (status, when closed)
with their close/reopen log, the tournaments, the games, the base corrections, every published
list with its lines and revisions, the finished rating runs, who is who (every merge with what
it moved, so that an unmerge after a restore still puts it back; every "not a duplicate"
answer; the rows of FIDE's monthly lists that name the club's players), and the users with
their groups and permissions -- never a password hash or a token. Records keep their ids, so
links to a player or a run still work. The ratings themselves are not in it: they are a
function of the inputs, and the restore asks for a full recompute; what was *published* is
restored as it was published.

Version 1 files (no publications, no runs, games without ids) and version 2 files (no
tournaments: each event's games of a month become a tournament inside it, as the migration made
them) and version 3 files (no national ids: the players have none) and version 4 files (no
base corrections, merges, answers or FIDE list rows: a merged record comes back as a player
of its own) and version 5 files (published lines without the points a one-off adjustment
added: they read 0) are still read.

``read_club`` parses a document into a ``ClubPlan`` of unsaved records, noting each value of
the wrong type by where it is (``games[12].date``); ``ladder.writes.actions.restore_club``
checks the plan whole and writes it.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone
from django.utils.translation import gettext

from ladder.exceptions import NotAnExport
from ladder.files.backup_reader import Reader
from ladder.records import (
    PLAYER_ENTRY_FIELDS,
    BaseCorrection,
    FideListEntry,
    Game,
    NotDuplicate,
    PeriodLog,
    Player,
    PlayerMerge,
    RatingPeriod,
    Tournament,
)
from ladder.records.fide_list import ROW_FIELDS
from ladder.writes.validation import ClubPlan, Located
from ratings.models import Publication, PublishedRating, RatingRun, RunStatus
from ratings.publication import LINE_FIELDS as PUBLISHED_LINE_FIELDS

FORMAT, VERSION, READS = "ladder-club", 6, (1, 2, 3, 4, 5, 6)
PLAYER_FIELDS = (
    "name",
    "fide_id",
    "sex",
    "federation",
    "title",
    "birth_year",
    "national_federation",
    "national_id",
    *PLAYER_ENTRY_FIELDS,
    "merged_into",
)
GAME_FIELDS = ("date", "result", "event", "round", "rating_list", "time_control")
TOURNAMENT_FIELDS = (
    "name", "start", "end", "rating_list", "time_control", "origin", "origin_file",
)  # fmt: skip
USER_FIELDS = (
    "username",
    "email",
    "first_name",
    "last_name",
    "is_active",
    "is_staff",
    "is_superuser",
)
PUBLICATION_FIELDS = (
    "rating_list",
    "revision",
    "published_at",
    "reason",
    "players_changed",
    "differences",
)
LINE_FIELDS = ("player", *PUBLISHED_LINE_FIELDS)  # a published line, as revisions keep it
RUN_FIELDS = (
    "status",
    "rating_list",
    "players",
    "reason",
    "changes",
    "requested_at",
    "last_change_at",
    "started_at",
    "finished_at",
    "attempts",
    "periods",
    "players_changed",
    "rows_written",
    "summary",
    "error",
)
FINISHED = (RunStatus.DONE, RunStatus.FAILED)
CORRECTION_FIELDS = ("rating_list", "rating", "reason", "at")
MERGE_FIELDS = ("reason", "at", "moved", "undone_at", "undo_reason")
NOT_DUPLICATE_FIELDS = ("at", "note")


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date | datetime) else value


def _permissions(queryset: Any) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in queryset)


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def export_club() -> dict[str, Any]:
    """Return the club as a JSON-ready document (a fixed number of queries)."""
    users = (
        get_user_model()
        .objects.prefetch_related("groups", "user_permissions__content_type")
        .order_by("pk")
    )
    logs: dict[int, list[dict[str, Any]]] = {}
    for log in PeriodLog.objects.select_related("user").order_by("at", "pk"):
        logs.setdefault(log.period_id, []).append(
            {
                "action": log.action,
                "reason": log.reason,
                "at": log.at.isoformat(),
                "user": _username(log.user),
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "groups": [
            {
                "name": g.name,
                "permissions": _permissions(g.permissions.all()),
            }
            for g in Group.objects.prefetch_related("permissions__content_type").order_by("name")
        ],
        "users": [
            {
                **{f: getattr(u, f) for f in USER_FIELDS},
                "groups": sorted(g.name for g in u.groups.all()),
                "permissions": _permissions(u.user_permissions.all()),
            }
            for u in users
        ],
        "players": [
            {"id": p["pk"], **{f: p[f] for f in PLAYER_FIELDS}}
            for p in Player.objects.order_by("pk").values("pk", *PLAYER_FIELDS)
        ],
        "periods": [
            {
                "id": p.pk,
                "label": p.label,
                "start": p.start.isoformat(),
                "end": p.end.isoformat(),
                "status": p.status,
                "closed_at": _json(p.closed_at),
                "log": logs.get(p.pk, []),
            }
            for p in RatingPeriod.objects.order_by("start")
        ],
        "tournaments": [
            {
                "id": t["pk"],
                "rated_in": t["rated_in_id"],
                **{f: _json(t[f]) for f in TOURNAMENT_FIELDS},
            }
            for t in Tournament.objects.order_by("start", "pk").values(
                "pk", "rated_in_id", *TOURNAMENT_FIELDS
            )
        ],
        "games": [
            {
                "id": g["pk"],
                "white": g["white_id"],
                "black": g["black_id"],
                "period": g["period_id"],
                "tournament": g["tournament_id"],
                **{f: _json(g[f]) for f in GAME_FIELDS},
            }
            for g in Game.objects.order_by("date", "pk").values(
                "pk", "white_id", "black_id", "period_id", "tournament_id", *GAME_FIELDS
            )
        ],
        "base_corrections": [
            {
                "id": c.pk,
                "player": c.player_id,
                "period": c.period_id,
                "user": _username(c.user),
                **{f: _json(getattr(c, f)) for f in CORRECTION_FIELDS},
            }
            for c in BaseCorrection.objects.select_related("user").order_by("pk")
        ],
        **_who_is_who(),
        "publications": _publications(),
        "runs": [
            {
                "id": r.pk,
                "from_period": r.from_period_id,
                "requested_by": _username(r.requested_by),
                **{f: _json(getattr(r, f)) for f in RUN_FIELDS},
            }
            for r in RatingRun.objects.filter(status__in=FINISHED)
            .select_related("requested_by")
            .order_by("pk")
        ],
    }


def _who_is_who() -> dict[str, list[dict[str, Any]]]:
    """Every merge (undone ones too), every "not a duplicate" answer, and the rows of FIDE's
    monthly lists that name a player of the club (three queries): the rest of a list is
    FIDE's to download again."""
    club = Player.objects.exclude(fide_id=None).values("fide_id")
    return {
        "merges": [
            {
                "id": m.pk,
                "kept": m.kept_id,
                "merged": m.merged_id,
                "from_period": m.from_period_id,
                "user": _username(m.user),
                "undone_by": _username(m.undone_by),
                **{f: _json(getattr(m, f)) for f in MERGE_FIELDS},
            }
            for m in PlayerMerge.objects.select_related("user", "undone_by").order_by("pk")
        ],
        "not_duplicates": [
            {
                "id": n.pk,
                "first": n.first_id,
                "second": n.second_id,
                "user": _username(n.user),
                **{f: _json(getattr(n, f)) for f in NOT_DUPLICATE_FIELDS},
            }
            for n in NotDuplicate.objects.select_related("user").order_by("pk")
        ],
        "fide_list": [
            {f: _json(v) for f, v in row.items()}
            for row in FideListEntry.objects.filter(fide_id__in=club)
            .order_by("month", "fide_id")
            .values("month", *ROW_FIELDS)
        ],
    }


def _publications() -> list[dict[str, Any]]:
    """Every published list, each revision with its lines as published (two queries)."""
    lines: dict[int, list[dict[str, Any]]] = {}
    for line in PublishedRating.objects.order_by("publication_id", "player_id").values(
        "publication_id", "player_id", *LINE_FIELDS[1:]
    ):
        lines.setdefault(line["publication_id"], []).append(
            {"player": line["player_id"], **{f: line[f] for f in LINE_FIELDS[1:]}}
        )
    found = Publication.objects.select_related("published_by").order_by(
        "period__start", "rating_list", "revision"
    )
    return [
        {
            "id": p.pk,
            "period": p.period_id,
            "corrected_in": p.corrected_in_id,
            "published_by": _username(p.published_by),
            **{f: _json(getattr(p, f)) for f in PUBLICATION_FIELDS},
            "lines": lines.get(p.pk, []),
        }
        for p in found
    ]


# --- reading ------------------------------------------------------------------------------------


def read_club(document: Any) -> ClubPlan:
    """Parse an export (version 1 to 5) into a plan of unsaved records; values of the wrong
    type are noted in ``plan.problems`` by where they are. Raise ``NotAnExport`` for a
    document that is no club export this version reads."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise NotAnExport(gettext("This is not a Ladder club export (no 'format': 'ladder-club')."))
    version = document.get("version")
    if version not in READS:
        raise NotAnExport(
            gettext("This export has version %(version)r; this Ladder reads versions %(reads)s.")
            % {"version": version, "reads": ", ".join(map(str, READS))}
        )
    reader = Reader()
    plan = ClubPlan(published=version > 1)
    for where, item in reader.items(document, "groups"):
        plan.groups.append(
            {
                "name": reader.text(item, where, "name"),
                "permissions": reader.names(item, where, "permissions"),
            }
        )
    for where, item in reader.items(document, "users"):
        fields = {
            f: reader.value(item, where, f, bool if f.startswith("is_") else str)
            for f in USER_FIELDS
        }
        plan.users.append(
            {
                **fields,
                "groups": reader.names(item, where, "groups"),
                "permissions": reader.names(item, where, "permissions"),
            }
        )
    national = ("national_federation", "national_id")  # version 4 on
    player_fields = [f for f in PLAYER_FIELDS if version > 3 or f not in national]
    player_fields = [f for f in player_fields if version > 4 or f != "merged_into"]
    for where, item in reader.items(document, "players"):
        plan.players.append(
            Located(where, reader.record(Player, item, where, ["id", *player_fields]))
        )
    for where, item in reader.items(document, "periods"):
        period = reader.record(
            RatingPeriod, item, where, ["id", "label", "start", "end", "status", "closed_at"]
        )
        plan.periods.append(Located(where, period))
        for at, log in reader.items(item, "log", where=where):
            record = reader.record(PeriodLog, log, at, ["action", "reason", "at"])
            record.period_id = period.pk
            plan.logs.append(Located(at, record, {"user": reader.value(log, at, "user", str)}))
    if version > 2:
        for where, item in reader.items(document, "tournaments"):
            keys = ["id", "rated_in", *TOURNAMENT_FIELDS]
            plan.tournaments.append(Located(where, reader.record(Tournament, item, where, keys)))
    for where, item in reader.items(document, "games"):
        keys = ["white", "black", "period", *GAME_FIELDS] + (["id"] if version > 1 else [])
        keys += ["tournament"] if version > 2 else []
        plan.games.append(Located(where, reader.record(Game, item, where, keys)))
    if version > 1:
        line_fields = [f for f in LINE_FIELDS if version > 5 or f != "adjustment"]
        _read_published(reader, document, plan, line_fields)
    if version > 4:
        _read_who_is_who(reader, document, plan)
    plan.problems = reader.problems
    return plan


def _read_who_is_who(reader: Reader, document: dict[str, Any], plan: ClubPlan) -> None:
    """Base corrections, merges, "not a duplicate" answers and FIDE list rows (version 5)."""
    for where, item in reader.items(document, "base_corrections"):
        keys = ["id", "player", "period", *CORRECTION_FIELDS]
        record = reader.record(BaseCorrection, item, where, keys)
        by = {"user": reader.value(item, where, "user", str)}
        plan.base_corrections.append(Located(where, record, by))
    for where, item in reader.items(document, "merges"):
        keys = ["id", "kept", "merged", "from_period", *MERGE_FIELDS]
        record = reader.record(PlayerMerge, item, where, keys)
        by = {name: reader.value(item, where, name, str) for name in ("user", "undone_by")}
        plan.merges.append(Located(where, record, by))
    for where, item in reader.items(document, "not_duplicates"):
        keys = ["id", "first", "second", *NOT_DUPLICATE_FIELDS]
        record = reader.record(NotDuplicate, item, where, keys)
        plan.not_duplicates.append(
            Located(where, record, {"user": reader.value(item, where, "user", str)})
        )
    for where, item in reader.items(document, "fide_list"):
        record = reader.record(FideListEntry, item, where, ["month", *ROW_FIELDS])
        plan.fide_list.append(Located(where, record))


def _read_published(
    reader: Reader, document: dict[str, Any], plan: ClubPlan, line_fields: list[str]
) -> None:
    for where, item in reader.items(document, "publications"):
        keys = ["id", "period", "corrected_in", *PUBLICATION_FIELDS]
        publication = reader.record(Publication, item, where, keys)
        by = reader.value(item, where, "published_by", str)
        plan.publications.append(Located(where, publication, {"published_by": by}))
        for at, line in reader.items(item, "lines", where=where):
            record = reader.record(PublishedRating, line, at, line_fields)
            record.publication_id = publication.pk
            plan.lines.append(Located(at, record))
    for where, item in reader.items(document, "runs"):
        run = reader.record(RatingRun, item, where, ["id", "from_period", *RUN_FIELDS])
        by = reader.value(item, where, "requested_by", str)
        plan.runs.append(Located(where, run, {"requested_by": by}))
        if run.status not in FINISHED:
            reader.problems.append(
                f"{where}.status: "
                + gettext("Only finished rating runs (done or failed) are restored.")
            )
