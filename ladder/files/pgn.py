"""Read the games of a PGN file from their tag pairs only: pure, no database.

The moves are not needed: a game's Event, Date, Round, White, Black and Result (with
WhiteFideId / BlackFideId, WhiteElo / BlackElo and TimeControl when present) say all the ladder
records. A tag pair is ``[Name "value"]`` (PGN standard 8.1: a symbol, then a string with ``\\"``
and ``\\\\`` escaped); everything else is movetext and skipped, brace comments included. This
is a tag grammar, not a chess library: python-chess is GPL-3 and would bind the whole project.

``parse`` returns the same ``Tournament`` a TRF gives, so a PGN goes through the same
matching, preview, refusals and duplicate rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ladder.exceptions import FileProblem, TrfRefused
from ladder.files.tournament_file import Entrant, Pairing, Tournament
from ladder.records import name_key, read_fide_id

TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
RESULTS = {"1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "="), "*": ("", "")}


@dataclass
class Game:
    line: int  # where its tags start
    tags: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # tag -> its line


def read_games(text: str) -> tuple[list[Game], list[FileProblem]]:
    """Split a PGN into its games' tag sections; note tag lines that do not parse."""
    games: list[Game] = []
    problems: list[FileProblem] = []
    in_moves, depth = True, 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if depth == 0 and line.startswith("["):
            if in_moves:
                games.append(Game(number))
                in_moves = False
            position = 0
            while position < len(line):
                match = TAG.match(line, position)
                if match is None:
                    problems.append(
                        FileProblem(
                            number, position + 1, 'This is not a tag pair; write [Name "value"].'
                        )
                    )
                    break
                name, value = match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))
                games[-1].tags.setdefault(name, value.strip())
                games[-1].lines.setdefault(name, number)
                position = match.end()
                while position < len(line) and line[position] == " ":
                    position += 1
        elif line and not line.startswith("%"):
            in_moves = True
            depth = max(0, depth + line.count("{") - line.count("}"))
    return games, problems


def pgn_date(text: str) -> date | None:
    """A PGN date (``2026.03.07``); None when a part is unknown (``????.??.??``)."""
    match = re.fullmatch(r"(\d{4})\.(\d{2})\.(\d{2})", text)
    if match is None:
        if "?" in text:
            return None
        raise ValueError(gettext("'%(text)s' is not a date (write YYYY.MM.DD).") % {"text": text})
    try:
        return date(*(int(g) for g in match.groups()))
    except ValueError:
        raise ValueError(
            gettext("'%(text)s' is not a date (write YYYY.MM.DD).") % {"text": text}
        ) from None


def parse(text: str, *, encoding_note: str = "") -> Tournament:
    """Read a PGN's games from their tags; raise ``TrfRefused`` with every problem found."""
    games, problems = read_games(text)
    if problems:  # the tags themselves are broken: what follows from them would mislead
        raise TrfRefused(problems)
    tournament = Tournament(version="PGN", notes=[encoding_note] if encoding_note else [])
    if not games and not problems:
        problems.append(
            FileProblem(1, 0, gettext("The file holds no game (no tag pair); is it a PGN?"))
        )
    players: dict[tuple[str, str], Entrant] = {}
    events: dict[str, int] = {}
    for game in games:
        event = game.tags.get("Event", "").strip()
        if event not in ("", "?"):
            events.setdefault(event, game.lines["Event"])
        pairing = _pairing(game, players, problems)
        if pairing is not None:
            tournament.pairings.append(pairing)
        control = game.tags.get("TimeControl", "")
        if control and not tournament.encoded_time_control and control[:1].isdigit():
            tournament.encoded_time_control = control  # seconds, as TRF-2026's line 222
    tournament.entrants = list({id(e): e for e in players.values()}.values())
    tournament.name = next(iter(events), "")
    tournament.other_events = list(events.items())[1:]
    if problems:
        raise TrfRefused(problems)
    tournament.rounds = max((p.round for p in tournament.pairings), default=0)
    dates = [p.date for p in tournament.pairings if p.date is not None]
    tournament.start, tournament.end = (min(dates), max(dates)) if dates else (None, None)
    return tournament


def _pairing(game: Game, players: dict, problems: list[FileProblem]) -> Pairing | None:
    found = len(problems)
    white = _player(game, "White", players, problems)
    black = _player(game, "Black", players, problems)
    result = game.tags.get("Result", "")
    if result not in RESULTS:
        problems.append(
            FileProblem(
                game.lines.get("Result", game.line),
                0,
                gettext("'%(result)s' is not a result (1-0, 0-1, 1/2-1/2 or *).")
                % {"result": result},
            )
        )
    try:
        day = pgn_date(game.tags.get("Date", "????.??.??"))
    except ValueError as error:
        problems.append(FileProblem(game.lines["Date"], 0, str(error)))
        day = None
    round_text = game.tags.get("Round", "").split(".")[0]
    if len(problems) > found or white is None or black is None:
        return None
    codes = RESULTS[result]
    number = int(round_text) if round_text.isdigit() else 0
    return Pairing(number, white, black, codes[0], codes[1], game.line, 0, date=day)


def _player(game: Game, colour: str, players: dict, problems: list[FileProblem]) -> Entrant | None:
    name = " ".join(game.tags.get(colour, "").split())
    line = game.lines.get(colour, game.line)
    if name in ("", "?"):
        said = (
            gettext("The game has no White player (tag White).")
            if colour == "White"
            else gettext("The game has no Black player (tag Black).")
        )
        problems.append(FileProblem(line, 0, said))
        return None
    fide_text = game.tags.get(f"{colour}FideId", "").strip()
    elo = game.tags.get(f"{colour}Elo", "").strip()
    fide_id = None
    if fide_text not in ("-", "?"):
        try:
            fide_id = read_fide_id(fide_text) or None  # 0: none
        except ValidationError as error:
            line_of_tag = game.lines[f"{colour}FideId"]
            problems += [FileProblem(line_of_tag, 0, message) for message in error.messages]
    # One entrant a player: the same FIDE id, or the same name (with no other FIDE id).
    by_name = players.get(("name", name_key(name)))
    entrant = players.get(("id", fide_id)) if fide_id else None
    if entrant is None and by_name is not None and by_name.fide_id in (None, fide_id):
        entrant = by_name
    if entrant is None:
        entrant = Entrant(line, len({id(e) for e in players.values()}) + 1, name=name)
    if fide_id and entrant.fide_id is None:
        entrant.fide_id = fide_id
    if elo.isdigit() and int(elo) and entrant.rating is None:
        entrant.rating = int(elo)
    players.setdefault(("name", name_key(name)), entrant)
    if entrant.fide_id:
        players.setdefault(("id", entrant.fide_id), entrant)
    return entrant
