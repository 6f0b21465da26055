"""A whole club read from a backup (``ClubPlan``), checked before a row is written: the same
models' validators, the same date rule, periods that do not overlap, games inside their periods
and references that exist, each problem named by where it is in the file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext

from ladder.records import (
    Game,
    PeriodStatus,
    Player,
    RatingPeriod,
    Tournament,
)
from ladder.records.merges import TAKEN_IDENTITY
from ladder.records.tournaments import check_rated_in
from ladder.writes.validation.games import (
    future_message,
    latest_game_date,
    repeat_message,
)

# --- a whole club (a backup restored) -----------------------------------------------------------


@dataclass
class Located:
    """A record read from a file, unsaved, and where it is in the file (``games[12]``).

    Its primary key and the keys it names are the file's ids; ``users`` maps a field to the
    username the file names there."""

    where: str
    record: Any
    users: dict[str, str | None] = field(default_factory=dict)


@dataclass
class ClubPlan:
    """A club read from a backup, checked whole by ``check_club`` before anything is written.

    ``groups`` and ``users`` are plain data (name, permissions; fields, groups, permissions);
    the rest are unsaved records keyed by the file's ids. ``problems`` holds what the reader
    already found (a value of the wrong type), each as ``where: message``."""

    groups: list[dict[str, Any]] = field(default_factory=list)
    users: list[dict[str, Any]] = field(default_factory=list)
    players: list[Located] = field(default_factory=list)
    periods: list[Located] = field(default_factory=list)
    logs: list[Located] = field(default_factory=list)
    tournaments: list[Located] = field(default_factory=list)
    games: list[Located] = field(default_factory=list)
    publications: list[Located] = field(default_factory=list)
    lines: list[Located] = field(default_factory=list)
    runs: list[Located] = field(default_factory=list)
    base_corrections: list[Located] = field(default_factory=list)
    merges: list[Located] = field(default_factory=list)
    not_duplicates: list[Located] = field(default_factory=list)
    fide_list: list[Located] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    published: bool = True  # the file carries the published lists (version 1 did not)


def check_club(plan: ClubPlan) -> list[str]:
    """Return every problem of a club about to be restored, each as ``where: message``, from
    the models' own validators and the write path's rules (dates in their periods, no overlap,
    references that exist). Reads only the users already there."""
    problems = list(plan.problems) + _check_users(plan.groups, plan.users)
    problems += _check_records(plan.players, exclude=["merged_into"])
    problems += _unique(plan.players, "pk", gettext("Another player of the file has this id."))
    problems += _unique(
        plan.players, "fide_id", gettext("Another player of the file has this FIDE id.")
    )
    national = [row for row in plan.players if row.record.national_id]
    problems += _unique(national, ("national_federation", "national_id"),
                        gettext("Another player of the file has this national id."))  # fmt: skip
    problems += _check_periods(plan.periods)
    periods = {row.record.pk: row.record for row in plan.periods}
    players = {row.record.pk for row in plan.players}
    problems += _check_records(plan.logs, exclude=["period", "user"])
    # (tournaments and games below)
    tournaments = {row.record.pk: row.record for row in plan.tournaments}
    problems += _check_tournaments(plan.tournaments, periods)
    problems += _check_games(plan.games, players, periods, tournaments)
    problems += _check_published(plan)
    problems += _check_records(plan.runs, exclude=["from_period", "requested_by", "folded_into"])
    problems += _unique(plan.runs, "pk", gettext("Another rating run of the file has this id."))
    for row in plan.runs:
        if row.record.players is not None and not _numbers(row.record.players):
            problems.append(
                f"{row.where}.players: " + gettext("A list of player ids was expected.")
            )
    publications = {row.record.pk for row in plan.publications}
    refs: list[tuple[list[Located], str, set[Any], str]] = [
        (plan.logs, "period_id", set(periods), "period"),
        (plan.publications, "period_id", set(periods), "period"),
        (plan.publications, "corrected_in_id", set(periods), "period"),
        (plan.lines, "publication_id", publications, "publication"),
        (plan.lines, "player_id", players, "player"),
        (plan.runs, "from_period_id", set(periods), "period"),
    ]
    for rows, name, known, what in refs:
        problems += _references(rows, name, known, what)
    problems += _check_who_is_who(plan, players, set(periods))
    usernames = {u.get("username") for u in plan.users} | set(
        get_user_model().objects.values_list("username", flat=True)
    )
    for rows in (plan.logs, plan.publications, plan.runs, plan.base_corrections, plan.merges,
                 plan.not_duplicates):  # fmt: skip
        for row in rows:
            problems += [
                f"{row.where}.{name}: "
                + gettext("No user is named '%(username)s' in the file.") % {"username": username}
                for name, username in row.users.items()
                if username is not None and username not in usernames
            ]
    return problems


def _check_users(groups: list[dict[str, Any]], users: list[dict[str, Any]]) -> list[str]:
    """Each group and user by their model's own validators; no username twice."""
    User = get_user_model()
    problems, seen = [], set()
    for index, data in enumerate(groups):
        try:
            Group(name=data["name"]).clean_fields(exclude=["permissions"])
        except ValidationError as error:
            problems += _located(f"groups[{index}]", error)
    for index, data in enumerate(users):
        fields = {name: value for name, value in data.items()
                  if name not in ("groups", "permissions") and value is not None}  # fmt: skip
        try:
            User(**fields).clean_fields(exclude=["password", "last_login", "date_joined"])
        except ValidationError as error:
            problems += _located(f"users[{index}]", error)
        if data.get("username") in seen:
            problems.append(
                f"users[{index}].username: " + gettext("Another user of the file has this name.")
            )
        seen.add(data.get("username"))
    return problems


def _check_published(plan: ClubPlan) -> list[str]:
    """Publications and their lines by the models' validators, each once; the differences a
    revision names as the model stores them."""
    problems = _check_records(plan.publications, exclude=["period", "corrected_in", "published_by"])
    problems += _unique(
        plan.publications, "pk", gettext("Another publication of the file has this id.")
    )
    problems += _unique(
        plan.publications,
        ("period_id", "rating_list", "revision"),
        gettext("Another publication of the file has this period, list and revision."),
    )
    problems += _check_records(plan.lines, exclude=["publication", "player"])
    problems += _unique(
        plan.lines, ("publication_id", "player_id"), gettext("This player has another line here.")
    )
    for row in plan.publications:
        differences = row.record.differences
        if not isinstance(differences, list) or not all(
            isinstance(d, list) and len(d) == 5 and _numbers(d[:1]) and _numbers(d[1:], blank=True)
            for d in differences
        ):
            problems.append(f"{row.where}.differences: " + gettext(
                "Each difference is [player id, old rating, new rating, old change, new change]."
            ))  # fmt: skip
    return problems


def _numbers(values: list[Any], *, blank: bool = False) -> bool:
    """Tell whether every value is a whole number (or, with ``blank``, None)."""
    return all(
        (isinstance(v, int) and not isinstance(v, bool)) or (blank and v is None) for v in values
    )


def _check_records(rows: Sequence[Located], *, exclude: list[str]) -> list[str]:
    """The model's field validators and ``clean`` (not those that read the database)."""
    problems = []
    for row in rows:
        try:
            row.record.clean_fields(exclude=exclude)
            # Their clean() reads no database (a tournament's period and a game's tournament
            # are the file's, or missing: the references are checked apart).
            if isinstance(row.record, Player | Game | Tournament):
                row.record.clean()
        except ValidationError as error:
            problems += _located(row.where, error)
    return problems


def _located(where: str, error: ValidationError) -> list[str]:
    if not hasattr(error, "error_dict"):
        return [f"{where}: {message}" for message in error.messages]
    return [
        f"{where}: {message}" if name == NON_FIELD_ERRORS else f"{where}.{name}: {message}"
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def _unique(rows: Sequence[Located], names: str | tuple[str, ...], message: str) -> list[str]:
    """Refuse rows that repeat ``names`` (the file's ids, or a FIDE id) of an earlier row."""
    seen: dict[Any, str] = {}
    problems = []
    for row in rows:
        key = tuple(getattr(row.record, n) for n in ((names,) if isinstance(names, str) else names))
        if None in key:
            continue
        if key in seen:
            name = names if isinstance(names, str) else names[-1]
            label = "id" if name == "pk" else name.removesuffix("_id")
            problems.append(f"{row.where}.{label}: {message.rstrip('.')} ({seen[key]}).")
        else:
            seen[key] = row.where
    return problems


def _references(rows: Sequence[Located], name: str, known: set[Any], what: str) -> list[str]:
    message = {
        "period": gettext("No period of the file has the id %(id)s."),
        "publication": gettext("No publication of the file has the id %(id)s."),
        "player": gettext("No player of the file has the id %(id)s."),
        "tournament": gettext("No tournament of the file has the id %(id)s."),
    }[what]
    return [
        f"{row.where}.{name.removesuffix('_id')}: " + message % {"id": getattr(row.record, name)}
        for row in rows
        if getattr(row.record, name) is not None and getattr(row.record, name) not in known
    ]


def _check_periods(rows: Sequence[Located]) -> list[str]:
    """Labels and dates by the model's validators; no two periods overlap."""
    problems = _check_records(rows, exclude=[])
    problems += _unique(rows, "pk", gettext("Another period of the file has this id."))
    problems += _unique(rows, "label", gettext("Another period of the file has this label."))
    dated = [r for r in rows if isinstance(r.record.start, date) and isinstance(r.record.end, date)]
    for row in dated:
        if row.record.end < row.record.start:
            problems.append(f"{row.where}.end: " + gettext("A period cannot end before it starts."))
    dated.sort(key=lambda r: r.record.start)
    for before, after in zip(dated, dated[1:], strict=False):
        if after.record.start <= before.record.end:
            problems.append(
                f"{after.where}.start: "
                + gettext(
                    "The period %(label)s (%(start)s to %(end)s) overlaps %(other)s "
                    "(%(other_start)s to %(other_end)s); periods cannot overlap."
                )
                % {
                    "label": after.record.label,
                    "start": after.record.start,
                    "end": after.record.end,
                    "other": before.record.label,
                    "other_start": before.record.start,
                    "other_end": before.record.end,
                }
            )
    for row in rows:
        closed = row.record.status == PeriodStatus.CLOSED
        if closed != (row.record.closed_at is not None):
            problems.append(
                f"{row.where}.closed_at: "
                + gettext("A closed period has the moment it was closed, and an open one has none.")
            )
    return problems


def _check_tournaments(rows: Sequence[Located], periods: dict[int, RatingPeriod]) -> list[str]:
    """Each tournament: the model's validators, a period of the file that may rate it."""
    for row in rows:  # the period that rates it, as the file holds it
        if row.record.rated_in_id in periods:
            row.record.rated_in = periods[row.record.rated_in_id]
    problems = _check_records(rows, exclude=["rated_in"])
    problems += _unique(rows, "pk", gettext("Another tournament of the file has this id."))
    problems += _unique(
        rows,
        ("name", "start", "rating_list"),
        gettext("Another tournament of the file has this name, start and list."),
    )
    problems += _references(rows, "rated_in_id", set(periods), "period")
    for row in rows:
        tournament, period = row.record, periods.get(row.record.rated_in_id)
        if period is None or not isinstance(tournament.end, date):
            continue
        try:
            check_rated_in(tournament.end, period)
        except ValidationError as error:
            problems += _located(row.where, error)
    return problems


def _check_games(
    rows: Sequence[Located],
    players: set[int],
    periods: dict[int, RatingPeriod],
    tournaments: dict[int, Tournament],
) -> list[str]:
    """Each game: the model's validators (two different players, inside its tournament),
    players and a tournament that exist, a date no later than every door allows, inside the
    period it is attached to (a tournament's game: its tournament's period); none twice."""
    for row in rows:  # the tournament the game names, as the file holds it
        if row.record.tournament_id in tournaments:
            row.record.tournament = tournaments[row.record.tournament_id]
    problems = _check_records(rows, exclude=["period", "white", "black", "tournament"])
    problems += _unique(rows, "pk", gettext("Another game of the file has this id."))
    problems += _references(rows, "tournament_id", set(tournaments), "tournament")
    bound = latest_game_date()
    seen: dict[tuple[Any, ...], str] = {}
    for row in rows:
        game = row.record
        problems += [
            f"{row.where}.{colour}: "
            + gettext("No player of the file has the id %(id)s.") % {"id": pk}
            for colour, pk in (("white", game.white_id), ("black", game.black_id))
            if pk not in players
        ]
        if not isinstance(game.date, date):
            continue
        period = periods.get(game.period_id)
        tournament = tournaments.get(game.tournament_id)
        if tournament is not None and game.period_id != tournament.rated_in_id:
            problems.append(
                f"{row.where}.period: "
                + gettext(
                    "The game's tournament is rated in the period with the id %(rated_in)s, "
                    "not %(period)s."
                )
                % {"rated_in": tournament.rated_in_id, "period": game.period_id}
            )
        if game.date > bound:
            problems.append(f"{row.where}.date: {future_message(game.date, bound)}")
        elif game.period_id is None:
            problems.append(f"{row.where}.period: " + gettext("The game names no period."))
        elif period is None:
            problems.append(
                f"{row.where}.period: "
                + gettext("No period of the file has the id %(id)s.") % {"id": game.period_id}
            )
        elif (
            tournament is None
            and isinstance(period.start, date)
            and isinstance(period.end, date)
            and not period.contains(game.date)
        ):
            problems.append(
                f"{row.where}.date: "
                + gettext(
                    "The game is dated %(date)s, outside its period %(label)s (%(start)s to "
                    "%(end)s)."
                )
                % {
                    "date": game.date.isoformat(),
                    "label": period.label,
                    "start": period.start,
                    "end": period.end,
                }
            )
        key = (game.date, game.white_id, game.black_id, game.round, game.rating_list)
        if key in seen:
            problems.append(f"{row.where}: {repeat_message(seen[key])}")
        else:
            seen[key] = row.where
    return problems


# --- who is who (version 5) ---------------------------------------------------------------------


def _check_who_is_who(plan: ClubPlan, players: set[int], periods: set[int]) -> list[str]:
    """Base corrections, merges, "not a duplicate" answers and FIDE list rows: the models'
    validators, references to the file's records, and merges that agree with the players'
    ``merged_into`` (so that the merged ids lead where they led, and an unmerge works)."""
    corrections = plan.base_corrections
    problems = _check_records(corrections, exclude=["player", "period", "user"])
    problems += _unique(
        corrections, "pk", gettext("Another base correction of the file has this id.")
    )
    problems += _unique(
        corrections,
        ("player_id", "rating_list", "period_id"),
        gettext("Another base correction of the file corrects this player, list and period."),
    )
    problems += _check_records(plan.merges, exclude=["kept", "merged", "from_period", "user",
                                                     "undone_by"])  # fmt: skip
    problems += _unique(plan.merges, "pk", gettext("Another merge of the file has this id."))
    active = [row for row in plan.merges if row.record.undone_at is None]
    problems += _unique(active, "merged_id", gettext("This player is merged already."))
    problems += _check_merges(plan, players)
    problems += _check_records(plan.not_duplicates, exclude=["first", "second", "user"])
    problems += _unique(
        plan.not_duplicates, "pk", gettext("Another answer of the file has this id.")
    )
    problems += _unique(
        plan.not_duplicates,
        ("first_id", "second_id"),
        gettext("Another answer of the file names these two players."),
    )
    for row in plan.not_duplicates:
        first, second = row.record.first_id, row.record.second_id
        if first is not None and second is not None and not first < second:
            problems.append(
                f"{row.where}.second: "
                + gettext("The lower id comes first (%(first)s is not below %(second)s).")
                % {"first": first, "second": second}
            )
    problems += _check_records(plan.fide_list, exclude=[])
    problems += _unique(
        plan.fide_list,
        ("fide_id", "month"),
        gettext("Another row of the file has this month and FIDE id."),
    )
    for row in plan.fide_list:
        if isinstance(row.record.month, date) and row.record.month.day != 1:
            problems.append(
                f"{row.where}.month: " + gettext("A list's month is its first day (YYYY-MM-01).")
            )
    refs: list[tuple[list[Located], str, set[Any], str]] = [
        (corrections, "player_id", players, "player"),
        (corrections, "period_id", periods, "period"),
        (plan.merges, "kept_id", players, "player"),
        (plan.merges, "merged_id", players, "player"),
        (plan.merges, "from_period_id", periods, "period"),
        (plan.not_duplicates, "first_id", players, "player"),
        (plan.not_duplicates, "second_id", players, "player"),
    ]
    for rows, name, known, what in refs:
        problems += _references(rows, name, known, what)
    return problems


def _check_merges(plan: ClubPlan, players: set[int]) -> list[str]:
    """What each merge moved, as an unmerge reads it; every merged record (``merged_into``)
    with the merge, not undone, that made it so, and every such merge with its record marked."""
    problems = []
    for row in plan.merges:
        merge = row.record
        if merge.kept_id is not None and merge.kept_id == merge.merged_id:
            problems.append(
                f"{row.where}.merged: " + gettext("A player cannot be merged into themselves.")
            )
        moved = merge.moved if isinstance(merge.moved, dict) else {}
        lists = [moved.get(key, []) for key in ("white", "black", "base_corrections")]
        identity = moved.get("identity", {})
        if (
            not all(isinstance(ids, list) and _numbers(ids) for ids in lists)
            or not isinstance(identity, dict)
            or not set(identity) <= set(TAKEN_IDENTITY)
        ):
            problems.append(
                f"{row.where}.moved: "
                + gettext(
                    'What a merge moved is {"white": [game ids], "black": [game ids], '
                    '"base_corrections": [ids], "identity": {field: value}} (fields: %(fields)s).'
                )
                % {"fields": ", ".join(TAKEN_IDENTITY)}
            )
    merged = {row.record.pk: row.record.merged_into_id for row in plan.players}
    active = {row.record.merged_id: row for row in plan.merges if row.record.undone_at is None}
    for row in plan.players:
        into = row.record.merged_into_id
        if into is None:
            continue
        if into not in players:
            problems.append(
                f"{row.where}.merged_into: "
                + gettext("No player of the file has the id %(id)s.") % {"id": into}
            )
        merge = active.get(row.record.pk)
        if merge is None or merge.record.kept_id != into:
            problems.append(
                f"{row.where}.merged_into: "
                + gettext(
                    "No merge of the file (not undone) merges this player into player %(id)s."
                )
                % {"id": into}
            )
    for pk, row in active.items():
        if pk in merged and merged[pk] != row.record.kept_id:
            problems.append(
                f"{row.where}.merged: "
                + gettext("The player %(merged)s is not marked merged into player %(kept)s.")
                % {"merged": pk, "kept": row.record.kept_id}
            )
    return problems
