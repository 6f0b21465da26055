"""How ``actions.restore_club`` writes a checked club: what it clears, then the records in bulk.

Records keep the ids the file gives them (links to a player, a period or a run keep working);
the database's id sequences are moved past them afterwards. Nothing here checks anything:
``validation.check_club`` has, before it is called.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.color import no_style
from django.db import connection, models

from ladder.records import (
    BaseCorrection,
    FideListEntry,
    Game,
    ImportedFile,
    NotDuplicate,
    PeriodLog,
    PeriodStatus,
    Player,
    PlayerMerge,
    RatingPeriod,
    Tournament,
)
from ladder.writes import audit
from ladder.writes.validation import ClubPlan, Located
from ladder.writes.validation.tournaments import event_tournament_name
from ratings import publication, runs
from ratings.models import Publication, PublishedRating, RatingChange, RatingRun
from ratings.recompute.services import LOCK_KEY

RESTORED = "Restored from a club export"
# Children first: a game protects its players, its tournament and its period, a tournament
# the period that rates it, a merge and a base correction their players and period. (FIDE's
# lists are FIDE's, not the club's: a restore adds the rows it carries to those there.)
CLUB_MODELS: tuple[type[models.Model], ...] = (
    RatingChange,
    PublishedRating,
    Publication,
    PlayerMerge,
    NotDuplicate,
    BaseCorrection,
    Game,
    Tournament,
    PeriodLog,
    RatingRun,
    RatingPeriod,
    Player,
    ImportedFile,
)


def club_counts() -> dict[str, int]:
    """How many players, periods and games the club holds (a club with none is empty)."""
    return {
        "players": Player.objects.count(),
        "periods": RatingPeriod.objects.count(),
        "games": Game.objects.count(),
    }


def hold_the_runs() -> None:
    """Wait for a rating run being executed, and keep the next from starting until the
    restore commits (PostgreSQL; on SQLite the restore's transaction holds the database):
    no run may rate records the restore is replacing."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def clear_club() -> None:
    """Delete every record of the club (not its users); each deletion leaves its history."""
    for model in CLUB_MODELS:
        if model is Player:  # a merged record first: it protects the one it was merged into
            while Player.objects.filter(merged_into__isnull=False).exists():
                Player.objects.filter(merged_into__isnull=False, merged_players=None).delete()
        model._default_manager.all().delete()


def write_club(plan: ClubPlan, *, user: Any) -> dict[str, int]:
    """Write a checked plan into an empty club; return how many of each were restored."""
    users = _users(plan)

    def by(row: Located, name: str) -> Any:
        return users.get(row.users.get(name) or "")

    players = Player.objects.bulk_create(row.record for row in plan.players)
    audit.record_created(Player, [p.pk for p in players], user=user, reason=RESTORED)
    periods = RatingPeriod.objects.bulk_create(row.record for row in plan.periods)
    audit.record_created(RatingPeriod, [p.pk for p in periods], user=user, reason=RESTORED)
    for row in plan.logs:
        row.record.user = by(row, "user")
    PeriodLog.objects.bulk_create(row.record for row in plan.logs)
    tournaments = Tournament.objects.bulk_create(row.record for row in plan.tournaments)
    audit.record_created(Tournament, [t.pk for t in tournaments], user=user, reason=RESTORED)
    games = Game.objects.bulk_create((row.record for row in plan.games), batch_size=2000)
    audit.record_created(Game, [g.pk for g in games], user=user, reason=RESTORED)
    _into_event_tournaments(user=user)
    for row in plan.publications:
        row.record.published_by = by(row, "published_by")
    Publication.objects.bulk_create(row.record for row in plan.publications)
    PublishedRating.objects.bulk_create((row.record for row in plan.lines), batch_size=5000)
    for row in plan.runs:
        row.record.requested_by = by(row, "requested_by")
    RatingRun.objects.bulk_create(row.record for row in plan.runs)
    _who_is_who(plan, by, user=user)
    _move_sequences()
    counts = {
        "users": len(plan.users),
        "players": len(players),
        "periods": len(periods),
        "games": len(games),
        "publications": len(plan.publications),
    }
    extra = {
        "base_corrections": len(plan.base_corrections),
        "merges": len(plan.merges),
        "not_duplicates": len(plan.not_duplicates),
        "fide_list_rows": len(plan.fide_list),
    }
    return counts | {name: n for name, n in extra.items() if n}


def _who_is_who(plan: ClubPlan, by: Any, *, user: Any) -> None:
    """Base corrections (with their first history versions), merges, answers and FIDE list
    rows; a row of FIDE's list the database holds already stays as it is."""
    for row in plan.base_corrections:
        row.record.user = by(row, "user")
    corrections = BaseCorrection.objects.bulk_create(row.record for row in plan.base_corrections)
    audit.record_created(BaseCorrection, [c.pk for c in corrections], user=user, reason=RESTORED)
    for row in plan.merges:
        row.record.user, row.record.undone_by = by(row, "user"), by(row, "undone_by")
    PlayerMerge.objects.bulk_create(row.record for row in plan.merges)
    for row in plan.not_duplicates:
        row.record.user = by(row, "user")
    NotDuplicate.objects.bulk_create(row.record for row in plan.not_duplicates)
    FideListEntry.objects.bulk_create(
        (row.record for row in plan.fide_list), batch_size=2000, ignore_conflicts=True
    )


def _into_event_tournaments(*, user: Any) -> None:
    """Put the games a file gave no tournament (versions 1 and 2) in their event's tournament
    inside their period, as the migration that made tournaments records did."""
    loose = Game.objects.filter(tournament__isnull=True)
    groups = list(loose.order_by().values_list("period_id", "rating_list", "event").distinct())
    if not groups:
        return
    periods = RatingPeriod.objects.in_bulk()
    known = {(t.name, t.start, t.rating_list): t for t in Tournament.objects.all()}
    wanted = {}
    for period_id, rating_list, event in groups:
        period = periods[period_id]
        key = (event_tournament_name(event, period), period.start, rating_list)
        if key not in known and key not in wanted:
            wanted[key] = Tournament(
                name=key[0], start=period.start, end=period.end, rating_list=rating_list,
                rated_in=period,
            )  # fmt: skip
    made = Tournament.objects.bulk_create(wanted.values())
    audit.record_created(Tournament, [t.pk for t in made], user=user, reason=RESTORED)
    known.update(wanted)
    for period_id, rating_list, event in groups:
        period = periods[period_id]
        tournament = known[event_tournament_name(event, period), period.start, rating_list]
        loose.filter(period_id=period_id, rating_list=rating_list, event=event).update(
            tournament=tournament
        )


def publish_closed(*, user: Any) -> None:
    """Publish the list of every closed period, oldest first, for a file that carries none
    (version 1): the club is rated first, in this transaction, whatever ``LADDER_RECOMPUTE``
    says, since a list is published whole."""
    runs.execute_pending(wait=True)
    for period in RatingPeriod.objects.filter(status=PeriodStatus.CLOSED).order_by("start"):
        publication.publish(period, user=user)


def _users(plan: ClubPlan) -> dict[str, Any]:
    """Create the file's groups and users (a user already there is kept as they are); return
    every user by username."""
    groups = {}
    for data in plan.groups:
        group, _ = Group.objects.get_or_create(name=data["name"])
        group.permissions.set(_permissions(data["permissions"]))
        groups[group.name] = group
    User = get_user_model()
    existing = {u.get_username(): u for u in User.objects.all()}
    for data in plan.users:
        if data["username"] in existing:
            continue
        fields = {
            name: value for name, value in data.items() if name not in ("groups", "permissions")
        }
        created = User(**{name: value for name, value in fields.items() if value is not None})
        created.set_unusable_password()
        created.save()
        created.groups.set([groups[name] for name in data["groups"] if name in groups])
        created.user_permissions.set(_permissions(data["permissions"]))
        existing[created.get_username()] = created
    return existing


def _permissions(names: list[str]) -> list[Permission]:
    wanted = {tuple(name.split(".", 1)) for name in names}
    found = Permission.objects.select_related("content_type")
    return [p for p in found if (p.content_type.app_label, p.codename) in wanted]


def _move_sequences() -> None:
    """Move the id sequences past the ids written (PostgreSQL; SQLite follows by itself)."""
    statements = connection.ops.sequence_reset_sql(
        no_style(),
        [
            Player,
            RatingPeriod,
            Tournament,
            Game,
            Publication,
            RatingRun,
            BaseCorrection,
            PlayerMerge,
            NotDuplicate,
        ],  # fmt: skip
    )
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
