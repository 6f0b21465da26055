"""The one write path: every door (admin, round entry, API, CSV import, commands) writes here.

One function per action. Each validates through ``ladder.writes.validation`` (the same checks and
sentences for every door), writes in one transaction with the rows it changes locked, and
leaves a durable recompute request in that transaction (``ratings.runs``): saves and deletes
record it through the ``ratings`` signal receivers, bulk writes ask for it themselves. The
run that rates the change executes after the commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, TextIO

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from simple_history.utils import bulk_create_with_history

from ladder.files import csv_import as importers
from ladder.files import tournaments
from ladder.files.tournament_file import TrfRefused
from ladder.records import (
    Game,
    ImportedFile,
    PeriodLog,
    PeriodStatus,
    Player,
    RatingList,
    RatingPeriod,
    kept_lists,
    refuse_control_characters_but_lines,
)
from ladder.records import versions as data_version
from ladder.writes import audit, correction_window, games_screen, restore
from ladder.writes.validation import (
    ClubInvalid,
    ClubPlan,
    GameEntry,
    PeriodClosedError,
    check_club,
    check_entry_change,
    check_games,
    ensure_open,
    raise_for,
)
from ratings import publication, runs
from ratings.models import RatingRun, RunStatus

GAME_FIELDS = ("date", "white", "black", "result", "event", "round", "rating_list", "time_control")
_DAYS_LOCK = 0x1ADD  # advisory lock namespace of the days games are written on

__all__ = [
    "GameEntry",
    "PeriodClosedError",
    "close_period",
    "correct_game",
    "delete_games",
    "enter_games",
    "import_games",
    "import_players",
    "import_tournament",
    "recompute",
    "record_first_versions",
    "reopen_period",
    "restore_club",
    "save_player",
]


# --- games --------------------------------------------------------------------------------------


@transaction.atomic
def enter_games(*, games: Sequence[GameEntry], user: Any = None, reason: str = "") -> list[Game]:
    """Record one or many games, all or none; one rating run rates them after the commit.

    Raise ``ValidationError`` (one game), ``PeriodClosedError`` (its period is closed) or
    ``validation.GamesInvalid`` (several games, each with its problems).
    """
    _lock_days({entry.date for entry in games if entry.date is not None})
    valid = raise_for(check_games(games))
    periods: dict[tuple[int, int], RatingPeriod] = {}
    for game in valid:
        month = (game.date.year, game.date.month)
        if month not in periods or not periods[month].contains(game.date):
            periods[month] = RatingPeriod.objects.for_date(game.date)
        game.period = periods[month]
    _lock_open({p.pk for p in periods.values()})
    created: list[Game] = bulk_create_with_history(valid, Game, default_user=_user(user))
    count = f"{len(created)} game" + ("s" if len(created) != 1 else "")
    for rating_list in sorted({game.rating_list for game in created}):  # one run a list
        on_list = [game for game in created if game.rating_list == rating_list]
        runs.request_recompute(
            rating_list=rating_list,
            period=min((game.period for game in on_list), key=lambda p: p.start),
            players={pid for game in on_list for pid in (game.white_id, game.black_id)},
            reason=reason or f"{count} entered",
            user=user,
        )
    return created


@transaction.atomic
def correct_game(*, game: Game, changes: Mapping[str, Any], user: Any = None) -> Game:
    """Correct a game (date, players, result, event, round); both periods must be open.

    The row is locked first, so a correction racing a deletion finds the game gone
    (``Game.DoesNotExist``) instead of writing it back.
    """
    unknown = set(changes) - set(GAME_FIELDS)
    if unknown:
        raise ValueError(f"A game has no field {', '.join(sorted(unknown))} to correct.")
    stored = _locked_games([game.pk], periods=False).get(game.pk)
    if stored is None:
        raise Game.DoesNotExist(f"Game #{game.pk} no longer exists.")
    values = {name: getattr(stored, name) for name in GAME_FIELDS} | dict(changes)
    if "time_control" in changes and "rating_list" not in changes:
        values["rating_list"] = ""  # a new time control says the list itself
    if values["date"] is not None:
        _lock_days({values["date"]})
    entry = GameEntry(**values)
    checked = check_games([entry], instance=stored)
    raise_for(checked)
    # Every action takes its locks in one order (game rows, days, periods, the waiting run),
    # so two writers never wait on each other: lock the old and the new period before the save
    # records the request, and check them open again now that no close can slip in.
    old_period = stored.period_id
    stored.period = RatingPeriod.objects.for_date(values["date"])
    _lock_open({old_period, stored.period_id})
    old_list = stored.rating_list
    checked_game = checked[0].game
    assert checked_game is not None
    values["rating_list"], values["time_control"] = (
        checked_game.rating_list,
        checked_game.time_control,
    )
    for name in GAME_FIELDS:
        setattr(stored, name, values[name])
    stored.save()
    runs.attribute_change(
        reason=f"Game #{stored.pk} corrected",
        user=user,
        rating_lists={old_list, stored.rating_list},
    )
    return stored


@transaction.atomic
def delete_games(*, games: Iterable[Game], user: Any = None) -> int:
    """Delete games of open periods, all or none; return how many were deleted.

    Rows already gone (deleted by someone else meanwhile) are skipped.
    """
    stored = list(_locked_games([g.pk for g in games]).values())
    ensure_open(game.period for game in stored)
    for game in stored:
        game.delete()
    if stored:
        what = f"Game #{stored[0].pk}" if len(stored) == 1 else f"{len(stored)} games"
        lists = {game.rating_list for game in stored}
        runs.attribute_change(reason=f"{what} deleted", user=user, rating_lists=lists)
    return len(stored)


def _lock_days(days: set[date]) -> None:
    """Serialize writers of games on the same days, so the duplicate check sees the games a
    concurrent writer has just committed (PostgreSQL; SQLite transactions take the database's
    write lock when they begin, see settings)."""
    if connection.vendor != "postgresql" or not days:
        return
    with connection.cursor() as cursor:
        for day in sorted(days):  # always in the same order: two writers never deadlock
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_DAYS_LOCK, day.toordinal()])


def _locked_games(ids: list[int], *, periods: bool = True) -> dict[int, Game]:
    """Lock and return the games still there (and their periods, unless told not to)."""
    locked = ("self", "period") if periods else ("self",)
    games = Game.objects.select_for_update(of=locked).select_related("period", "white", "black")
    return {game.pk: game for game in games.filter(pk__in=ids).order_by("pk")}


def _lock_open(period_ids: set[int]) -> None:
    """Lock the periods written into and check them open, so a close cannot slip between the
    check and the commit (closing locks the period too)."""
    ensure_open(RatingPeriod.objects.select_for_update().filter(pk__in=period_ids).order_by("pk"))


def _user(user: Any) -> Any:
    return user if user is not None and user.is_authenticated else None


# --- players ------------------------------------------------------------------------------------


@transaction.atomic
def save_player(*, player: Player, user: Any = None) -> Player:
    """Add a player, or save a change to one; a change to the entry data re-rates them."""
    stored = Player.objects.select_for_update().filter(pk=player.pk)
    if player.pk is not None and not stored.exists():
        raise Player.DoesNotExist(f"Player #{player.pk} no longer exists.")
    player.full_clean()
    check_entry_change(player)
    try:
        with transaction.atomic():  # a savepoint: the transaction survives a refused insert
            player.save()
    except IntegrityError as error:  # a concurrent writer took the FIDE id since full_clean
        player.validate_unique()
        raise ValidationError("The player could not be saved; try again.") from error
    runs.attribute_change(
        reason=f"Entry data of {player.name} changed", user=user, rating_lists=RatingList.values
    )
    return player


# --- files --------------------------------------------------------------------------------------


@transaction.atomic
def import_players(file: TextIO, *, user: Any = None) -> int:
    """Import players from a CSV file, whole or not at all; return how many were added.
    The same file twice is refused (``importers.AlreadyImported``)."""
    file, digest = importers.fingerprinted(file, ImportedFile.Kind.PLAYERS)
    players = importers.import_players(file)
    # Bulk-written: no save() wrote their first history version, no signal says they changed.
    audit.record_created(
        Player, [p.pk for p in players], user=_user(user), reason="Imported from a CSV file"
    )
    importers.remember(digest, kind=ImportedFile.Kind.PLAYERS, rows=len(players), user=user)
    data_version.bump_on_commit()
    return len(players)


@transaction.atomic
def import_games(file: TextIO, *, user: Any = None) -> list[Game]:
    """Import games from a CSV file, whole or not at all, through ``enter_games``.
    The same file twice is refused (``importers.AlreadyImported``)."""
    file, digest = importers.fingerprinted(file, ImportedFile.Kind.GAMES)
    games_screen.screen_games(file)  # a bad file is refused before a game is built
    entries = importers.read_games(file)
    try:
        games = enter_games(games=entries, user=user, reason=f"{len(entries)} games imported")
    except ValidationError as error:
        raise importers.failure(error, entries) from error
    importers.remember(digest, kind=ImportedFile.Kind.GAMES, rows=len(games), user=user)
    return games


def restore_club(*, plan: ClubPlan, replace: bool = False, user: Any = None) -> dict[str, int]:
    """Restore a club read from a backup (``ladder.files.backup.read_club``), all or nothing;
    return how many of each were restored.

    The whole plan is checked first (``validation.check_club``); ``ClubInvalid`` names every
    problem by where it is in the file. A club that is not empty is refused unless ``replace``:
    then everything in it is replaced, in the same transaction. Published lists and rating
    runs are restored as stored; the ratings are recomputed from the inputs by a rating run.
    """
    problems = check_club(plan)
    if problems:
        raise ClubInvalid(problems)
    try:
        with transaction.atomic():
            restore.hold_the_runs()
            counts = restore.club_counts()
            if any(counts.values()) and not replace:
                held = ", ".join(f"{n} {what}" for what, n in counts.items())
                raise ClubInvalid(
                    f"The club is not empty ({held}): restore into a new database, or give "
                    "--replace to replace everything in it."
                )
            restore.clear_club()
            restored = restore.write_club(plan, user=_user(user))
            recompute(user=user)
            if not plan.published:
                restore.publish_closed(user=_user(user))
            data_version.bump_on_commit()
    except IntegrityError as error:  # a rule only the database knows; nothing was written
        message = f"The file cannot be restored: the database refused it ({error})."
        raise ClubInvalid(message) from error
    return restored


@transaction.atomic
def record_first_versions() -> dict[str, int]:
    """Give every player and game that has no history version (written in bulk by an older
    Ladder) its first one, dated when it was created; return how many of each."""
    reason = "First version recorded afterwards"
    return {
        "players": audit.record_missing(Player, reason=reason),
        "games": audit.record_missing(Game, reason=reason),
    }


# --- periods ------------------------------------------------------------------------------------


@transaction.atomic
def close_period(*, period: RatingPeriod, user: Any = None) -> RatingPeriod:
    """Close a period: its list is published and its games are frozen (DESIGN Data)."""
    period = RatingPeriod.objects.select_for_update().get(pk=period.pk)
    if period.is_closed:
        raise ValidationError(f"The period {period.label} is already closed.")
    earlier = (
        RatingPeriod.objects.filter(start__lt=period.start, status=PeriodStatus.OPEN)
        .order_by("start")
        .first()
    )
    if earlier is not None:
        raise ValidationError(
            f"The earlier period {earlier.label} is still open; periods close in order, "
            f"so close {earlier.label} first."
        )
    # The list is published whole: what waits to be rated is rated first (in immediate mode,
    # waiting for a run another process is executing; in background mode the closing waits
    # for the workers). Runs from a later period cannot change this one's list.
    runs.settle(wait=True)
    pending = (
        RatingRun.objects.filter(
            status__in=(RunStatus.QUEUED, RunStatus.RUNNING), rating_list__in=kept_lists()
        )
        .filter(Q(from_period__isnull=True) | Q(from_period__start__lte=period.start))
        .first()
    )
    if pending is not None:
        raise ValidationError(
            f"The ratings are still being computed (rating run #{pending.pk}); close the "
            f"period {period.label} once it has finished, so that its list is published whole."
        )
    period.status = PeriodStatus.CLOSED
    period.closed_at = timezone.now()
    period.save(update_fields=["status", "closed_at"])
    _explain_version(period, "Closed: its list is published.", user=user)
    PeriodLog.objects.create(period=period, action=PeriodLog.Action.CLOSED, user=_user(user))
    # Its list as published (a revision when it closes again after a correction), and a
    # revision of every later closed list the correction changed.
    publication.publish(period, user=_user(user))
    publication.revise_later(period, user=_user(user))
    return period


@transaction.atomic
def reopen_period(
    *, period: RatingPeriod, reason: str, user: Any = None, now: datetime | None = None
) -> RatingPeriod:
    """Reopen a closed period so that its games can be corrected; the reason is recorded
    (the period's log and history).

    Beyond the club's correction window (``correction_window``) only holders of
    ``ladder.reopen_after_window`` may: raise ``correction_window.ReopenRefused`` naming them.
    ``now`` is the moment the window is judged at (default: now).
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Give a reason to reopen a period; it is recorded."})
    try:
        refuse_control_characters_but_lines(reason)
    except ValidationError as error:
        raise ValidationError({"reason": error.messages}) from error
    period = RatingPeriod.objects.select_for_update().get(pk=period.pk)
    if not period.is_closed:
        raise ValidationError(f"The period {period.label} is already open.")
    correction_window.check_reopen(period, user=_user(user), now=now)
    period.status = PeriodStatus.OPEN
    period.closed_at = None
    period.save(update_fields=["status", "closed_at"])
    _explain_version(period, f"Reopened: {reason}", user=user)
    PeriodLog.objects.create(
        period=period, action=PeriodLog.Action.REOPENED, reason=reason, user=_user(user)
    )
    return period


def _explain_version(period: RatingPeriod, reason: str, *, user: Any) -> None:
    """Say on the period's newest history version (the save just made, under the row lock)
    why it was made, and by whom when no request said it (a command run ``--user``)."""
    version = period.history.order_by("-history_date", "-history_id").first()
    if version is None:
        return
    # simple-history keeps 100 characters; the whole reason is in the period's log.
    room = version._meta.get_field("history_change_reason").max_length or len(reason)
    if len(reason) > room:
        reason = reason[: room - 1] + "…"
    changes: dict[str, Any] = {"history_change_reason": reason}
    if version.history_user_id is None and _user(user) is not None:
        changes["history_user"] = user
    period.history.filter(pk=version.pk).update(**changes)


@transaction.atomic
def recompute(
    *, period: RatingPeriod | None = None, rating_list: str | None = None, user: Any = None
) -> list[RatingRun]:
    """Ask for a full recompute from ``period`` (default: the first) of one list (default:
    every list the club keeps), through rating runs (one a list)."""
    where = f"from {period.label}" if period is not None else "of every period"
    return [
        runs.request_recompute(
            rating_list=name,
            period=period,
            players=None,
            reason=f"Full recompute {where} requested",
            user=user,
        )
        for name in ([rating_list] if rating_list else kept_lists())
    ]


# --- tournament files ---------------------------------------------------------------------------


class _DryRun(Exception):
    """Roll a dry run back once everything has been written and checked."""


def import_tournament(
    *, plan: tournaments.TournamentImport, user: Any = None, dry_run: bool = False
) -> tournaments.TournamentImport:
    """Import a tournament file (TRF or PGN, see ``ladder.files.tournaments``) whole or not at all:
    create its new players, then record its games through ``enter_games`` (one transaction,
    one rating run a list). ``dry_run`` does all of it and rolls it back: an exact preview.

    Raise ``TrfRefused`` naming every problem by line and column; an event already in the
    ladder is refused, never recorded twice.
    """
    try:
        with transaction.atomic():
            _import_tournament(plan, user=user)
            if dry_run:
                raise _DryRun
    except _DryRun:
        plan.games, plan.dry_run = [], True
        for player in plan.new_players:  # the rollback took their rows away
            player.pk, player._state.adding = None, True
    return plan


def _import_tournament(plan: tournaments.TournamentImport, *, user: Any) -> None:
    again = tournaments.already_imported(plan)
    if plan.problems or again is not None:
        raise TrfRefused(plan.problems + ([again] if again is not None else []))
    if plan.new_players:
        bulk_create_with_history(plan.new_players, Player, default_user=_user(user))
        data_version.bump_on_commit()  # bulk-written: no signal says the players changed
    if not plan.entries:
        return
    try:
        plan.games = enter_games(
            games=plan.entries,
            user=user,
            reason=f"{plan.event}: {len(plan.entries)} games imported from a tournament file",
        )
    except ValidationError as error:
        raise tournaments.refusal(error, plan) from error
