"""The games a door enters or corrects: resolved and checked in a fixed number of queries.

A door parses its input into ``GameEntry`` values (players as Player objects or as the text
people typed), and ``check_games`` resolves and checks them all: player lookup, the result, the
model's own field validators and constraints, the period (closed, or a month whose period would
overlap another or come before a published list), duplicates (already recorded, or twice in the
batch) and a player given two games in one round of an event on a day. Each problem is a
sentence tied to a field, and every door shows the same sentence.
"""

from __future__ import annotations

import calendar
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db.models import Field, Q
from django.utils import timezone
from django.utils.translation import gettext

from ladder.exceptions import (
    ConflictError,
    EventAlreadyImported,
    GamesInvalid,
    PeriodClosedError,
)
from ladder.records import (
    Game,
    PeriodStatus,
    Player,
    RatingList,
    RatingPeriod,
    Result,
    Tournament,
    closed_message,
    fide_id_message,
    parse_fide_id,
    parse_list,
)
from ladder.records.names import name_key, rank, search_key, skeleton, words_of
from ladder.records.tournaments import game_problems
from ladder.records.translations import rules_text
from ladder.writes.validation.tournaments import (
    TournamentSpec,
    closed_problem,
    rated_period,
)
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
    # The tournament it was played in (blank: its event inside its month, see tournaments.py).
    tournament: Tournament | TournamentSpec | None = None


@dataclass
class Checked:
    """A checked game: the unsaved Game (when valid) and its problems by field."""

    entry: GameEntry
    game: Game | None = None
    problems: dict[str, list[str]] = field(default_factory=dict)
    closed: bool = False  # a problem is a closed period (409 at the API)
    # Problems with what is recorded (a duplicate, a merged player): 409 at the API when they
    # are all its problems.
    conflicts: int = 0

    def add(self, name: str, message: str) -> None:
        found = self.problems.setdefault(name, [])
        if message not in found:
            found.append(message)

    @property
    def ok(self) -> bool:
        return not self.problems


# --- players ------------------------------------------------------------------------------------


# A national id as every door writes one: the issuing federation, a colon, the id (NOR:12345).
NATIONAL_ID = re.compile(r"([A-Za-z]{3}):\s*(\S{1,20})")


class PlayerLookup:
    """Find players as people write them: a FIDE id, a national id (``NOR:12345``), or the
    name (case, accents, spacing, invisible characters and look-alike letters ignored; else
    its words in any order and transliterated), or the name with the FIDE id as
    ``str(player)`` shows it; typos get a "Did you mean". Loaded in one query."""

    def __init__(self, players: Iterable[Player]) -> None:
        self.players = list(players)
        self.by_fide_id = {p.fide_id: p for p in self.players if p.fide_id}
        self.by_label = {name_key(str(p)): p for p in self.players if p.fide_id}
        self.by_national = {
            (p.national_federation, p.national_id.casefold()): p
            for p in self.players
            if p.national_id
        }
        self.by_name: dict[str, list[Player]] = defaultdict(list)
        for player in self.players:
            self.by_name[name_key(player.name)].append(player)
        self._keys: list[str] | None = None  # the names' search keys, for the first unknown
        self._words: dict[str, list[Player]] | None = None  # the players by their words

    @classmethod
    def load(cls, *, light: bool = False) -> PlayerLookup:
        """Read every player in one query; ``light``: as ``PlayerRecord``s (a big file's
        screen finds 100,000 players without a model instance each)."""
        players = Player.objects.current().order_by("name", "pk")
        if light:
            records = players.values_list(*PlayerRecord.__slots__)
            return cls(cast(list[Player], [PlayerRecord(*row) for row in records]))
        return cls(players)

    def find(self, text: str) -> Player:
        """Return the player ``text`` names; raise ``LookupError`` with the reason."""
        text = " ".join(text.split())
        if not text:
            raise LookupError(gettext("A player (FIDE id or name) is required."))
        if text.isdigit() and not text.isascii():  # "١٢٣٤٥": a FIDE id in other digits
            raise LookupError(fide_id_message(text))
        if text.isascii() and text.isdigit():
            fide_id = parse_fide_id(text)
            player = self.by_fide_id.get(fide_id) if fide_id is not None else None
            if player is None:
                raise LookupError(gettext("No player has the FIDE id %(text)s.") % {"text": text})
            return player
        national = NATIONAL_ID.fullmatch(text)
        if national:
            found = self.by_national.get((national[1].upper(), national[2].casefold()))
            if found is None:
                raise LookupError(
                    f"No player has the national id {national[1].upper()}:{national[2]}."
                )
            return found
        key = name_key(text)
        if key in self.by_label:
            return self.by_label[key]
        matches = _plain_first(self.by_name.get(key, []) or self.by_words(text))
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = ", ".join(str(p.fide_id) for p in matches if p.fide_id)
            hint = f" ({ids})" if ids else ""
            raise LookupError(
                gettext("Several players are named '%(text)s'; enter the FIDE id instead%(hint)s.")
                % {"text": text, "hint": hint}
            )
        raise LookupError(
            gettext("No player is named '%(text)s'.") % {"text": text} + self.suggest(key)
        )

    def by_words(self, text: str) -> list[Player]:
        """The players whose name has the words of ``text`` in any order, spelling,
        transliteration or punctuation ("Magnus Carlsen" is "Carlsen, Magnus")."""
        if self._words is None:  # worked out once, for the first name not found as written
            self._words = defaultdict(list)
            for player in self.players:
                self._words[words_of(_search_key(player))].append(player)
        words = words_of(search_key(text))
        return self._words.get(words, []) if words else []

    def close(self, text: str, n: int = 3) -> list[list[Player]]:
        """Return the players of up to ``n`` names closest to ``text`` (typos, word order,
        accents, transliteration, sound: ``ladder.records.names.rank``), best first."""
        groups = list(self.by_name.values())
        if self._keys is None:  # worked out once, for the first unknown name
            self._keys = [_search_key(group[0]) for group in groups]
        return [groups[r.index] for r in rank(search_key(text), self._keys, limit=n)]

    def suggest(self, key: str) -> str:
        close = [group[0].name for group in self.close(key)]
        if not close:
            return ""
        return " " + gettext("Did you mean %(names)s?") % {
            "names": gettext(" or ").join(f"'{name}'" for name in close)
        }


def _search_key(player: Player) -> str:
    """The player's stored search key (a player not stored yet: its name's)."""
    return player.search_key or search_key(player.name)


def _plain_first(players: list[Player]) -> list[Player]:
    """The players one key names, the look-alikes left out when one has the plain name: a
    name written with invisible characters or another script's look-alike letters (from
    before the write path refused them) is never the one a typed name finds."""
    plain = [p for p in players if skeleton(p.name) == " ".join(p.name.split())]
    return plain if len(plain) == 1 else players


class PlayerRecord:
    """What finding a player, its messages and a standard game's time control read of one."""

    __slots__ = (
        "pk", "name", "fide_id", "rating", "search_key", "national_federation", "national_id",
    )  # fmt: skip
    __str__ = Player.__str__  # the one way a player is written

    def __init__(
        self,
        pk: int,
        name: str,
        fide_id: int | None,
        rating: int | None,
        search_key: str = "",
        national_federation: str = "",
        national_id: str = "",
    ) -> None:
        self.pk, self.name, self.fide_id, self.rating = pk, name, fide_id, rating
        self.search_key = search_key
        self.national_federation, self.national_id = national_federation, national_id


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
        if name == "result":
            return None, gettext("The result is missing.")
        return None, (
            gettext("White is missing.") if name == "white" else gettext("Black is missing.")
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
    for colour, player in players.items():
        kept = getattr(player, "merged_into_id", None)  # a light lookup holds no merged player
        if kept is not None:
            checked.add(colour, merged_message(player, kept))
            checked.conflicts += 1
    result, problem = typed("result", entry.result, lookup)
    if problem is not None:
        checked.add("result", problem)
        result = entry.result
    game = Game(result=result, event=entry.event, round=entry.round,
                white=players.get("white"), black=players.get("black"))  # fmt: skip
    if isinstance(entry.tournament, Tournament):
        game.tournament = entry.tournament
    game.date = entry.date  # type: ignore[assignment]  # None is refused by full_clean
    check_list(entry, game, checked)
    _model_checks(game, checked)
    if isinstance(entry.tournament, Tournament | TournamentSpec):
        _check_tournament(entry, entry.tournament, game, periods, checked)
    elif entry.date is not None and "date" not in checked.problems:
        check_date(entry.date, periods, checked)
    if checked.ok:
        checked.game = game
    return checked


def merged_message(player: Player, kept_id: int) -> str:
    """Say that a player's record was merged into another's (``ladder.writes.merges``)."""
    return f"{player} was merged into player #{kept_id}; enter the game for that player."


def ensure_none_merged(checked: Sequence[Checked]) -> None:
    """Refuse valid games (``check_games``' answers) for a record merged meanwhile.

    The doors hand players over as objects read before the write began; the write path reads
    their merge marks again here, under the merges' lock (``actions._lock_merges``), so a game
    posted while a merge commits is refused instead of landing on the merged record. Raise
    like ``raise_for``, as conflicts."""
    games = [c.game for c in checked if c.game is not None]
    ids = {pid for game in games for pid in (game.white_id, game.black_id)}
    merged = dict(
        Player.objects.filter(pk__in=ids, merged_into__isnull=False).values_list(
            "pk", "merged_into_id"
        )
    )
    if not merged:
        return
    again = [Checked(entry=c.entry, game=c.game) for c in checked]
    for one in again:
        for colour in ("white", "black"):
            player = getattr(one.game, colour)
            if player.pk in merged:
                one.add(colour, merged_message(player, merged[player.pk]))
                one.conflicts += 1
    raise_for(again)


def _check_tournament(
    entry: GameEntry,
    tournament: Tournament | TournamentSpec,
    game: Game,
    periods: Periods,
    checked: Checked,
) -> None:
    """Check a game against the tournament it names: inside its dates, on its list, and the
    period that rates it open (which may be later than the game's own month, FIDE.md 10.1)."""
    if tournament.start <= tournament.end:  # else its dates are the problem (below)
        for name, message in game_problems(tournament, entry.date, game.rating_list).items():
            checked.add(name, message)
            # A recorded tournament's dates and list are what is recorded: a conflict (409).
            checked.conflicts += isinstance(tournament, Tournament)
    if entry.date is not None and entry.date > (bound := latest_game_date()):
        checked.add("date", future_message(entry.date, bound))
    if isinstance(tournament, Tournament):
        period: RatingPeriod | None = periods.by_pk.get(tournament.rated_in_id)
    else:
        period, problems = rated_period(tournament, periods.all)
        for name, message in problems.items():
            checked.add(name, message)
        if period is None and not problems:  # its end's month: as a game dated then
            periods.check(tournament.end, checked)
    closed = closed_problem(period)
    if closed is not None:
        checked.closed = True
        checked.add("date", closed)


def check_date(day: date, periods: Periods, checked: Checked) -> None:
    """Note why a game cannot be dated ``day``: still to come, or no open period can hold it."""
    bound = latest_game_date()
    if day > bound:
        checked.add("date", future_message(day, bound))
    else:
        periods.check(day, checked)


def future_message(day: date, bound: date) -> str:
    """Say that a game cannot be dated ``day``, after ``bound`` (``latest_game_date``)."""
    return gettext(
        "A game cannot be dated after %(bound)s (the end of next month): %(day)s is still to come."
    ) % {"bound": bound.isoformat(), "day": day.isoformat()}


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
    control = other = None
    if entry.time_control.strip():
        try:
            control, other = fide.parse_time_controls(entry.time_control)
        except ValueError as error:
            checked.add("time_control", rules_text(error))
    if control is not None and other is not None and other != control:
        # Odds: the list follows the slower side, the standard minimum the faster (1.1).
        control, other = sorted((control, other), key=lambda c: -c.minutes_for_60_moves)
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
        checked.add("rating_list", gettext(
            "A %(control)s game is a %(timed)s game (FIDE counts %(minutes)s minutes for 60 "
            "moves): it belongs to the %(timed)s list, not the %(chosen)s list."
        ) % {"control": control, "timed": timed, "minutes": control.minutes_for_60_moves,
             "chosen": chosen})  # fmt: skip
    elif unkept is not None:
        checked.add("rating_list", unkept)
    elif other is not None and other != control and chosen in (RatingList.RAPID, RatingList.BLITZ):
        white, black = fide.parse_time_controls(entry.time_control)
        checked.add("time_control", rules_text(fide.unequal_times_message(white, black)))
    elif chosen == RatingList.STANDARD and other is not None and game.white and game.black:
        needed, threshold = fide.standard_minutes_needed([game.white.rating, game.black.rating])
        if other.minutes_for_60_moves < needed:
            checked.add("time_control", too_fast_message(other, needed, threshold))
    game.rating_list = chosen
    game.time_control = _written(entry.time_control) if control is not None else ""


def _written(text: str) -> str:
    """A time control as stored: ``90+30``, or White's and Black's apart (``90+30/60+30``)."""
    white, black = fide.parse_time_controls(text)
    return str(white) if white == black else f"{white}/{black}"


def too_fast_message(control: fide.TimeControl, needed: int, threshold: int) -> str:
    """Say that a time control is too fast for the standard list at these players' ratings."""
    return gettext(
        "A %(control)s game is too fast for the standard list when a player is rated "
        "%(threshold)s or more: FIDE asks for %(needed)s minutes each for 60 moves, so it is "
        "rated on no list."
    ) % {"control": control, "threshold": threshold, "needed": needed}


# The fields ``full_clean`` checks on a game the validator built: the players are resolved
# objects already (their foreign-key check would read each again), and so is the tournament;
# the period follows the date.
GAME_FIELDS_CHECKED: list[Field] = [
    f
    for f in Game._meta.fields
    if f.editable and not f.primary_key and f.name not in ("white", "black", "tournament")
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
                gettext(
                    "No rating period holds %(day)s, and the lists after it are already "
                    "published; a game cannot be added before a published list."
                )
                % {"day": day.isoformat()},
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
            item.conflicts += 1
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
            taken.setdefault(
                (day, event, round_, player_id), gettext("in game #%(pk)s") % {"pk": pk}
            )
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
                else gettext("in another game of this batch")
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
    return gettext("Round %(round)s: %(name)s is paired twice (also %(where)s).") % {
        "round": round_,
        "name": name,
        "where": where,
    }


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
    return gettext(
        "This game is already recorded: %(white)s - %(black)s %(result)s on %(day)s (game #%(pk)s)."
    ) % {
        "white": white.name,
        "black": black.name,
        "result": result,
        "day": day.isoformat(),
        "pk": pk,
    }


def repeat_message(first: str) -> str:
    """Say that a game repeats an earlier one of its batch (``first``: how the door names it)."""
    first = first or gettext("another game of this batch")
    return gettext("This game repeats %(first)s.") % {"first": f"{first[:1].lower()}{first[1:]}"}


def ensure_event_new(event: str, days: Collection[date]) -> None:
    """Raise ``EventAlreadyImported`` when games of ``event`` on these days are recorded
    already (one query)."""
    if not days:
        return
    stored = Game.objects.filter(event=event, date__gte=min(days), date__lte=max(days))
    first = stored.order_by("created").values_list("created", flat=True).first()
    if first is not None:
        raise EventAlreadyImported(
            gettext(
                "This event was already imported on %(day)s at %(time)s: '%(event)s' has games "
                "from %(first)s to %(last)s in the ladder; nothing was imported. Delete its games "
                "first to import it again."
            )
            % {
                "day": f"{first:%Y-%m-%d}",
                "time": f"{first:%H:%M}",
                "event": event,
                "first": min(days),
                "last": max(days),
            }  # fmt: skip
        )


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
        one = checked[0]
        error_class = PeriodClosedError if one.closed else ValidationError
        if _only_conflicts(one):
            error_class = ConflictError
        raise error_class(one.problems)
    conflict = all(c.ok or _only_conflicts(c) for c in checked)
    sources = [c.entry.source for c in checked]
    raise GamesInvalid([c.problems for c in checked], sources, conflict=conflict)


def _only_conflicts(one: Checked) -> bool:
    """Whether every problem of a game is a conflict with what is recorded (a duplicate...)."""
    return bool(one.conflicts) and sum(map(len, one.problems.values())) == one.conflicts
