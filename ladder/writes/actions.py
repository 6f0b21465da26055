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
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from ladder.exceptions import ClubInvalid, ConflictError, FileAlreadyImported, PeriodClosedError
from ladder.records import (
    BaseCorrection,
    EventType,
    Game,
    ImportedFile,
    PeriodLog,
    PeriodStatus,
    Player,
    RatingList,
    RatingPeriod,
    Tournament,
    kept_lists,
    refuse_control_characters_but_lines,
    webhooks,
)
from ladder.records import versions as data_version
from ladder.records.codes import CONFLICT
from ladder.writes import audit, correction_window, fide_list, merges, privacy, restore, storage
from ladder.writes.fide_list import FideListReport
from ladder.writes.validation import (
    ClubPlan,
    GameEntry,
    check_club,
    check_entry_change,
    check_games,
    check_period,
    check_period_deletion,
    check_player_deletion,
    check_player_name,
    check_players,
    ensure_event_new,
    ensure_none_merged,
    ensure_open,
    raise_for,
    raise_for_players,
)
from ladder.writes.validation.tournaments import (
    TournamentSpec,
    check_tournament_change,
    check_tournament_deletion,
    event_tournament,
    event_tournament_name,
    tournament_for,
)
from ratings import publication, runs
from ratings.models import RatingRun, RunStatus

GAME_FIELDS = (
    "date", "white", "black", "result", "event", "round", "rating_list", "time_control",
    "tournament",
)  # fmt: skip
_DAYS_LOCK = 0x1ADD  # advisory lock namespace of the days games are written on
_PUBLISHED_LOCK = 0x1AD0  # advisory lock: closing or reopening against entry-data changes
_MERGES_LOCK = 0x1AD3  # advisory lock: merging players against writing games for them

__all__ = [
    "GameEntry",
    "PeriodClosedError",
    "add_players",
    "close_period",
    "correct_game",
    "delete_games",
    "delete_periods",
    "delete_players",
    "enter_games",
    "erase_player",
    "mark_not_duplicate",
    "merge_players",
    "unmerge_players",
    "import_fide_list",
    "import_games",
    "import_players",
    "import_tournament",
    "recompute",
    "record_first_versions",
    "reopen_period",
    "restore_club",
    "save_period",
    "save_player",
    "save_tournament",
    "save_base_correction",
    "delete_base_corrections",
    "delete_tournaments",
]


# --- games --------------------------------------------------------------------------------------


@transaction.atomic
def enter_games(*, games: Sequence[GameEntry], user: Any = None, reason: str = "") -> list[Game]:
    """Record one or many games, all or none; one rating run rates them after the commit.

    Raise ``ValidationError`` (one game), ``PeriodClosedError`` (its period is closed) or
    ``GamesInvalid`` (several games, each with its problems).
    """
    _lock_merges(exclusive=False)
    _lock_days({entry.date for entry in games if entry.date is not None})
    checked = check_games(games)
    valid = raise_for(checked)
    ensure_none_merged(checked)
    _place_in_tournaments(valid, [c.entry for c in checked if c.game is not None])
    _lock_open({game.period_id for game in valid})
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


def _place_in_tournaments(games: Sequence[Game], entries: Sequence[GameEntry]) -> None:
    """Put each game in its tournament and the tournament's period: the one its entry names
    (a file's is recorded when new), else its event's inside its month (FIDE.md 10.1)."""
    months: dict[tuple[int, int], RatingPeriod] = {}
    found: dict[tuple[Any, ...], Tournament] = {}
    for game, entry in zip(games, entries, strict=True):
        named = entry.tournament
        if isinstance(named, Tournament):
            tournament = named
        elif isinstance(named, TournamentSpec):
            key: tuple[Any, ...] = (named, game.rating_list)
            if key not in found:
                found[key] = tournament_for(named, game.rating_list)
            tournament = found[key]
        else:
            month = (game.date.year, game.date.month)
            if month not in months or not months[month].contains(game.date):
                months[month] = RatingPeriod.objects.for_date(game.date)
            period = months[month]
            key = (game.event, period.pk, game.rating_list)
            if key not in found:
                found[key] = event_tournament(game.event, period, game.rating_list)
            tournament = found[key]
        game.tournament = tournament
        game.period = tournament.rated_in
        if named is not None:  # a game of a named tournament is of its event
            game.event = game.event or tournament.name


@transaction.atomic
def correct_game(*, game: Game, changes: Mapping[str, Any], user: Any = None) -> Game:
    """Correct a game (date, players, result, event, round); both periods must be open.

    The row is locked first, so a correction racing a deletion finds the game gone
    (``Game.DoesNotExist``) instead of writing it back.
    """
    unknown = set(changes) - set(GAME_FIELDS)
    if unknown:
        raise ValueError(f"A game has no field {', '.join(sorted(unknown))} to correct.")
    _lock_merges(exclusive=False)
    stored = _locked_games([game.pk], periods=False).get(game.pk)
    if stored is None:
        raise Game.DoesNotExist(f"Game #{game.pk} no longer exists.")
    values = {name: getattr(stored, name) for name in GAME_FIELDS} | dict(changes)
    if "tournament" not in changes and _in_event_tournament(stored):
        values["tournament"] = None  # its event's inside its month again, wherever it moves
    if "time_control" in changes and "rating_list" not in changes:
        values["rating_list"] = ""  # a new time control says the list itself
    if values["date"] is not None:
        _lock_days({values["date"]})
    entry = GameEntry(**values)
    checked = check_games([entry], instance=stored)
    raise_for(checked)
    ensure_none_merged(checked)
    # Every action takes its locks in one order (the published lists, the merges, game rows,
    # days, periods, the waiting run), so two writers never wait on each other: lock the old
    # and the new period before the save records the request, and check them open again now
    # that no close can slip in.
    old_period = stored.period_id
    checked_game = checked[0].game
    assert checked_game is not None
    _place_in_tournaments([checked_game], [entry])
    values["tournament"] = checked_game.tournament
    stored.period = checked_game.period
    _lock_open({old_period, stored.period_id})
    old_list = stored.rating_list
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


def _in_event_tournament(game: Game) -> bool:
    """Whether a game sits in the tournament its event makes inside its month (no door named
    a tournament for it)."""
    tournament = game.tournament
    return tournament is None or (
        tournament.start == game.period.start
        and tournament.end == game.period.end
        and tournament.name == event_tournament_name(game.event, game.period)
    )


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


def _lock_published(*, exclusive: bool) -> None:
    """Serialize closing and reopening (``exclusive``) with changes to players' entry data
    (shared: they do not wait on one another), so that an entry-data change either commits
    before a close reads the list it publishes, or waits for the close and is checked against
    the period now closed (PostgreSQL; SQLite transactions take the database's write lock
    when they begin). First in the lock order: a close executes rating runs that write player
    rows, so it must never wait for a saver holding one."""
    if connection.vendor != "postgresql":
        return
    take = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {take}(%s)", [_PUBLISHED_LOCK])


def _lock_merges(*, exclusive: bool) -> None:
    """Serialize merging and unmerging players (``exclusive``) with writing games and base
    corrections (shared: they do not wait on one another), so that a game written while a
    merge runs is checked against the merge once it has committed and never lands on the
    merged record (PostgreSQL; SQLite transactions take the database's write lock when they
    begin). A merge takes it after the published lists' lock; a writer first of all."""
    if connection.vendor != "postgresql":
        return
    take = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {take}(%s)", [_MERGES_LOCK])


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
    """Add a player, or save a change to one; a change to the entry data re-rates them.

    A change waits for a period being closed or reopened (``_lock_published``), then is
    checked against the periods as they are now: refused (``PeriodClosedError``) if the
    player has games in a list just published, else rated and published by the next close."""
    _lock_published(exclusive=False)
    stored = Player.objects.select_for_update().filter(pk=player.pk)
    if player.pk is not None and not stored.exists():
        raise Player.DoesNotExist(f"Player #{player.pk} no longer exists.")
    if player.pk is not None and stored.filter(merged_into__isnull=False).exists():
        raise ValidationError(
            gettext(
                "%(player)s was merged into another player; unmerge them to change this record."
            )
            % {"player": player}
        )
    player.full_clean()
    check_player_name(player)
    check_entry_change(player)
    try:
        with transaction.atomic():  # a savepoint: the transaction survives a refused insert
            player.save()
    except IntegrityError as error:  # a concurrent writer took the FIDE id since full_clean
        raise _taken_meanwhile(player) from error
    runs.attribute_change(
        reason=f"Entry data of {player.name} changed", user=user, rating_lists=RatingList.values
    )
    return player


def _taken_meanwhile(player: Player) -> ConflictError:
    """The conflict of a player the database refused after ``full_clean`` passed: a concurrent
    writer recorded their FIDE id or national id meanwhile. The same sentences as when it was
    recorded before (``validate_unique``, ``validate_constraints``), as a conflict (409)."""
    try:
        player.validate_unique()
        player.validate_constraints()
    except ValidationError as taken:
        return ConflictError(taken.error_dict)
    return ConflictError(gettext("The player could not be saved; try again."))


@transaction.atomic
def add_players(
    *, players: Sequence[Player], user: Any = None, reason: str, sources: Sequence[str] = ()
) -> list[Player]:
    """Add new players, all or none, checked as every door checks a player (the model's own
    validators; a FIDE id twice in the batch or already in the club); return them with their
    ids. ``sources`` name the players in messages ("line 5"). Raise ``PlayersInvalid``.

    Written in bulk, each with its first history version (``reason``, ``user``).
    """
    raise_for_players(check_players(players, sources=sources), sources)
    for player in players:
        player.start_from_entry()
    try:
        storage.insert_players(players)
    except IntegrityError as error:  # a concurrent writer took a FIDE id since the check
        raise ValidationError(
            gettext(
                "The players could not be added: another import took one of their FIDE ids "
                "meanwhile; try again."
            )
        ) from error
    # Bulk-written: no save() wrote their first history version, no signal says they changed.
    audit.record_created(Player, [p.pk for p in players], user=_user(user), reason=reason)
    data_version.bump_on_commit()
    return list(players)


@transaction.atomic
def erase_player(*, player: Player, reason: str, user: Any = None) -> privacy.Erasure:
    """Replace a person's name and personal fields by a pseudonym, keeping every rating
    (``ladder.writes.privacy``); recorded in their history with who, when and ``reason``.

    Raise ``ValidationError`` (no reason, or erased already) or ``Player.DoesNotExist``."""
    _lock_published(exclusive=False)  # the birth year may go: as an entry-data change
    stored = Player.objects.select_for_update().filter(pk=player.pk).first()
    if stored is None:
        raise Player.DoesNotExist(f"Player #{player.pk} no longer exists.")
    return privacy.erase(player=stored, reason=reason, user=_user(user))


# --- who is who: merges -------------------------------------------------------------------------


@transaction.atomic
def merge_players(
    *, keep: Any, other: Any, reason: str, user: Any = None, now: datetime | None = None
) -> merges.MergeOutcome:
    """Merge player ``other`` (an id) into player ``keep``: their games, base corrections and
    blank identity fields move to the kept player, who is rated again from the earliest period
    it changes; a closed list it changes gets a revision (``ladder.writes.merges``).

    Raise ``ValidationError`` with field errors (``keep``, ``other``, ``reason``): the same
    player, an unknown one, one merged already, a merge that makes a player play themselves
    or twice in a round, two corrections of one list and period, two FIDE ids; or
    ``ReopenRefused`` (a closed list beyond its correction window). ``now``: the moment the
    window is judged at."""
    reason = merges.clean_reason(reason, required=True)
    _lock_published(exclusive=True)  # a merge revises published lists, as a close does
    _lock_merges(exclusive=True)
    kept, merged = merges.lock_pair(keep, other)
    return merges.merge(kept=kept, merged=merged, reason=reason, user=_user(user), now=now)


@transaction.atomic
def unmerge_players(
    *, other: Any, reason: str = "", user: Any = None, now: datetime | None = None
) -> merges.MergeOutcome:
    """Undo the merge of player ``other`` (an id): what it moved goes back and both are rated
    again, so that the ratings and lists are as if it had never been made (a closed list
    gets a revision back). Raise ``ValidationError`` (``other``: unknown, or not merged)."""
    reason = merges.clean_reason(reason, required=False)
    _lock_published(exclusive=True)
    _lock_merges(exclusive=True)
    merged = merges.lock_merged(other)
    return merges.unmerge(merged=merged, reason=reason, user=_user(user), now=now)


@transaction.atomic
def mark_not_duplicate(*, first: Player, second: Player, user: Any = None, note: str = "") -> Any:
    """Remember that two players are different people: the duplicate finder proposes them no
    more. Saying it twice is saying it once."""
    return merges.remember_not_duplicate(first, second, user=_user(user), note=note)


# --- files --------------------------------------------------------------------------------------


@transaction.atomic
def import_players(
    *, players: Sequence[Player], digest: str, user: Any = None, sources: Sequence[str] = ()
) -> list[Player]:
    """Add the players of a file (``add_players``) and remember the file by its fingerprint
    ``digest``, so that the same file twice is refused (``FileAlreadyImported``)."""
    added = add_players(players=players, user=user, reason="Imported from a CSV file",
                        sources=sources)  # fmt: skip
    _remember(digest, kind=ImportedFile.Kind.PLAYERS, rows=len(added), user=user)
    return added


@transaction.atomic
def import_games(*, games: Sequence[GameEntry], digest: str, user: Any = None) -> list[Game]:
    """Record the games of a file through ``enter_games`` and remember the file by its
    fingerprint ``digest`` (the same file twice is refused: ``FileAlreadyImported``)."""
    created = enter_games(games=games, user=user, reason=f"{len(games)} games imported")
    _remember(digest, kind=ImportedFile.Kind.GAMES, rows=len(created), user=user)
    return created


def _remember(digest: str, *, kind: str, rows: int, user: Any) -> None:
    """Record an imported file in the import's transaction; a concurrent import of the same
    file loses here (the unique fingerprint) and rolls back whole."""
    try:
        with transaction.atomic():
            ImportedFile.objects.create(kind=kind, sha256=digest, rows=rows, user=_user(user))
    except IntegrityError as error:
        earlier = ImportedFile.objects.get(kind=kind, sha256=digest)
        raise FileAlreadyImported(earlier) from error


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
    """Close a period: its list is published and its games are frozen (DESIGN Data).

    Entry-data changes in flight finish first and are published; those that come after wait,
    then are refused (``_lock_published``)."""
    _lock_published(exclusive=True)
    period = RatingPeriod.objects.select_for_update().get(pk=period.pk)
    if period.is_closed:
        raise ValidationError(
            gettext("The period %(label)s is already closed.") % {"label": period.label},
            code=CONFLICT,
        )
    earlier = (
        RatingPeriod.objects.filter(start__lt=period.start, status=PeriodStatus.OPEN)
        .order_by("start")
        .first()
    )
    if earlier is not None:
        raise ValidationError(
            f"The earlier period {earlier.label} is still open; periods close in order, "
            f"so close {earlier.label} first.",
            code=CONFLICT,
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
    ``ladder.reopen_after_window`` may: raise ``ReopenRefused`` naming them.
    ``now`` is the moment the window is judged at (default: now).
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Give a reason to reopen a period; it is recorded."})
    try:
        refuse_control_characters_but_lines(reason)
    except ValidationError as error:
        raise ValidationError({"reason": error.messages}) from error
    _lock_published(exclusive=True)
    period = RatingPeriod.objects.select_for_update().get(pk=period.pk)
    if not period.is_closed:
        raise ValidationError(
            gettext("The period %(label)s is already open.") % {"label": period.label},
            code=CONFLICT,
        )
    correction_window.check_reopen(period, user=_user(user), now=now)
    period.status = PeriodStatus.OPEN
    period.closed_at = None
    period.save(update_fields=["status", "closed_at"])
    _explain_version(period, f"Reopened: {reason}", user=user)
    PeriodLog.objects.create(
        period=period, action=PeriodLog.Action.REOPENED, reason=reason, user=_user(user)
    )
    webhooks.emit(
        EventType.PERIOD_REOPENED,
        {"period": period.label, "period_id": period.pk, "reason": reason},
    )
    return period


def _explain_version(record: Any, reason: str, *, user: Any) -> None:
    """Say on the record's newest history version (the save just made, under the row lock)
    why it was made, and by whom when no request said it (a command run ``--user``)."""
    version = record.history.order_by("-history_date", "-history_id").first()
    if version is None:
        return
    # simple-history keeps 100 characters; the whole reason is in the period's log.
    room = version._meta.get_field("history_change_reason").max_length or len(reason)
    if len(reason) > room:
        reason = reason[: room - 1] + "…"
    changes: dict[str, Any] = {"history_change_reason": reason}
    if version.history_user_id is None and _user(user) is not None:
        changes["history_user"] = user
    record.history.filter(pk=version.pk).update(**changes)


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
    *,
    event: str,
    players: Sequence[Player],
    games: Sequence[GameEntry],
    user: Any = None,
    dry_run: bool = False,
    sources: Sequence[str] = (),
) -> list[Game]:
    """Import a tournament file's new players (``add_players``) and its games (``enter_games``)
    whole or not at all, in one transaction with one rating run a list; return the games.
    ``dry_run`` does all of it and rolls it back (an exact preview): no game is returned and
    the players are left unsaved.

    Raise ``EventAlreadyImported`` (games of the event are recorded already),
    ``PlayersInvalid`` (the players), else what ``enter_games`` raises (the games).
    """
    try:
        with transaction.atomic():
            ensure_event_new(event, {entry.date for entry in games if entry.date is not None})
            reason = f"{event}: imported from a tournament file"
            if players:
                add_players(players=players, user=user, reason=reason, sources=sources)
            created = []
            if games:
                count = f"{len(games)} games imported from a tournament file"
                created = enter_games(games=games, user=user, reason=f"{event}: {count}")
            if dry_run:
                raise _DryRun
    except _DryRun:
        for player in players:  # the rollback took their rows away
            player.pk, player._state.adding = None, True
        return []
    return created


# --- FIDE's monthly list -------------------------------------------------------------------------


def import_fide_list(
    *,
    rows: Iterable[str],
    month: date,
    columns: Sequence[str],
    federation: str = "",
    ids: Iterable[int] = (),
    user: Any = None,
    dry_run: bool = False,
) -> FideListReport:
    """Store FIDE's list of ``month`` (``rows``: COPY lines of ``FideListEntry``'s fields
    ``columns``, as ``ladder.files.fide_list`` reads them), correct the
    identity of the club's players on it (name, federation, sex, birth year, title) as
    ``save_player`` saves a change, and add the players of ``federation`` and of ``ids`` not in
    the club yet, with their entry data from the list (``add_players``); all in one
    transaction, or nothing (``ImportFailed`` from the rows, a player refused). ``dry_run``
    does all of it and rolls it back. Return the report of every change.

    A birth year the list corrects for a player with games in a published list is left as it
    is (published means published) and the report says so."""
    report = FideListReport(month=month, dry_run=dry_run)
    wanted = {str(i) for i in ids}
    try:
        with transaction.atomic():
            club = {
                str(fide_id): pk
                for pk, fide_id in Player.objects.exclude(fide_id=None).values_list("pk", "fide_id")
            }
            keep = fide_list.KeepRule(club=set(club), federation=federation.upper(), ids=wanted)
            report.rows, kept = fide_list.store(rows, month=month, columns=columns, keep=keep)
            found = {row[1]: fide_list.listed(row) for row in kept}
            _apply_identity(report, club, found, user=user)
            new = [
                fide_list.new_player(values, report.notes)
                for key, values in found.items()
                if key not in club
            ]
            report.notes += [
                f"FIDE id {i} is not on the list of {month:%Y-%m}."
                for i in sorted(wanted - set(found), key=int)
            ]
            if new:
                reason = f"Added from FIDE's list of {month:%Y-%m}"
                report.added = add_players(
                    players=new,
                    user=user,
                    reason=reason,
                    sources=[f"FIDE id {p.fide_id}" for p in new],
                )
            data_version.bump_on_commit()
            if dry_run:
                raise _DryRun
    except _DryRun:
        for player in report.added:
            player.pk, player._state.adding = None, True
    return report


def _apply_identity(
    report: FideListReport, club: dict[str, int], found: dict[str, dict[str, Any]], *, user: Any
) -> None:
    """Correct the identity of the club's players on the list: the name, federation, sex and
    title of all of them in one bulk update with their history versions (no rating depends on
    them), and the birth year of those with no game; the birth year of a player with games --
    entry data, the junior K reads it -- through ``save_player``, one player at a time, as
    every door changes it."""
    on_list = [key for key in found if key in club]
    report.matched = len(on_list)
    players = Player.objects.select_for_update().in_bulk([club[key] for key in on_list])
    plain: list[Player] = []
    fields: set[str] = set()
    reason = f"Identity from FIDE's list of {report.month:%Y-%m}"
    ids = list(players)
    playing = (
        set(
            Game.objects.filter(Q(white_id__in=ids) | Q(black_id__in=ids)).values_list(
                "white_id", flat=True
            )
        )
        | set(
            Game.objects.filter(Q(white_id__in=ids) | Q(black_id__in=ids)).values_list(
                "black_id", flat=True
            )
        )
        if ids
        else set()
    )
    for key in on_list:
        player, values = players[club[key]], found[key]
        changes = fide_list.identity_changes(player, values)
        if not changes:
            continue
        label, fide_id = player.name, int(key)
        old = {name: getattr(player, name) for name in changes}
        for name, value in changes.items():
            setattr(player, name, value)
        if "birth_year" in changes and player.pk in playing:
            # A birth year shapes their ratings: the whole change as every door saves one.
            if _saved(player, reason, user=user):
                report.changes += [fide_list.Change(label, fide_id, name, old[name], value)
                                   for name, value in changes.items()]  # fmt: skip
                continue
            year = changes.pop("birth_year")
            player.birth_year = old["birth_year"]
            note = "games in a published list; reopen it to change the birth year"
            report.changes.append(
                fide_list.Change(label, fide_id, "birth_year", old["birth_year"], year, note)
            )
        if changes:
            others = [f.name for f in Player._meta.fields if f.name not in changes]
            player.clean_fields(exclude=others)
            plain.append(player)
            fields.update(changes)
            report.changes += [fide_list.Change(label, fide_id, name, old[name], value)
                               for name, value in changes.items()]  # fmt: skip
    if plain:
        fide_list.update_identity(plain, sorted(fields))
        # Their history versions, in bulk (the rows are written above: no fields here).
        bulk_update_with_history(
            plain, Player, [], batch_size=1000, default_user=_user(user),
            default_change_reason=reason,
        )  # fmt: skip
        data_version.bump_on_commit()


def _saved(player: Player, reason: str, *, user: Any) -> bool:
    """Save an identity change that holds a birth year as every door saves one, its history
    version saying why and by whom; False (nothing saved) for a player with games in a
    published list (published means published)."""
    try:
        with transaction.atomic():
            save_player(player=player, user=user)
            _explain_version(player, reason, user=user)
    except PeriodClosedError:
        return False
    return True


# --- tournaments ---------------------------------------------------------------------------------


@transaction.atomic
def save_tournament(*, tournament: Tournament, user: Any = None) -> Tournament:
    """Add a tournament, or change one (name, dates, time control, the period that rates it).

    Its games follow it: a new period moves them there, and a new start (another list in
    force, FIDE.md 10.1) or period rates them again; both periods must be open. A tournament
    with games keeps its list and may not leave out any of its games' dates.
    """
    tournament.full_clean()
    stored = None
    if tournament.pk is not None:
        stored = Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        if stored is None:
            raise Tournament.DoesNotExist(f"Tournament #{tournament.pk} no longer exists.")
    games = Game.objects.filter(tournament=stored) if stored is not None else Game.objects.none()
    moved = stored is not None and (
        stored.start != tournament.start or stored.rated_in_id != tournament.rated_in_id
    )
    check_tournament_change(tournament)
    if stored is not None and games.exists():
        _lock_open({stored.rated_in_id, tournament.rated_in_id})
    else:
        moved = False
        _lock_open({tournament.rated_in_id})
    tournament.save()
    if moved:
        assert stored is not None
        games.update(period=tournament.rated_in)
        earlier = min(stored.rated_in, tournament.rated_in, key=lambda p: p.start)
        players = {pid for pair in games.values_list("white_id", "black_id") for pid in pair}
        runs.request_recompute(
            rating_list=tournament.rating_list,
            period=earlier,
            players=players,
            reason=f"Tournament {tournament.name} changed",
            user=user,
        )
    return tournament


@transaction.atomic
def delete_tournaments(*, tournaments: Iterable[Tournament], user: Any = None) -> int:
    """Delete tournaments that hold no game, all or none; return how many were deleted."""
    stored = list(Tournament.objects.select_for_update().filter(pk__in=[t.pk for t in tournaments]))
    check_tournament_deletion(stored)
    for tournament in stored:
        tournament.delete()
    return len(stored)


# --- base corrections ----------------------------------------------------------------------------


@transaction.atomic
def save_base_correction(*, correction: BaseCorrection, user: Any = None) -> BaseCorrection:
    """Record (or change) a corrected starting rating for a player on a list in a period, with
    its reason (FIDE.md 10.1), and rate the period again from it; the period must be open (and
    so must the one it moves from)."""
    _lock_merges(exclusive=False)
    correction.full_clean()
    kept = Player.objects.filter(pk=correction.player_id).values_list("merged_into_id", flat=True)
    if (kept_id := kept.first()) is not None:
        message = (
            f"{correction.player} was merged into player #{kept_id}; correct that player's rating."
        )
        raise ValidationError({"player": ValidationError(message, code=CONFLICT)})
    periods = {correction.period_id}
    if correction.pk is not None:
        stored = BaseCorrection.objects.select_for_update().filter(pk=correction.pk).first()
        if stored is None:
            raise BaseCorrection.DoesNotExist(f"Base correction #{correction.pk} is gone.")
        periods.add(stored.period_id)
    _lock_open(periods)
    correction.user = _user(user)
    correction.save()
    _rate_corrected(correction, reason=f"Base correction of {correction.player}", user=user)
    return correction


@transaction.atomic
def delete_base_corrections(*, corrections: Iterable[BaseCorrection], user: Any = None) -> int:
    """Delete base corrections of open periods, all or none; rate those periods again."""
    stored = list(
        BaseCorrection.objects.select_for_update()
        .filter(pk__in=[c.pk for c in corrections])
        .select_related("player", "period")
    )
    _lock_open({c.period_id for c in stored})
    for correction in stored:
        correction.delete()
        _rate_corrected(correction, reason=f"Base correction of {correction.player} deleted",
                        user=user)  # fmt: skip
    return len(stored)


def _rate_corrected(correction: BaseCorrection, *, reason: str, user: Any) -> None:
    runs.request_recompute(
        rating_list=correction.rating_list,
        period=correction.period,
        players={correction.player_id},
        reason=reason,
        user=user,
    )


# --- the records the admin adds, changes and deletes: periods, players --------------------------


@transaction.atomic
def save_period(*, period: RatingPeriod, user: Any = None) -> RatingPeriod:
    """Add a rating period, or change an open one's label or dates (``check_period``); a change
    of dates asks for a recompute from the earlier start. Status and closing time are never
    taken from the caller (a form, a history version): closing and reopening are actions."""
    # Lock every period (a club has a dozen a year), in the one order the other actions lock
    # them: a close or another new period cannot slip between the checks and the save.
    locked = {p.pk: p for p in RatingPeriod.objects.select_for_update().order_by("pk")}
    stored = None
    if period.pk is not None:
        stored = locked.get(period.pk)
        if stored is None:
            raise RatingPeriod.DoesNotExist(f"Period #{period.pk} no longer exists.")
        period.status, period.closed_at = stored.status, stored.closed_at
    else:
        period.status, period.closed_at = PeriodStatus.OPEN, None
    check_period(period, stored=stored)
    period.full_clean()
    period.save()
    if stored is not None and (stored.start, stored.end) != (period.start, period.end):
        recompute(period=min(stored, period, key=lambda p: p.start), user=user)
    return period


@transaction.atomic
def delete_periods(*, periods: Iterable[RatingPeriod], user: Any = None) -> int:
    """Delete open periods that hold no game and never had a published list, all or none
    (``check_period_deletion``); return how many were deleted."""
    stored = list(
        RatingPeriod.objects.select_for_update()
        .filter(pk__in=[p.pk for p in periods])
        .order_by("start")
    )
    check_period_deletion(stored)
    for period in stored:
        # The tournaments left without games there (their games were deleted) go with it.
        empty = period.tournaments.filter(games__isnull=True)
        for tournament in empty:
            tournament.delete()
        period.delete()
    return len(stored)


@transaction.atomic
def delete_players(*, players: Iterable[Player], user: Any = None) -> int:
    """Delete players who have no game and no line on a published list, all or none
    (``check_player_deletion``); return how many were deleted."""
    stored = list(
        Player.objects.select_for_update().filter(pk__in=[p.pk for p in players]).order_by("pk")
    )
    check_player_deletion(stored)
    for player in stored:
        player.delete()
    return len(stored)
