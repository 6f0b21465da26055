"""A tournament file's way into the ladder: match its players, build its games, say what it holds.

``prepare`` reads the club's players once and turns a parsed file (``ladder.files.trf`` or
``ladder.files.pgn``) into a ``TournamentImport``: who is matched (by FIDE id, then by exact name,
``Lastname, Firstname`` matching ``Firstname Lastname`` too), who is new, what conflicts, the
games as the write path takes them, and what the file holds that is no rated game. The write
itself is ``import_tournament``, through ``ladder.writes.actions.import_tournament``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext

from ladder.exceptions import (
    EventAlreadyImported,
    FileProblem,
    GamesInvalid,
    PlayersInvalid,
    TrfRefused,
    is_conflict,
)
from ladder.files import pgn, trf
from ladder.files.tournament_file import Entrant, Tournament, decode
from ladder.records import LIST_FIELDS, Game, Player, default_list, name_keys
from ladder.records import Tournament as TournamentRecord
from ladder.records.translations import rules_text
from ladder.writes import actions
from ladder.writes.validation import GameEntry, PlayerLookup, TournamentSpec
from ratings.recompute.states import rules
from ratings.rules import fide

# Where a new player's fields are on the 001 line, to point at a refused value.
_PLAYER_COLUMNS = {"name": 15, "fide_id": 58, "birth_year": 70, "federation": 54, "sex": 10,
                   "title": 11}  # fmt: skip


@dataclass
class Match:
    """A player of the file and the club's player it is (``new``: created by the import)."""

    entrant: Entrant
    player: Player
    how: str  # "FIDE id", "national id", "name" or "new"

    @property
    def new(self) -> bool:
        return self.how == "new"


@dataclass
class TournamentImport:
    """What importing a file does: the preview, and after the write the games it recorded."""

    tournament: Tournament
    event: str
    rating_list: str  # the list the games go on (the entry ratings of new players too)
    time_control: str
    given_list: str = ""
    matches: list[Match] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    entries: list[GameEntry] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)  # recorded (empty for a dry run)
    dry_run: bool = False

    @property
    def new_players(self) -> list[Player]:
        return [m.player for m in self.matches if m.new]

    def summary(self) -> dict[str, int]:
        kinds = [p.kind for p in self.tournament.pairings]
        return {
            "players": len(self.matches),
            "matched": sum(not m.new for m in self.matches),
            "new": sum(m.new for m in self.matches),
            "rated": kinds.count("rated"),
            "forfeits": kinds.count("forfeit"),
            "short": kinds.count("short"),
            "pending": kinds.count("pending"),
            "byes": sum(b.code != "" for b in self.tournament.byes),
        }

    def describe(self) -> list[str]:
        """The preview as lines of text (the command prints them)."""
        t, n = self.tournament, self.summary()
        days = sorted({e.date.isoformat() for e in self.entries if e.date})
        if len(days) > 1:
            dates = gettext("%(first)s to %(last)s") % {"first": days[0], "last": days[-1]}
        else:
            dates = "".join(days) or gettext("no games")
        control = f" ({self.time_control})" if self.time_control else ""
        lines = [
            gettext(
                "%(version)s file: '%(event)s', %(rounds)s rounds, %(dates)s, %(list)s "
                "list%(control)s."
            )
            % {
                "version": t.version,
                "event": self.event,
                "rounds": t.rounds,
                "dates": dates,
                "list": self.rating_list,
                "control": control,
            },
            gettext("Players: %(matched)s matched, %(new)s new.") % n,
        ]
        for match in self.matches:
            if match.new:
                rating = match.entrant.rating or gettext("unrated")
                k = self.starting_k(match.player)
                start = (
                    gettext(", starts at K %(k)s: %(reason)s")
                    % {"k": k.value, "reason": rules_text(k.reason)}
                    if k
                    else ""
                )
                lines.append(
                    "  "
                    + gettext("new: %(name)s (line %(line)s, %(rating)s%(start)s)")
                    % {
                        "name": match.player.name,
                        "line": match.entrant.line,
                        "rating": rating,
                        "start": start,
                    }
                )
            else:
                lines.append(
                    "  "
                    + gettext("matched by %(how)s: %(name)s -> %(player)s")
                    % {
                        "how": gettext(match.how),
                        "name": match.entrant.name,
                        "player": match.player,
                    }
                )
        short = sum(p.kind == "short" and bool(p.result) for p in t.pairings)
        unplayed = gettext("%(count)s forfeits") % {"count": n["forfeits"]}
        if short:
            unplayed += ngettext(
                ", %(count)s game of less than one move",
                ", %(count)s games of less than one move",
                short,
            ) % {"count": short}
        lines.append(
            gettext("Games: %(rated)s rated, %(unplayed)s (recorded, unrated).")
            % {"rated": n["rated"], "unplayed": unplayed}
        )
        lines += ["  " + gettext("not recorded: %(what)s") % {"what": text}
                  for text in self.not_recorded()]  # fmt: skip
        lines += [gettext("Note: %(note)s") % {"note": note} for note in t.notes]
        return lines

    def starting_k(self, player: Player) -> fide.KFactor | None:
        """The K a new player starts with on the plan's list (8.3.3: K 40 until 30 rated games),
        from the entry data the import gives them; None for an unrated one."""
        fields = LIST_FIELDS[self.rating_list]
        rating = getattr(player, fields.entry_rating)
        if rating is None:
            return None
        days = [e.date for e in self.entries if e.date]
        return fide.k_factor(
            peak_rating=getattr(player, fields.entry_peak_rating) or rating,
            rated_games=getattr(player, fields.entry_rated_games) or 0,
            birth_year=player.birth_year,
            year=min(days).year if days else timezone.localdate().year,
            club_k=rules().club_k,
        )

    def not_recorded(self) -> list[str]:
        """What the file holds that is no game of the ladder: draws of less than one move,
        pending pairings, byes (a blank round of a player who was not paired is not listed)."""
        short = gettext("round %(round)s: %(white)s - %(black)s (a draw of less than one move)")
        pending = gettext("round %(round)s: %(white)s - %(black)s (no result yet)")
        items = [
            (short if p.kind == "short" else pending)
            % {"round": p.round, "white": p.white.name, "black": p.black.name}
            for p in self.tournament.pairings
            if p.kind in ("short", "pending") and not p.result
        ]
        items += [
            gettext("round %(round)s: %(name)s, %(bye)s")
            % {"round": b.round, "name": b.entrant.name, "bye": b.label}
            for b in self.tournament.byes
            if b.code != ""
        ]
        return items


def prepare(
    tournament: Tournament,
    *,
    event: str = "",
    day: date | None = None,
    rating_list: str = "",
    time_control: str = "",
    rated_in: str = "",
    file_name: str = "",
) -> TournamentImport:
    """Match the file's players and build its games; conflicts and missing data are
    ``problems`` (the write refuses them). Reads the club's players once.

    The games are entered in the file's tournament: its name, its first and last day (042 and
    052, else its games' dates) and, for a late report, ``rated_in`` (a period's label)."""
    control = time_control or _time_control(tournament)
    plan = TournamentImport(
        tournament,
        event=(event or tournament.name).strip(),
        rating_list=_list(rating_list, control),
        time_control=control,
        given_list=rating_list,
    )
    if not plan.event:
        plan.problems.append(
            FileProblem(1, 0, gettext("The file names no event (line 012); give its name."))
        )
    elif tournament.other_events and not event:
        name, line = tournament.other_events[0]
        plan.problems.append(
            FileProblem(
                line,
                0,
                gettext(
                    "The file holds games of several events ('%(first)s', '%(second)s', ...); "
                    "import one event at a time, or give one event name for all."
                )
                % {"first": tournament.name, "second": name},
            )
        )
    _match(plan, PlayerLookup.load())
    by_rank = {m.entrant.rank: m.player for m in plan.matches}
    for pairing in tournament.pairings:
        if not pairing.result or not {pairing.white.rank, pairing.black.rank} <= by_rank.keys():
            continue  # no game, or a player in conflict (refused already)
        when = pairing.date or tournament.round_date(pairing.round, day)
        if when is None:
            plan.problems.append(
                FileProblem(
                    pairing.line,
                    pairing.column,
                    (
                        gettext("Round %(round)s has no date: the file gives none; give one.")
                        % {"round": pairing.round}
                        if pairing.round
                        else gettext("This game has no date: the file gives none; give one.")
                    ),
                )
            )
        plan.entries.append(
            GameEntry(
                date=when,
                white=by_rank[pairing.white.rank],
                black=by_rank[pairing.black.rank],
                result=pairing.result,
                event=plan.event,
                round=str(pairing.round) if pairing.round else "",
                rating_list=rating_list,
                time_control=control,
                source=f"line {pairing.line}"
                + (f", column {pairing.column}" if pairing.column else ""),
            )
        )
    _name_tournament(plan, rated_in=rated_in, file_name=file_name)
    return plan


def _name_tournament(plan: TournamentImport, *, rated_in: str, file_name: str) -> None:
    """Enter every game of the file in its tournament (FIDE.md 10.1): the file's dates, else
    its games' first and last."""
    days = [entry.date for entry in plan.entries if entry.date is not None]
    start = plan.tournament.start or min(days, default=None)
    end = plan.tournament.end or max(days, default=None)
    if start is None or end is None or not plan.event:
        return
    start, end = min([start, *days]), max([end, *days])  # a file's dates may be too narrow
    origin = (
        TournamentRecord.Origin.PGN
        if plan.tournament.version == "PGN"
        else (TournamentRecord.Origin.TRF)
    )
    spec = TournamentSpec(plan.event, start, end, rated_in, origin, file_name)
    for entry in plan.entries:
        entry.tournament = spec


def _where(line: int, column: int) -> str:
    """How messages name a game of the file ("line 12, column 92"; a PGN's: "line 12")."""
    return f"line {line}" + (f", column {column}" if column else "")


def _time_control(tournament: Tournament) -> str:
    """The time control as the club writes it (90+30), from line 222 (seconds) or 122 (the
    minutes of every period added up, as 222's seconds are)."""
    encoded = tournament.encoded_time_control.replace(" ", "")
    periods = re.findall(r"(?:\d+/)?(\d+)(?:\+(\d+))?", encoded) if encoded[:1].isdigit() else []
    if periods:
        seconds = sum(int(s) for s, _ in periods)
        return f"{round(seconds / 60)}+{int(periods[0][1] or 0)}"
    minutes = re.findall(r"(\d+)\s*(?:min\w*|'(?!'))", tournament.time_control)
    if len(minutes) > 1:  # periods, as Swiss-Manager writes: "90 min/40 moves + 30 min + 30 sec"
        increment = re.search(r"(\d+)\s*(?:sec\w*|s\b|\"|'')", tournament.time_control)
        return f"{sum(int(m) for m in minutes)}+{increment.group(1) if increment else 0}"
    match = re.search(r"(\d+)\s*(?:min\w*|'|m)?\s*\+\s*(\d+)", tournament.time_control)
    if match is not None:
        return f"{match.group(1)}+{match.group(2)}"
    match = re.fullmatch(r"\s*(\d+)\s*(?:min\w*|'|m)?\s*", tournament.time_control)
    if match is not None:  # "90 min": no increment
        return f"{match.group(1)}+0"
    if tournament.time_control:
        tournament.notes.append(
            gettext(
                "The time control '%(control)s' (line 122) is not understood; give the list or "
                "the time control."
            )
            % {"control": tournament.time_control}
        )
    return ""


def _list(given: str, control: str) -> str:
    if given:
        return given.strip().lower()
    try:
        return fide.list_of(fide.parse_time_control(control)) if control else default_list()
    except ValueError:
        return default_list()


def _match(plan: TournamentImport, lookup: PlayerLookup) -> None:
    taken: dict[int, Entrant] = {}  # club player pk -> the line matched to them
    fide_ids: dict[int, Entrant] = {}
    for entrant in plan.tournament.entrants:
        found = len(plan.problems)
        if entrant.fide_id is not None and entrant.fide_id in fide_ids:
            plan.problems.append(
                FileProblem(
                    entrant.line,
                    58,
                    gettext("The FIDE id %(fide_id)s is also on line %(line)s.")
                    % {"fide_id": entrant.fide_id, "line": fide_ids[entrant.fide_id].line},
                )
            )
        fide_ids.setdefault(entrant.fide_id or 0, entrant)
        checked = len(plan.problems)
        match = _find(entrant, lookup, plan)
        # What _find finds is a disagreement with the ladder's records, not with the file.
        plan.problems[checked:] = [replace(p, conflict=True) for p in plan.problems[checked:]]
        if len(plan.problems) > found or match is None:
            continue
        if match.player.pk is not None:
            if match.player.pk in taken:
                first = taken[match.player.pk].line
                plan.problems.append(
                    FileProblem(
                        entrant.line,
                        15,
                        gettext("Lines %(first)s and %(second)s are both %(player)s.")
                        % {"first": first, "second": entrant.line, "player": match.player},
                    )
                )
                continue
            taken[match.player.pk] = entrant
        plan.matches.append(match)


def _find(entrant: Entrant, lookup: PlayerLookup, plan: TournamentImport) -> Match | None:
    keys = name_keys(entrant.name)
    named = {p.pk: p for key in keys for p in lookup.by_name.get(key, [])}
    if entrant.fide_id is not None and entrant.fide_id in lookup.by_fide_id:
        player = lookup.by_fide_id[entrant.fide_id]
        if not name_keys(player.name) & keys:
            plan.problems.append(
                FileProblem(
                    entrant.line,
                    58,
                    gettext(
                        "The FIDE id %(fide_id)s is '%(player)s' in the ladder, but the file "
                        "names '%(name)s'."
                    )
                    % {"fide_id": entrant.fide_id, "player": player.name, "name": entrant.name},
                )
            )
            return None
        return Match(entrant, player, gettext_noop("FIDE id"))
    national = (entrant.national_federation, entrant.national_id.casefold())
    if entrant.national_id and national in lookup.by_national:
        player = lookup.by_national[national]
        if player.fide_id and entrant.fide_id and player.fide_id != entrant.fide_id:
            plan.problems.append(
                FileProblem(
                    entrant.line,
                    58,
                    gettext(
                        "The national id %(national)s is '%(player)s' in the ladder, whose FIDE "
                        "id is not %(fide_id)s."
                    )
                    % {
                        "national": f"{entrant.national_federation}:{entrant.national_id}",
                        "player": player,
                        "fide_id": entrant.fide_id,
                    },
                )
            )
            return None
        return Match(entrant, player, gettext_noop("national id"))
    if len(named) > 1:
        plan.problems.append(
            FileProblem(
                entrant.line,
                15,
                (
                    gettext(
                        "%(count)s players of the ladder are named '%(name)s'; give the right "
                        "one the FIDE id %(fide_id)s in the ladder first."
                    )
                    if entrant.fide_id
                    else gettext(
                        "%(count)s players of the ladder are named '%(name)s'; add the FIDE id "
                        "to the file."
                    )
                )
                % {"count": len(named), "name": entrant.display_name, "fide_id": entrant.fide_id},
            )
        )
        return None
    if named:
        (player,) = named.values()
        if player.fide_id and entrant.fide_id and player.fide_id != entrant.fide_id:
            plan.problems.append(
                FileProblem(
                    entrant.line,
                    58,
                    gettext(
                        "'%(name)s' has the FIDE id %(fide_id)s in the ladder, but the file "
                        "gives %(given)s."
                    )
                    % {"name": player.name, "fide_id": player.fide_id, "given": entrant.fide_id},
                )
            )
            return None
        return Match(entrant, player, gettext_noop("name"))
    return Match(entrant, _new_player(entrant, plan), "new")


def _new_player(entrant: Entrant, plan: TournamentImport) -> Player:
    fields = LIST_FIELDS.get(plan.rating_list)
    player = Player(
        name=entrant.display_name,
        fide_id=entrant.fide_id,
        sex=entrant.sex,
        title=entrant.title,
        federation=entrant.federation,
        birth_year=entrant.birth_year,
        national_federation=entrant.national_federation,
        national_id=entrant.national_id,
    )
    if fields is not None:
        setattr(player, fields.entry_rating, entrant.rating)
    player.start_from_entry()  # its state in the preview; the write path checks it
    return player


def import_tournament(
    plan: TournamentImport, *, user: Any = None, dry_run: bool = False
) -> TournamentImport:
    """Import a prepared file whole or not at all through ``actions.import_tournament``: its
    new players, then its games (one transaction, one rating run a list). ``dry_run`` does all
    of it and rolls it back: an exact preview.

    Raise ``TrfRefused`` naming every problem by line and column; an event already in the
    ladder is refused, never recorded twice.
    """
    if plan.problems:
        raise TrfRefused(plan.problems, conflict=all(p.conflict for p in plan.problems))
    new = [m for m in plan.matches if m.new]
    try:
        plan.games = actions.import_tournament(
            event=plan.event,
            players=[m.player for m in new],
            games=plan.entries,
            user=user,
            dry_run=dry_run,
            sources=[f"line {m.entrant.line}" for m in new],
        )
    except EventAlreadyImported as error:
        problems = [FileProblem(1, 0, message) for message in error.messages]
        raise TrfRefused(problems, conflict=True) from error
    except PlayersInvalid as error:
        raise TrfRefused(_player_problems(error, new)) from error
    except ValidationError as error:
        raise refusal(error, plan) from error
    plan.dry_run = dry_run
    return plan


def _player_problems(error: PlayersInvalid, new: list[Match]) -> list[FileProblem]:
    """The write path's refusal of new players, at their lines and the columns of their fields."""
    return [
        FileProblem(match.entrant.line, 49 if "rating" in name else _PLAYER_COLUMNS.get(name, 0),
                    message)
        for match, found in zip(new, error.problems, strict=True)
        for name, messages in found.items()
        for message in messages
    ]  # fmt: skip


def refusal(error: ValidationError, plan: TournamentImport) -> TrfRefused:
    """Turn the write path's refusal of the games into problems by line and column."""
    if isinstance(error, GamesInvalid):
        found = error.problems
    else:
        found = [error.message_dict if hasattr(error, "error_dict") else {"": error.messages}]
        found += [{}] * (len(plan.entries) - 1)
    problems = []
    for entry, by_field in zip(plan.entries, found, strict=True):
        line, column = (int(n) for n in (re.findall(r"\d+", entry.source) + ["0", "0"])[:2])
        for name, messages in by_field.items():
            where = gettext("Round %(round)s: ") % {"round": entry.round} if entry.round else ""
            for message in messages:
                text = message if name in (NON_FIELD_ERRORS, "", "date") else f"{name}: {message}"
                if name == "round":  # the round's own rule names the round itself
                    where, text = "", message
                problems.append(FileProblem(line, column, where + text))
    conflict = is_conflict(error)  # every game recorded already, say: 409 at the API
    return TrfRefused(list(dict.fromkeys(problems)), conflict=conflict)


def read(data: bytes, **options: object) -> TournamentImport:
    """Read an uploaded tournament file (TRF; PGN when it starts with a tag pair) and prepare
    its import; raise ``TrfRefused`` when the file itself is refused. ``options`` are
    ``prepare``'s."""
    text, note = decode(data)
    reader = pgn.parse if text.lstrip("\ufeff \r\n\t").startswith("[") else trf.parse
    return prepare(reader(text, encoding_note=note), **options)  # type: ignore[arg-type]
