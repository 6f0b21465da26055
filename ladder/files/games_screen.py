"""Screen a games CSV for everything the validator refuses, in one streaming pass.

``validation.check_games`` builds a Game per row and checks it whole: right for a round of
games, minutes for a file of a million. The screen reads the file row by row and builds
nothing per row: each distinct date, player, result, event and list is checked once, through
the validator's own functions, and a row that is not plainly good gets exactly the problems
``check_games`` would give it, in the same order and stages (dates that are no dates; then, in a
file of more than ``validation.QUICK_FIRST`` games, the players and results alone; then
everything, duplicates included). tests/ladder/test_games_screen.py holds the two equal.

Reads: the players (one query, four columns), the periods (one) and the games that could be
duplicates (one), whatever the file's size. Memory: one small integer key per good row for
the duplicates within the file; the rows themselves are not kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from operator import itemgetter
from types import SimpleNamespace
from typing import Any, TextIO

from django.db.models import Field

from ladder.exceptions import FileProblem, ImportFailed
from ladder.files import csv_rows as importers
from ladder.files.csv_rows import GAME_COLUMNS
from ladder.records import Game, Player, RatingList
from ladder.writes.validation import (
    GAME_FIELDS_CHECKED,
    QUICK_FIRST,
    Checked,
    GameEntry,
    Periods,
    PlayerLookup,
    check_date,
    check_list,
    clean_problems,
    field_problems,
    recorded_like,
    recorded_message,
    repeat_message,
    typed,
)
from ratings.recompute import bulk
from ratings.rules import fide

_REQUIRED = {"date", "white", "black", "result"}
# The columns that make a row's context: rows alike in them are checked once for them.
_CONTEXT = ("date", "result", "event", "list", "time_control")
_LISTS = {name: index for index, name in enumerate(RatingList.values)}
_ROUND_LENGTH = Game._meta.get_field("round").max_length or 0
_BLANK = GameEntry(date=None, white="", black="", result="")
Problems = list[tuple[str, str]]  # (field, message), in the order the validator adds them


def screen_games(file: TextIO) -> None:
    """Raise ``ImportFailed`` with the problems ``check_games`` would find in this games file
    (the same lines, columns and sentences), else return with the file rewound."""
    start = file.tell()
    header, rows = importers.table(file, GAME_COLUMNS, _REQUIRED)
    if "tournament" in header:
        # A game's tournament chooses its period (a late report's lies after its date): such
        # a file is left to the validator itself, which knows tournaments.
        file.seek(start)
        return
    screen = _Screen(header)
    with bulk.gc_paused():  # a million short-lived lists, no cycles
        screen.read(rows)
    file.seek(start)
    screen.raise_problems()


@dataclass
class _ListOutcome:
    chosen: str
    time_control: str
    problems: Problems


@dataclass
class _Screen:
    header: list[str]
    lookup: PlayerLookup = field(init=False)
    periods: Periods = field(init=False)
    rows: int = 0
    not_dates: list[FileProblem] = field(default_factory=list)
    typed: list[FileProblem] = field(default_factory=list)
    full: list[FileProblem] = field(default_factory=list)
    # Every good row's duplicate key -> its line; rows repeating one: (line, key).
    keys: dict[int, int] = field(default_factory=dict)
    repeats: list[tuple[int, int]] = field(default_factory=list)
    # The players' texts found without a problem (-> the player's id), the plain contexts
    # (date, result, event, list, time control -> the key's part for them, None: not plain).
    found: dict[str, int] = field(default_factory=dict)
    contexts: dict[tuple[str, ...], int | None] = field(default_factory=dict)
    # Contexts plain but for a time control, which the players' ratings may find too fast.
    timed: dict[tuple[str, ...], int] = field(default_factory=dict)
    # What each distinct text (or date) was found to be, and what is wrong with it.
    days: dict[str, date | None] = field(default_factory=dict)
    players: dict[tuple[str, str], tuple[Player | None, str | None]] = field(default_factory=dict)
    results: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    lists: dict[tuple[str, str, Any], _ListOutcome] = field(default_factory=dict)
    fields: dict[tuple[str, Any], list[str]] = field(default_factory=dict)
    dates: dict[date, Problems] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.at = {
            name: self.header.index(name) if name in self.header else None for name in GAME_COLUMNS
        }
        self.lookup = PlayerLookup.load(light=True)
        self.by_pk = {player.pk: player for player in self.lookup.players}
        self.periods = Periods()
        self.self_play = clean_problems(Game(white_id=1, black_id=1))

    def read(self, rows: Iterator[tuple[int, list[str]]]) -> None:
        """Check every row: the usual one (good players, a plain context, a short round) here
        in a few dictionary reads, any other by ``row``."""
        at = self.at
        context_of = itemgetter(*(at[n] for n in _CONTEXT if at[n] is not None))
        white_at, black_at = self.header.index("white"), self.header.index("black")
        round_at = at["round"]
        contexts, found, keys, repeats = self.contexts, self.found, self.keys, self.repeats
        not_dates, plain = self.not_dates, 0
        for line, values in rows:
            texts = context_of(values)
            base = contexts.get(texts, _UNSEEN)
            if base == _UNSEEN:
                base = self.plain_context(texts, values)
            white, black = found.get(values[white_at]), found.get(values[black_at])
            if white is None or black is None:  # a player's first row: find them
                self.player("white", values[white_at])
                self.player("black", values[black_at])
                white, black = found.get(values[white_at]), found.get(values[black_at])
            if base is None and texts in self.timed and white is not None and black is not None:
                players = self.by_pk[white], self.by_pk[black]
                if not self.list_of(values, *players).problems:
                    base = self.timed[texts]
            round_ = "" if round_at is None else values[round_at]
            if (
                base is None or white is None or black is None or white == black
                or not (len(round_) <= _ROUND_LENGTH and round_.isascii() and round_.isprintable())
            ):  # fmt: skip
                self.row(line, values)
                continue
            plain += 1
            if not_dates:
                continue  # only the dates are reported
            key = _key(round_, base, white, black)
            if keys.setdefault(key, line) != line:
                repeats.append((line, key))
        self.rows += plain

    def plain_context(self, texts: tuple[str, ...], values: list[str]) -> int | None:
        """Return the key's part for the date and list of rows with these texts (date, result,
        event, list, time control) when nothing is wrong with them and no time control asks
        for the players' ratings; else None (and, when only the ratings are left to ask, keep
        the part in ``timed``)."""
        day = importers.parse_date(self.text(values, "date"))
        result, problem = self.result(self.text(values, "result"))
        outcome = self.list_of(values, None, None)
        model = {"date": day, "result": result, "event": self.text(values, "event"), "round": "",
                 "rating_list": outcome.chosen, "time_control": outcome.time_control}  # fmt: skip
        plain = (
            day is not None and problem is None and not outcome.problems
            and not self.dated(day)
            and not any(self.field_messages(f, model[f.name]) for f in GAME_FIELDS_CHECKED)
        )  # fmt: skip
        self.contexts[texts] = None
        if plain and day is not None:
            if self.text(values, "time_control"):
                self.timed[texts] = _base(day, outcome.chosen)
            else:
                self.contexts[texts] = _base(day, outcome.chosen)
        return self.contexts[texts]

    def text(self, values: list[str], name: str) -> str:
        index = self.at[name]
        return "" if index is None else values[index]

    def row(self, line: int, values: list[str]) -> None:
        """Check one row; keep its problems (as FileProblems) or its duplicate key."""
        self.rows += 1
        written = self.text(values, "date")
        if written not in self.days:
            self.days[written] = importers.parse_date(written)
        day = self.days[written]
        if day is None:
            self.not_dates.append(FileProblem(line, "date", importers.date_problem(written)))
            return
        if self.not_dates:
            return  # only the dates are reported
        white, white_problem = self.player("white", self.text(values, "white"))
        black, black_problem = self.player("black", self.text(values, "black"))
        result, result_problem = self.result(self.text(values, "result"))
        typed = [("white", white_problem), ("black", black_problem), ("result", result_problem)]
        for name, problem in typed:
            if problem is not None:
                self.typed.append(FileProblem(line, name, problem))
        outcome = self.list_of(values, white, black)
        event, round_ = self.text(values, "event"), self.text(values, "round")
        model = {
            "date": day,
            "result": result,
            "event": event,
            "round": round_,
            "rating_list": outcome.chosen,
            "time_control": outcome.time_control,
        }
        plain = (
            white_problem is None
            and black_problem is None
            and result_problem is None
            and white is not black
            and not outcome.problems
            and not self.dated(day)
            and not any(self.field_messages(f, model[f.name]) for f in GAME_FIELDS_CHECKED)
        )
        if plain and white is not None and black is not None:
            key = _key(round_, _base(day, outcome.chosen), white.pk, black.pk)
            if self.keys.setdefault(key, line) != line:
                self.repeats.append((line, key))
        else:
            problems = self.compose(typed, white, black, outcome, model, day)
            columns = importers.GAME_FIELD_COLUMNS
            self.full += [
                FileProblem(line, columns.get(name, name), message)
                for name, messages in problems.items()
                for message in messages
            ]

    def compose(
        self,
        typed: list[tuple[str, str | None]],
        white: Player | None,
        black: Player | None,
        outcome: _ListOutcome,
        model: dict[str, Any],
        day: date,
    ) -> dict[str, list[str]]:
        """The problems of a row in the order ``validation.check_games`` finds them."""
        checked = Checked(_BLANK)
        for name, problem in typed:
            if problem is not None:
                checked.add(name, problem)
        for name, message in outcome.problems:
            checked.add(name, message)
        found = set(checked.problems)  # full_clean skips a field already refused
        for model_field in GAME_FIELDS_CHECKED:
            if model_field.name not in found:
                for message in self.field_messages(model_field, model[model_field.name]):
                    checked.add(model_field.name, message)
        if white is not None and white is black:
            for name, message in self.self_play:
                checked.add(name, message)
        if "date" not in checked.problems:
            for name, message in self.dated(day):
                checked.add(name, message)
        return checked.problems

    def player(self, colour: str, text: str) -> tuple[Player | None, str | None]:
        if (colour, text) not in self.players:
            found, problem = typed(colour, text, self.lookup)
            self.players[colour, text] = (found, problem)
            if found is not None:
                self.found[text] = found.pk
        return self.players[colour, text]

    def result(self, text: str) -> tuple[str, str | None]:
        if text not in self.results:
            result, problem = typed("result", text, self.lookup)
            self.results[text] = (text if problem else result, problem)
        return self.results[text]

    def list_of(
        self, values: list[str], white: Player | None, black: Player | None
    ) -> _ListOutcome:
        """The list and time control ``validation.check_list`` gives the row, and its problems; the
        players' ratings matter only through the minutes a standard game needs."""
        given, control_text = self.text(values, "list"), self.text(values, "time_control")
        needs = None
        if control_text.strip() and white is not None and black is not None:
            needs = fide.standard_minutes_needed([white.rating, black.rating])
        key = (given, control_text, needs)
        if key not in self.lists:
            entry = GameEntry(
                date=None,
                white="",
                black="",
                result="",
                rating_list=given,
                time_control=control_text,
            )
            game = SimpleNamespace(
                white=white if needs else None,
                black=black if needs else None,
                rating_list=Game._meta.get_field("rating_list").get_default(),
                time_control="",
            )
            checked = Checked(_BLANK)
            check_list(entry, game, checked)  # type: ignore[arg-type]
            problems = [(n, m) for n, ms in checked.problems.items() for m in ms]
            self.lists[key] = _ListOutcome(game.rating_list, game.time_control, problems)
        return self.lists[key]

    def field_messages(self, model_field: Field, value: Any) -> list[str]:
        """What ``full_clean`` says about this value of the field (nothing when blank)."""
        if model_field.blank and value in model_field.empty_values:
            return []
        if model_field.name == "round":
            # A short text of printable ASCII passes the round's validators (its length, no
            # control character); the million rounds of a file are not each kept.
            if len(value) <= _ROUND_LENGTH and value.isascii() and value.isprintable():
                return []
            return field_problems(model_field, value)
        key = (model_field.name, value)
        if key not in self.fields:
            self.fields[key] = field_problems(model_field, value)
        return self.fields[key]

    def dated(self, day: date) -> Problems:
        """Why a game cannot be dated ``day`` (still to come, a closed period, ...)."""
        if day not in self.dates:
            checked = Checked(_BLANK)
            check_date(day, self.periods, checked)
            self.dates[day] = [(n, m) for n, ms in checked.problems.items() for m in ms]
        return self.dates[day]

    def raise_problems(self) -> None:
        """Raise what ``check_games`` would raise, stage by stage; return when all is good."""
        if self.not_dates:
            raise ImportFailed(self.not_dates)
        if self.rows > QUICK_FIRST and self.typed:
            raise ImportFailed(self.typed)
        duplicates = self.duplicates()
        if self.full or duplicates:
            raise ImportFailed(sorted(self.full + duplicates, key=lambda e: e.line))

    def duplicates(self) -> list[FileProblem]:
        """The good rows already recorded, or repeating an earlier good row (one query)."""
        if not self.keys:
            return []
        existing: dict[int, tuple[int, str, date, int, int]] = {}
        for pk, day, white, black, round_, rating_list, result in recorded_like(
            days={_day(key) for key in self.keys},
            white_ids={key >> 64 & _ID for key in self.keys},
            black_ids={key & _ID for key in self.keys},
            count=len(self.keys),
        ):
            key = _key(round_, _base(day, rating_list), white, black)
            if key in self.keys:
                existing[key] = (pk, result, day, white, black)
        lines = [(line, key) for key, line in self.keys.items() if key in existing]
        problems: list[tuple[int, int, int | None]] = [
            (line, key, None) for line, key in lines + self.repeats if key in existing
        ]
        problems += [
            (line, key, self.keys[key]) for line, key in self.repeats if key not in existing
        ]
        return [
            FileProblem(line, "", self.duplicate(key, first, existing))
            for line, key, first in problems
        ]

    def duplicate(self, key: int, first: int | None, existing: dict) -> str:
        if first is not None:
            return repeat_message(f"line {first}")
        pk, result, day, white, black = existing[key]
        return recorded_message(self.by_pk[white], self.by_pk[black], result, day, pk)


_ID = (1 << 64) - 1  # a player's id in a key
_UNSEEN = -1  # a context not checked yet (a key's part is never negative)


def _base(day: date, rating_list: str) -> int:
    """The part of a game's key for its day and list (see ``_key``)."""
    return _LISTS.get(rating_list, 3) << 21 | day.toordinal()


def _key(round_: str, base: int, white: int, black: int) -> int:
    """One integer for what makes two games the same game (``validation.recorded_like``):
    the round's text, the list and the day (``_base``), the players' ids."""
    written = round_.encode()
    key = (int.from_bytes(written, "big") << 8 | len(written)) << 23 | base
    return (key << 64 | white) << 64 | black


def _day(key: int) -> date:
    return date.fromordinal((key >> 128) & ((1 << 21) - 1))
