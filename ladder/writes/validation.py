"""The one validator of the write path: every door's games are checked here, the same way.

A door parses its input into ``GameEntry`` values (players as Player objects or as the text
people typed), and ``check_games`` resolves and checks them all in a fixed number of queries:
player lookup, the result, the model's own field validators and constraints, the period (closed,
or a month whose period would overlap another or come before a published list) and duplicates
(already recorded, or twice in the batch) and a player given two games in one round of an event
on a day (when a round is given). Each problem is a sentence tied to a field, and every
door shows the same sentence.

A whole club read from a backup (``ClubPlan``) is checked by ``check_club`` before a row is
written: the same models' validators, the same date rule, periods that do not overlap, games
inside their periods and references that exist, each problem named by where it is in the file.
"""

from __future__ import annotations

import calendar
import functools
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db.models import Count, Field, Q
from django.utils import timezone

from ladder.exceptions import (
    EventAlreadyImported,
    GamesInvalid,
    PeriodClosedError,
    PlayersInvalid,
    batch_names,
)
from ladder.records import (
    PLAYER_ENTRY_FIELDS,
    Game,
    PeriodStatus,
    Player,
    RatingList,
    RatingPeriod,
    Result,
    closed_message,
    entry_fields,
    fide_id_message,
    parse_fide_id,
    parse_list,
)
from ladder.records.names import NameIndex, name_key
from ratings.models import Publication, PublishedRating
from ratings.rules import fide

# Beyond this many games the duplicate check reads the games of the date range instead of
# naming every player in IN lists (SQLite limits the variables of one statement).
IN_LIST_LIMIT = 500
# Beyond this many games a batch is first checked for what needs no game built (see check_games).
QUICK_FIRST = 1000


@dataclass(slots=True)  # a big file holds a million of them
class GameEntry:
    """One game as a door hands it over: players as Player objects or as typed text."""

    date: date | None
    white: Player | str
    black: Player | str
    result: str
    event: str = ""
    round: str = ""
    rating_list: str = ""  # standard, rapid or blitz; blank: from the time control, or default
    time_control: str = ""  # "90+30": base minutes + increment seconds
    source: str = ""  # how the door names this game in messages ("Row 2", "line 5")


@dataclass
class Checked:
    """A checked game: the unsaved Game (when valid) and its problems by field."""

    entry: GameEntry
    game: Game | None = None
    problems: dict[str, list[str]] = field(default_factory=dict)
    closed: bool = False  # a problem is a closed period (409 at the API)

    def add(self, name: str, message: str) -> None:
        found = self.problems.setdefault(name, [])
        if message not in found:
            found.append(message)

    @property
    def ok(self) -> bool:
        return not self.problems


# --- players ------------------------------------------------------------------------------------


class PlayerLookup:
    """Find players as people write them: a FIDE id, or the name (case and spacing ignored),
    or the name with the FIDE id as ``str(player)`` shows it. Loaded in one query."""

    def __init__(self, players: Iterable[Player]) -> None:
        self.players = list(players)
        self.by_fide_id = {p.fide_id: p for p in self.players if p.fide_id}
        self.by_label = {name_key(str(p)): p for p in self.players if p.fide_id}
        self.by_name: dict[str, list[Player]] = defaultdict(list)
        for player in self.players:
            self.by_name[name_key(player.name)].append(player)
        self._names: NameIndex | None = None

    @classmethod
    def load(cls, *, light: bool = False) -> PlayerLookup:
        """Read every player in one query; ``light``: as ``PlayerRecord``s (a big file's
        screen finds 100,000 players without a model instance each)."""
        players = Player.objects.order_by("name", "pk")
        if light:
            records = players.values_list(*PlayerRecord.__slots__)
            return cls(cast(list[Player], [PlayerRecord(*row) for row in records]))
        return cls(players)

    def find(self, text: str) -> Player:
        """Return the player ``text`` names; raise ``LookupError`` with the reason."""
        text = " ".join(text.split())
        if not text:
            raise LookupError("A player (FIDE id or name) is required.")
        if text.isdigit() and not text.isascii():  # "١٢٣٤٥": a FIDE id in other digits
            raise LookupError(fide_id_message(text))
        if text.isascii() and text.isdigit():
            fide_id = parse_fide_id(text)
            player = self.by_fide_id.get(fide_id) if fide_id is not None else None
            if player is None:
                raise LookupError(f"No player has the FIDE id {text}.")
            return player
        key = name_key(text)
        if key in self.by_label:
            return self.by_label[key]
        matches = self.by_name.get(key, [])
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = ", ".join(str(p.fide_id) for p in matches if p.fide_id)
            hint = f" ({ids})" if ids else ""
            raise LookupError(
                f"Several players are named '{text}'; enter the FIDE id instead{hint}."
            )
        raise LookupError(f"No player is named '{text}'.{self.suggest(key)}")

    def suggest(self, key: str) -> str:
        names = {k: group[0].name for k, group in self.by_name.items()}
        if self._names is None:  # built once, for the first unknown name
            self._names = NameIndex(list(names))
        close = self._names.close_matches(key, n=3, cutoff=0.6)
        if not close:
            return ""
        return " Did you mean " + " or ".join(f"'{names[c]}'" for c in close) + "?"


class PlayerRecord:
    """What finding a player, its messages and a standard game's time control read of one."""

    __slots__ = ("pk", "name", "fide_id", "rating")
    __str__ = Player.__str__  # the one way a player is written

    def __init__(self, pk: int, name: str, fide_id: int | None, rating: int | None) -> None:
        self.pk, self.name, self.fide_id, self.rating = pk, name, fide_id, rating


# --- games --------------------------------------------------------------------------------------


def check_games(
    entries: Sequence[GameEntry],
    *,
    lookup: PlayerLookup | None = None,
    instance: Game | None = None,
) -> list[Checked]:
    """Check games as every door enters them; return each with its problems, in order.

    ``instance`` is the stored game a single entry corrects (its own row is no duplicate, and
    its current period must be open too). Reads: the players (once, when any is typed), the
    periods, and the games that could be duplicates.
    """
    if lookup is None and any(isinstance(e.white, str) or isinstance(e.black, str)
                              for e in entries):  # fmt: skip
        lookup = PlayerLookup.load()
    if len(entries) > QUICK_FIRST:
        # A big file is read for its typing mistakes first (players, results), which need no
        # game built: one bad row of a million is refused in seconds, not minutes.
        known: dict[tuple[str, str], str | None] = {}  # a big file repeats its players
        quick = [_check_typed(entry, lookup, known) for entry in entries]
        if not all(c.ok for c in quick):
            return quick
    periods = Periods()
    checked = [_check_one(entry, lookup, periods) for entry in entries]
    if instance is not None:
        stored = periods.by_pk.get(instance.period_id)
        if stored is not None and stored.is_closed:
            checked[0].closed = True
            checked[0].add("date", closed_message(stored))
    _check_duplicates([c for c in checked if c.ok], exclude=instance)
    _check_rounds([c for c in checked if c.game is not None], exclude=instance)
    return checked


def _check_typed(
    entry: GameEntry, lookup: PlayerLookup | None, known: dict[tuple[str, str], str | None]
) -> Checked:
    """The checks of ``_check_one`` that need no game: the players and the result, each
    distinct text checked once (``known``: what it was found to be wrong with, or None)."""
    checked = Checked(entry)
    for name in ("white", "black", "result"):
        value = getattr(entry, name)
        if not isinstance(value, str):
            continue
        if (name, value) not in known:
            known[name, value] = typed_problem(name, value, lookup)
        problem = known[name, value]
        if problem is not None:
            checked.add(name, problem)
    return checked


def typed(name: str, value: str, lookup: PlayerLookup | None) -> tuple[Any, str | None]:
    """What a typed player (``white``, ``black``) or result is, or what is wrong with it:
    (the Player or the result as stored, None) or (None, the problem)."""
    if not value.strip():
        return None, (
            "The result is missing." if name == "result" else f"{name.capitalize()} is missing."
        )
    try:
        if name == "result":
            return Result.parse(value), None
        assert lookup is not None
        return lookup.find(value), None
    except (ValueError, LookupError) as error:
        return None, str(error)


def typed_problem(name: str, value: str, lookup: PlayerLookup | None) -> str | None:
    """What is wrong with a typed player or result (None: nothing)."""
    return typed(name, value, lookup)[1]


def _check_one(entry: GameEntry, lookup: PlayerLookup | None, periods: Periods) -> Checked:
    checked = Checked(entry)
    players = {}
    for colour in ("white", "black"):
        value = getattr(entry, colour)
        if isinstance(value, Player):
            players[colour] = value
            continue
        found, problem = typed(colour, value, lookup)
        if problem is not None:
            checked.add(colour, problem)
        else:
            players[colour] = found
    result, problem = typed("result", entry.result, lookup)
    if problem is not None:
        checked.add("result", problem)
        result = entry.result
    game = Game(result=result, event=entry.event, round=entry.round,
                white=players.get("white"), black=players.get("black"))  # fmt: skip
    game.date = entry.date  # type: ignore[assignment]  # None is refused by full_clean
    check_list(entry, game, checked)
    _model_checks(game, checked)
    if entry.date is not None and "date" not in checked.problems:
        check_date(entry.date, periods, checked)
    if checked.ok:
        checked.game = game
    return checked


def check_date(day: date, periods: Periods, checked: Checked) -> None:
    """Note why a game cannot be dated ``day``: still to come, or no open period can hold it."""
    bound = latest_game_date()
    if day > bound:
        checked.add("date", future_message(day, bound))
    else:
        periods.check(day, checked)


def future_message(day: date, bound: date) -> str:
    """Say that a game cannot be dated ``day``, after ``bound`` (``latest_game_date``)."""
    return (
        f"A game cannot be dated after {bound.isoformat()} (the end of next month): "
        f"{day.isoformat()} is still to come."
    )


def latest_game_date(today: date | None = None) -> date:
    """The last day a game may be dated: the end of the month ``LADDER_DATE_MONTHS_AHEAD``
    months after this one (default 1, next month). A date far ahead would make its year the
    current one for every page (juniors' K, the inactive rule)."""
    today = today or timezone.localdate()
    months = today.year * 12 + today.month - 1 + settings.LADDER_DATE_MONTHS_AHEAD
    year, month = divmod(months, 12)
    return date(year, month + 1, calendar.monthrange(year, month + 1)[1])


def check_list(entry: GameEntry, game: Game, checked: Checked) -> None:
    """Put the game on its list (FIDE.md 9): the one given, else its time control's, else the
    club's default; refuse a list the time control contradicts, one the club does not keep, and
    a standard game too fast for its players' ratings."""
    control = None
    if entry.time_control.strip():
        try:
            control = fide.parse_time_control(entry.time_control)
        except ValueError as error:
            checked.add("time_control", str(error))
    timed = fide.list_of(control) if control is not None else None
    named = entry.rating_list if entry.rating_list.strip() else timed
    unkept = None  # a list the club does not keep: said after a contradicting time control
    try:
        chosen = parse_list(named)  # None: the club's default list
    except ValueError as error:
        chosen = (named or "").strip().lower()
        if chosen not in RatingList.values:
            checked.add("rating_list", str(error))
            return
        unkept = str(error)
    if control is not None and timed != chosen:
        checked.add("rating_list", f"A {control} game is a {timed} game (FIDE counts "
                    f"{control.minutes_for_60_moves} minutes for 60 moves): it belongs to the "
                    f"{timed} list, not the {chosen} list.")  # fmt: skip
    elif unkept is not None:
        checked.add("rating_list", unkept)
    elif chosen == RatingList.STANDARD and control is not None and game.white and game.black:
        needed, threshold = fide.standard_minutes_needed([game.white.rating, game.black.rating])
        if control.minutes_for_60_moves < needed:
            checked.add("time_control", too_fast_message(control, needed, threshold))
    game.rating_list = chosen
    game.time_control = str(control) if control is not None else ""


def too_fast_message(control: fide.TimeControl, needed: int, threshold: int) -> str:
    """Say that a time control is too fast for the standard list at these players' ratings."""
    return (
        f"A {control} game is too fast for the standard list when a player is rated "
        f"{threshold} or more: FIDE asks for {needed} minutes each for 60 moves, so it is "
        "rated on no list."
    )


# The fields ``full_clean`` checks on a game the validator built: the players are resolved
# objects already (their foreign-key check would read each again) and the period follows the date.
GAME_FIELDS_CHECKED: list[Field] = [
    f
    for f in Game._meta.fields
    if f.editable and not f.primary_key and f.name not in ("white", "black")
]


def field_problems(model_field: Field, value: object) -> list[str]:
    """What the model field's own validators say of ``value`` (``full_clean`` for one field:
    nothing when it is blank and may be)."""
    if model_field.blank and value in model_field.empty_values:
        return []
    try:
        model_field.clean(value, None)
    except ValidationError as error:
        return list(error.messages)
    return []


def clean_problems(game: Game) -> list[tuple[str, str]]:
    """What the model's ``clean`` says of the game, as (field, message)."""
    try:
        game.clean()
    except ValidationError as error:
        return [(name, m) for name, messages in error.message_dict.items() for m in messages]
    return []


def _model_checks(game: Game, checked: Checked) -> None:
    """The model's own field validators and ``clean``, with their messages (a field already
    refused gets one message)."""
    refused = set(checked.problems)
    for model_field in GAME_FIELDS_CHECKED:
        if model_field.name not in refused:
            for message in field_problems(model_field, getattr(game, model_field.attname)):
                checked.add(model_field.name, message)
    for name, message in clean_problems(game):
        checked.add(name, message)


class Periods:
    """Every rating period, read once, to check the dates of a batch of games."""

    def __init__(self) -> None:
        self.all = list(RatingPeriod.objects.order_by("start"))
        self.by_pk = {p.pk: p for p in self.all}
        closed = [p.start for p in self.all if p.status == PeriodStatus.CLOSED]
        self.latest_closed_start = max(closed, default=None)

    def check(self, day: date, checked: Checked) -> None:
        """Note why ``day`` cannot take a game: a closed period, or no period can hold it."""
        period = next((p for p in self.all if p.contains(day)), None)
        if period is not None:
            if period.is_closed:
                checked.closed = True
                checked.add("date", closed_message(period))
            return
        try:
            RatingPeriod.month_of(day, among=self.all)
        except ValidationError as error:
            checked.add("date", " ".join(error.messages))
            return
        if self.latest_closed_start is not None and day < self.latest_closed_start:
            checked.closed = True
            checked.add(
                "date",
                f"No rating period holds {day.isoformat()}, and the lists after it are already "
                "published; a game cannot be added before a published list.",
            )


def _check_duplicates(checked: list[Checked], *, exclude: Game | None) -> None:
    """Flag games already recorded (same date, players, colours, round and list) or entered
    twice."""
    games = [c.game for c in checked if c.game is not None]
    if not games:
        return
    stored = recorded_like(
        days={g.date for g in games},
        white_ids={g.white_id for g in games},
        black_ids={g.black_id for g in games},
        count=len(games),
        exclude=exclude,
    )
    existing = {
        (day, white, black, round_, rating_list): (pk, result)
        for pk, day, white, black, round_, rating_list, result in stored
    }
    seen: dict[tuple, Checked] = {}
    for item in checked:
        game = item.game
        assert game is not None
        key = (game.date, game.white_id, game.black_id, game.round, game.rating_list)
        if key in existing:
            pk, result = existing[key]
            message = recorded_message(game.white, game.black, result, game.date, pk)
            item.add(NON_FIELD_ERRORS, message)
            item.game = None
        elif key in seen:
            item.add(NON_FIELD_ERRORS, repeat_message(seen[key].entry.source))
            item.game = None
        else:
            seen[key] = item


def _check_rounds(checked: list[Checked], *, exclude: Game | None) -> None:
    """Flag a player given two games in one round: a player plays once a round of an event on
    a day, counting the games already recorded (one query, only when a game names its round)."""
    rounds = [c for c in checked if c.game is not None and c.game.round]
    if not rounds:
        return
    games = [cast(Game, c.game) for c in rounds]
    taken: dict[tuple[date, str, str, int], str] = {}  # (day, event, round, player) -> where
    for pk, day, event, round_, white, black in recorded_in_rounds(games, exclude=exclude):
        for player_id in (white, black):
            taken.setdefault((day, event, round_, player_id), f"in game #{pk}")
    for item in rounds:
        game = cast(Game, item.game)
        for player in (game.white, game.black):
            key = (game.date, game.event, game.round, player.pk)
            if key in taken:
                item.add("round", paired_twice_message(game.round, player.name, taken[key]))
                item.game = None
        if item.game is not None:
            source = item.entry.source
            where = (
                f"at {source[:1].lower()}{source[1:]}"
                if source
                else "in another game of this batch"
            )
            for player in (game.white, game.black):
                taken[game.date, game.event, game.round, player.pk] = where


def recorded_in_rounds(
    games: Sequence[Game], *, exclude: Game | None
) -> Iterable[tuple[int, date, str, str, int, int]]:
    """The stored games with a round on these games' days, of their players, as (pk, date,
    event, round, white id, black id), in one query."""
    stored = Game.objects.exclude(round="")
    if exclude is not None:
        stored = stored.exclude(pk=exclude.pk)
    days = {g.date for g in games}
    if len(games) <= IN_LIST_LIMIT:
        ids = {pk for g in games for pk in (g.white_id, g.black_id)}
        stored = stored.filter(Q(white_id__in=ids) | Q(black_id__in=ids), date__in=days)
    else:
        stored = stored.filter(date__gte=min(days), date__lte=max(days))
    return stored.values_list("pk", "date", "event", "round", "white_id", "black_id")


def paired_twice_message(round_: str, name: str, where: str) -> str:
    """Say that a player is given a second game in one round (``where``: the other game, "at
    line 5" as the door names it, or "in game #12" when it is recorded)."""
    return f"Round {round_}: {name} is paired twice (also {where})."


def recorded_like(
    *,
    days: Collection[date],
    white_ids: Collection[int],
    black_ids: Collection[int],
    count: int,
    exclude: Game | None = None,
) -> Iterable[tuple[int, date, int, int, str, str, str]]:
    """The stored games that could be ``count`` games of these days and players again, as
    (pk, date, white id, black id, round, list, result), in one query: what makes two games
    the same game is the date, the players, their colours, the round and the list."""
    stored = Game.objects.exclude(pk=exclude.pk) if exclude is not None else Game.objects.all()
    if count <= IN_LIST_LIMIT:
        stored = stored.filter(date__in=days, white_id__in=white_ids, black_id__in=black_ids)
    else:
        stored = stored.filter(date__gte=min(days), date__lte=max(days))
    return stored.values_list(
        "pk", "date", "white_id", "black_id", "round", "rating_list", "result"
    )


def recorded_message(white: Player, black: Player, result: str, day: date, pk: int) -> str:
    """Say that a game is already recorded (as game ``pk``)."""
    return (
        f"This game is already recorded: {white.name} - {black.name} {result} on "
        f"{day.isoformat()} (game #{pk})."
    )


def repeat_message(first: str) -> str:
    """Say that a game repeats an earlier one of its batch (``first``: how the door names it)."""
    first = first or "another game of this batch"
    return f"This game repeats {first[:1].lower()}{first[1:]}."


def ensure_event_new(event: str, days: Collection[date]) -> None:
    """Raise ``EventAlreadyImported`` when games of ``event`` on these days are recorded
    already (one query)."""
    if not days:
        return
    stored = Game.objects.filter(event=event, date__gte=min(days), date__lte=max(days))
    first = stored.order_by("created").values_list("created", flat=True).first()
    if first is not None:
        raise EventAlreadyImported(
            f"This event was already imported on {first:%Y-%m-%d at %H:%M}: "
            f"'{event}' has games from {min(days)} to {max(days)} in the ladder; "
            "nothing was imported. Delete its games first to import it again."
        )


# --- new players --------------------------------------------------------------------------------


def check_players(
    players: Sequence[Player], *, sources: Sequence[str] = ()
) -> list[dict[str, list[str]]]:
    """Check new players as every door enters them; return each one's problems by field.

    Each player is checked by the model's own validators (``full_clean`` of the entry data:
    the derived fields are not the door's), the batch for a FIDE id given twice (``sources``:
    how the door names each player, "line 5") and for a FIDE id a stored player has (one query).
    """
    names = list(sources) or batch_names(len(players))
    problems: list[dict[str, list[str]]] = [{} for _ in players]
    first: dict[int, int] = {}  # FIDE id -> the index of the first player with it
    for index, player in enumerate(players):
        if not _plainly_valid(player):
            _player_checks(player, problems[index])
        if player.fide_id is not None:
            if player.fide_id in first:
                message = f"FIDE id {player.fide_id} is also on {names[first[player.fide_id]]}."
                problems[index].setdefault("fide_id", []).append(message)
            first.setdefault(player.fide_id, index)
    stored = Player.objects.exclude(fide_id=None)
    if len(first) <= IN_LIST_LIMIT:  # else read them all: SQLite limits a statement's values
        stored = stored.filter(fide_id__in=list(first))
    taken = {i for i in stored.values_list("fide_id", flat=True) if i in first} if first else ()
    for fide_id in sorted(taken):
        message = f"A player with FIDE id {fide_id} already exists."
        problems[first[fide_id]].setdefault("fide_id", []).append(message)
    return problems


def raise_for_players(problems: list[dict[str, list[str]]], sources: Sequence[str] = ()) -> None:
    """Raise ``PlayersInvalid`` when any player has a problem."""
    if any(problems):
        raise PlayersInvalid(problems, sources)


_DERIVED = [f.name for f in Player._meta.fields if not f.editable]
# What full_clean checks of a new player (the door's fields), and the one field whose every
# value differs (the FIDE id: checked, not remembered).
_CLEANED = [f for f in Player._meta.fields if f.editable and not f.primary_key]
_NAME = Player._meta.get_field("name")
_UNIQUE = {"fide_id"}


def _player_checks(player: Player, found: dict[str, list[str]]) -> None:
    try:
        # Uniqueness is checked for the whole batch at once, and every check constraint repeats
        # a field validator: Django checks a constraint with a query, three a row otherwise.
        player.full_clean(exclude=_DERIVED, validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            found.setdefault(name, []).extend(messages)


def _plainly_valid(player: Player) -> bool:
    """Say whether ``full_clean`` (as ``_player_checks`` calls it) would pass the player, in a
    few dictionary reads: each field's values repeat (ratings, years, federations), so each
    distinct value is cleaned once; a name of printable characters within the length passes
    the name's validators. False sends the player to full_clean for its messages."""
    for model_field in _CLEANED:
        value = getattr(player, model_field.attname)
        if model_field.blank and value in model_field.empty_values:
            continue
        if model_field is _NAME:
            if not (0 < len(value) <= (_NAME.max_length or 0) and value.isprintable()):
                return False
        elif model_field.name in _UNIQUE:
            if field_problems(model_field, value):
                return False
        elif not _cleans_cached(model_field.attname, value):
            return False
    try:
        player.clean()
    except ValidationError:
        return False
    return True


@functools.lru_cache(maxsize=8192)
def _cleans_cached(attname: str, value: Any) -> bool:
    return not field_problems(cast(Field, Player._meta.get_field(attname)), value)


# --- players' entry data ------------------------------------------------------------------------


def check_entry_change(player: Player) -> None:
    """Refuse a change to a stored player's entry data (or birth year) on a list where they have
    games in a closed period: those data shape every published list from their first game on,
    and published means published until the period is reopened (``PeriodClosedError``)."""
    if player.pk is None:
        return
    stored = Player.objects.filter(pk=player.pk).values(*PLAYER_ENTRY_FIELDS).first()
    if stored is None:
        return
    changed = {
        rating_list: [name for name in entry_fields(rating_list)
                      if getattr(player, name) != stored[name]]
        for rating_list in RatingList.values
    }  # fmt: skip
    changed = {name: fields for name, fields in changed.items() if fields}
    if not changed:
        return
    closed = (
        Game.objects.for_player(player)
        .filter(rating_list__in=list(changed), period__status=PeriodStatus.CLOSED)
        .values_list("rating_list", "period__label")
        .order_by("rating_list", "period__start")
    )
    first: dict[str, str] = {}
    for rating_list, label in closed:
        first.setdefault(rating_list, label)
    problems: dict[str, list[str]] = {}
    for rating_list, label in first.items():
        message = (
            f"{player.name} has {rating_list} games in the published list of {label}, which "
            "their entry data shape; reopen it first (admin action 'Reopen', or: manage.py "
            f"reopen_period {label} --reason '...') to change them."
        )
        for name in changed[rating_list]:
            problems.setdefault(name, [message])
    if problems:
        raise PeriodClosedError(problems)


def ensure_open(periods: Iterable[RatingPeriod]) -> None:
    """Raise ``PeriodClosedError`` naming every closed period among these, and how to reopen it."""
    closed = sorted({p for p in periods if p.is_closed}, key=lambda p: p.start)
    if closed:
        raise PeriodClosedError({"date": " ".join(closed_message(p) for p in closed)})


def raise_for(checked: list[Checked]) -> list[Game]:
    """Return the games when all are valid; else raise the errors the doors show.

    One game: a field-keyed ``ValidationError`` (``PeriodClosedError`` when a closed period is
    the problem). Several: ``GamesInvalid`` with every game's problems.
    """
    if all(c.ok for c in checked):
        return [c.game for c in checked if c.game is not None]
    if len(checked) == 1:
        error_class = PeriodClosedError if checked[0].closed else ValidationError
        raise error_class(checked[0].problems)
    raise GamesInvalid([c.problems for c in checked], [c.entry.source for c in checked])


# --- periods ------------------------------------------------------------------------------------

# FIDE published its lists every two months from 1 July 2009 to 30 June 2012, monthly since
# (FIDE.md 10.2): a club replaying those years may keep two-month periods there, and no longer
# ones anywhere; everywhere else a period is at most one month long.
TWO_MONTH_LISTS = (date(2009, 7, 1), date(2012, 6, 30))


def check_period(period: RatingPeriod, *, stored: RatingPeriod | None = None) -> None:
    """Refuse a new period, or a change to the ``stored`` one, that would move a published list.

    A closed period's label and dates belong to its published list (``PeriodClosedError``).
    New dates may not start on or before the end of the latest closed period (a game in it
    would change the lists after it), end after the last day a game may be dated (its year would
    become the current one), or span more than a month (two in FIDE's two-month years).
    """
    if stored is not None and stored.is_closed:
        changed = [name for name in ("label", "start", "end")
                   if getattr(period, name) != getattr(stored, name)]  # fmt: skip
        if changed:
            message = (
                f"The period {stored.label} is closed; its label and dates belong to its "
                "published list. Reopen it first (admin action 'Reopen', or: manage.py "
                f"reopen_period {stored.label} --reason '...')."
            )
            raise PeriodClosedError(dict.fromkeys(changed, message))
        return
    if period.start is None or period.end is None or period.end < period.start:
        return  # the model's own checks say what is missing or reversed
    if stored is not None and (stored.start, stored.end) == (period.start, period.end):
        return  # a new label only: no game changes list
    problems: dict[str, list[str]] = {}
    latest = (
        RatingPeriod.objects.filter(status=PeriodStatus.CLOSED)
        .exclude(pk=period.pk)
        .order_by("-end")
        .first()
    )
    if latest is not None and period.start <= latest.end:
        problems["start"] = [
            f"A period must start after {latest.end.isoformat()}, the end of {latest.label} "
            "(the latest published list): its games would change lists already published."
        ]
    bound = latest_game_date()
    if period.end > bound:
        problems["end"] = [
            f"A period cannot end after {bound.isoformat()}, the last day a game may be dated "
            f"today: {period.end.isoformat()} is still to come."
        ]
    months = 2 if TWO_MONTH_LISTS[0] <= period.start <= TWO_MONTH_LISTS[1] else 1
    longest = longest_period_end(period.start, months)
    if months == 2 and longest > TWO_MONTH_LISTS[1]:
        longest = max(TWO_MONTH_LISTS[1], longest_period_end(period.start, 1))
    if period.end > longest:
        length = "one month" if months == 1 else "two months"
        why = ("FIDE publishes its lists monthly" if months == 1
               else "FIDE published its lists every two months until June 2012")  # fmt: skip
        problems.setdefault("end", []).append(
            f"A rating period is at most {length} long ({why}): a period starting on "
            f"{period.start.isoformat()} ends on {longest.isoformat()} at the latest."
        )
    if problems:
        raise ValidationError(problems)


def longest_period_end(start: date, months: int) -> date:
    """The last day of a period of ``months`` months from ``start`` (the day before the same
    day ``months`` months later; the 1st of a month gives that month's last day)."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    day = min(start.day, calendar.monthrange(year, month)[1])
    return date.fromordinal(date(year, month, day).toordinal() - 1)


def check_period_deletion(periods: Iterable[RatingPeriod]) -> None:
    """Refuse to delete a closed period, one with games, or one whose list was ever published
    (its publications are kept); every refused period is named in one ``ValidationError``."""
    periods = sorted(periods, key=lambda p: p.start)
    pks = [p.pk for p in periods]
    games = dict(
        Game.objects.filter(period__in=pks)
        .values("period")
        .annotate(n=Count("pk"))
        .values_list("period", "n")
    )
    published = set(Publication.objects.filter(period__in=pks).values_list("period", flat=True))
    problems = []
    for period in periods:
        if period.is_closed:
            problems.append(
                f"The period {period.label} is closed; its published list is kept, so it "
                "cannot be deleted."
            )
        elif period.pk in games:
            count = games[period.pk]
            problems.append(
                f"The period {period.label} holds {count} game{'s' if count != 1 else ''}; "
                "delete or move them first."
            )
        elif period.pk in published:
            problems.append(
                f"The list of {period.label} was published before the period was reopened; "
                "published lists are kept, so it cannot be deleted."
            )
    if problems:
        raise ValidationError(problems)


# --- deleting players ---------------------------------------------------------------------------


def check_player_deletion(players: Iterable[Player]) -> None:
    """Refuse to delete a player who has games or a line on a published list (published lists
    keep every line); every refused player is named in one ``ValidationError``."""
    players = sorted(players, key=lambda p: (p.name, p.pk))
    pks = [p.pk for p in players]
    played = {  # who has games (as white or as black)
        pk
        for colour in ("white", "black")
        for pk in Game.objects.filter(**{f"{colour}__in": pks})
        .order_by()
        .values_list(colour, flat=True)
        .distinct()
    }
    listed = dict(
        PublishedRating.objects.filter(player__in=pks)
        .order_by("player", "-publication__period__start")  # the first list wins the dict
        .values_list("player", "publication__period__label")
    )
    problems = []
    for player in players:
        if player.pk in played:
            problems.append(
                f"{player.name} has games in the ladder; a player with games cannot be deleted."
            )
        elif player.pk in listed:
            problems.append(
                f"{player.name} is on the published list of {listed[player.pk]}; published "
                "lists keep every line, so the player cannot be deleted."
            )
    if problems:
        raise ValidationError(problems)


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
    games: list[Located] = field(default_factory=list)
    publications: list[Located] = field(default_factory=list)
    lines: list[Located] = field(default_factory=list)
    runs: list[Located] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    published: bool = True  # the file carries the published lists (version 1 did not)


def check_club(plan: ClubPlan) -> list[str]:
    """Return every problem of a club about to be restored, each as ``where: message``, from
    the models' own validators and the write path's rules (dates in their periods, no overlap,
    references that exist). Reads only the users already there."""
    problems = list(plan.problems) + _check_users(plan.groups, plan.users)
    problems += _check_records(plan.players, exclude=[])
    problems += _unique(plan.players, "pk", "Another player of the file has this id.")
    problems += _unique(plan.players, "fide_id", "Another player of the file has this FIDE id.")
    problems += _check_periods(plan.periods)
    periods = {row.record.pk: row.record for row in plan.periods}
    players = {row.record.pk for row in plan.players}
    problems += _check_records(plan.logs, exclude=["period", "user"])
    problems += _check_games(plan.games, players, periods)
    problems += _check_published(plan)
    problems += _check_records(plan.runs, exclude=["from_period", "requested_by", "folded_into"])
    problems += _unique(plan.runs, "pk", "Another rating run of the file has this id.")
    for row in plan.runs:
        if row.record.players is not None and not _numbers(row.record.players):
            problems.append(f"{row.where}.players: A list of player ids was expected.")
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
    usernames = {u.get("username") for u in plan.users} | set(
        get_user_model().objects.values_list("username", flat=True)
    )
    for rows in (plan.logs, plan.publications, plan.runs):
        for row in rows:
            problems += [
                f"{row.where}.{name}: No user is named '{username}' in the file."
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
            problems.append(f"users[{index}].username: Another user of the file has this name.")
        seen.add(data.get("username"))
    return problems


def _check_published(plan: ClubPlan) -> list[str]:
    """Publications and their lines by the models' validators, each once; the differences a
    revision names as the model stores them."""
    problems = _check_records(plan.publications, exclude=["period", "corrected_in", "published_by"])
    problems += _unique(plan.publications, "pk", "Another publication of the file has this id.")
    problems += _unique(
        plan.publications,
        ("period_id", "rating_list", "revision"),
        "Another publication of the file has this period, list and revision.",
    )
    problems += _check_records(plan.lines, exclude=["publication", "player"])
    problems += _unique(
        plan.lines, ("publication_id", "player_id"), "This player has another line here."
    )
    for row in plan.publications:
        differences = row.record.differences
        if not isinstance(differences, list) or not all(
            isinstance(d, list) and len(d) == 5 and _numbers(d[:1]) and _numbers(d[1:], blank=True)
            for d in differences
        ):
            problems.append(f"{row.where}.differences: Each difference is [player id, old "
                            "rating, new rating, old change, new change].")  # fmt: skip
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
            if isinstance(row.record, Player | Game):  # their clean() reads no database
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
    return [
        f"{row.where}.{name.removesuffix('_id')}: No {what} of the file has the id "
        f"{getattr(row.record, name)}."
        for row in rows
        if getattr(row.record, name) is not None and getattr(row.record, name) not in known
    ]


def _check_periods(rows: Sequence[Located]) -> list[str]:
    """Labels and dates by the model's validators; no two periods overlap."""
    problems = _check_records(rows, exclude=[])
    problems += _unique(rows, "pk", "Another period of the file has this id.")
    problems += _unique(rows, "label", "Another period of the file has this label.")
    dated = [r for r in rows if isinstance(r.record.start, date) and isinstance(r.record.end, date)]
    for row in dated:
        if row.record.end < row.record.start:
            problems.append(f"{row.where}.end: A period cannot end before it starts.")
    dated.sort(key=lambda r: r.record.start)
    for before, after in zip(dated, dated[1:], strict=False):
        if after.record.start <= before.record.end:
            problems.append(
                f"{after.where}.start: The period {after.record.label} ({after.record.start} to "
                f"{after.record.end}) overlaps {before.record.label} ({before.record.start} to "
                f"{before.record.end}); periods cannot overlap."
            )
    for row in rows:
        closed = row.record.status == PeriodStatus.CLOSED
        if closed != (row.record.closed_at is not None):
            problems.append(
                f"{row.where}.closed_at: A closed period has the moment it was "
                "closed, and an open one has none."
            )
    return problems


def _check_games(
    rows: Sequence[Located], players: set[int], periods: dict[int, RatingPeriod]
) -> list[str]:
    """Each game: the model's validators (two different players), players that exist, a date
    no later than every door allows, inside the period it is attached to; none twice."""
    problems = _check_records(rows, exclude=["period", "white", "black"])
    problems += _unique(rows, "pk", "Another game of the file has this id.")
    bound = latest_game_date()
    seen: dict[tuple[Any, ...], str] = {}
    for row in rows:
        game = row.record
        problems += [
            f"{row.where}.{colour}: No player of the file has the id {pk}."
            for colour, pk in (("white", game.white_id), ("black", game.black_id))
            if pk not in players
        ]
        if not isinstance(game.date, date):
            continue
        period = periods.get(game.period_id)
        if game.date > bound:
            problems.append(f"{row.where}.date: {future_message(game.date, bound)}")
        elif game.period_id is None:
            problems.append(f"{row.where}.period: The game names no period.")
        elif period is None:
            problems.append(
                f"{row.where}.period: No period of the file has the id {game.period_id}."
            )
        elif (
            isinstance(period.start, date)
            and isinstance(period.end, date)
            and not period.contains(game.date)
        ):
            problems.append(
                f"{row.where}.date: The game is dated {game.date.isoformat()}, "
                f"outside its period {period.label} ({period.start} to "
                f"{period.end})."
            )
        key = (game.date, game.white_id, game.black_id, game.round, game.rating_list)
        if key in seen:
            problems.append(f"{row.where}: {repeat_message(seen[key])}")
        else:
            seen[key] = row.where
    return problems
