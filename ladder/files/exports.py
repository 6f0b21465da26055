"""Files out of the ladder: an event as a TRF-16, and CSV files people ask for.

Readers only: a fixed number of queries whatever the size, nothing written.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext

from ladder.files import tournament_file as tf
from ladder.files.cells import FORMULA_PREFIXES, neutralise
from ladder.records import Game, Player, RatingList, RatingPeriod
from ratings.publication import official
from ratings.selectors import player_history, rating_list

# A game's result as each side's TRF code (White's, Black's).
_CODES = {"1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "="), "+/-": ("+", "-"),
          "-/+": ("-", "+"), "0-0": ("-", "-")}  # fmt: skip
_POINTS = {"1": Decimal(1), "=": Decimal("0.5"), "+": Decimal(1)}


def filename(text: str) -> str:
    """A file name made of the text's letters and digits."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "event"


def trf_name(name: str) -> str:
    """The TRF's ``Lastname, Firstname`` of a club name (``Firstname Lastname``)."""
    if "," in name:
        return name
    first, _, last = name.rpartition(" ")
    return f"{last}, {first}" if first else last


class EventNotWritable(LookupError):
    """An event the ladder holds that its games cannot write as one TRF (games on several lists
    and none chosen, two games of a player in one round): a conflict with what is recorded."""


def event_trf(event: str, chosen_list: str = "") -> str:
    """Write an event's games (on ``chosen_list``, when given) as a TRF-16; raise
    ``LookupError`` when no game has the event, ``EventNotWritable`` when its games cannot
    make one TRF."""
    missing = LookupError(gettext("No game has the event '%(event)s'.") % {"event": event})
    if not event or "\x00" in event:  # no event holds a NUL, and PostgreSQL refuses one
        raise missing
    found = Game.objects.filter(event=event).with_players().order_by("date", "pk")
    if chosen_list:
        found = found.filter(rating_list=chosen_list)
    games = list(found)
    if not games:
        raise missing
    lists = {game.rating_list for game in games}
    if len(lists) > 1:
        raise EventNotWritable(
            gettext(
                "The event '%(event)s' has games on several lists (%(lists)s); a TRF holds "
                "one: choose the list."
            )
            % {"event": event, "lists": ", ".join(sorted(lists))}
        )
    rounds = _rounds(games)
    opening = {e.player.pk: e.rating_before for e in rating_list(games[0].period, lists.pop())}
    players = {p.pk: p for game in games for p in (game.white, game.black)}
    order = sorted(
        players.values(),
        key=lambda p: (opening.get(p.pk) is None, -(opening.get(p.pk) or 0), p.name, p.pk),
    )
    entrants = {p.pk: _entrant(p, rank, opening.get(p.pk)) for rank, p in enumerate(order, 1)}
    count = max(rounds.values())
    for entrant in entrants.values():
        entrant.cells = [tf.Cell(r, None, "", "", 0) for r in range(1, count + 1)]
        entrant.points = Decimal(0)
    for game in games:
        number = rounds[game.pk]
        white, black = entrants[game.white_id], entrants[game.black_id]
        codes = _CODES[game.result]
        for me, other, colour, code in (
            (white, black, "w", codes[0]),
            (black, white, "b", codes[1]),
        ):
            if me.cells[number - 1].opponent is not None:
                raise EventNotWritable(
                    gettext(
                        "%(player)s has two games in round %(round)s of '%(event)s'; a TRF "
                        "holds one a round."
                    )
                    % {"player": me.name, "round": number, "event": event}
                )
            me.cells[number - 1] = tf.Cell(number, other.rank, colour, code, 0)
            me.points = (me.points or Decimal(0)) + _POINTS.get(code, Decimal(0))
    _final_ranks(list(entrants.values()))
    dates = {rounds[g.pk]: g.date for g in reversed(games)}
    controls = {g.time_control for g in games}
    tournament = tf.Tournament(
        name=event,
        start=games[0].date,
        end=games[-1].date,
        rounds=count,
        round_dates=dates,
        entrants=sorted(entrants.values(), key=lambda e: e.rank),
        time_control=controls.pop() if len(controls) == 1 else "",
    )
    return write_trf(tournament)


def _rounds(games: list[Game]) -> dict[int, int]:
    """Each game's round number: its own when every round is a number, else the order of the
    (date, round) pairs."""
    if all(game.round.isdigit() and int(game.round) > 0 for game in games):
        return {game.pk: int(game.round) for game in games}
    keys = sorted({(game.date, game.round) for game in games})
    number = {key: n for n, key in enumerate(keys, start=1)}
    return {game.pk: number[(game.date, game.round)] for game in games}


def _entrant(player: Player, rank: int, rating: int | None) -> tf.Entrant:
    return tf.Entrant(
        line=0,
        rank=rank,
        sex=player.sex,
        title=player.title,
        name=trf_name(player.name),
        rating=rating,
        federation=player.federation,
        fide_id=player.fide_id,
        birth_year=player.birth_year,
    )


def _final_ranks(entrants: list[tf.Entrant]) -> None:
    """Rank by points; equal points share a rank (the TRF allows ties)."""
    ordered = sorted(entrants, key=lambda e: (-(e.points or 0), e.rank))
    for position, entrant in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        same = previous is not None and previous.points == entrant.points
        entrant.final_rank = previous.final_rank if same and previous else position


# --- a TRF-16 ----------------------------------------------------------------------------------


def player_line(entrant: tf.Entrant) -> str:
    """The 001 line of a player, columns as TRF-16 places them."""
    points = f"{entrant.points:.1f}" if entrant.points is not None else ""
    head = (
        f"001 {entrant.rank:>4} {entrant.sex.lower().replace('f', 'w'):1}{entrant.title:>3} "
        f"{entrant.name[:33]:<33} {entrant.rating or '':>4} {entrant.federation[:3]:<3} "
        f"{entrant.fide_id or '':>11} {entrant.birth_year or '':<10} {points:>4} "
        f"{entrant.final_rank or '':>4}"
    )
    blocks = "".join(
        f"  {cell.opponent or '0000':>4} {cell.colour or '-'} {cell.code or ' '}"
        for cell in entrant.cells
    )
    return (head + blocks).rstrip()


def dates_line(dates: list[date | None]) -> str:
    """The 132 line: one YY/MM/DD date per round from column 92."""
    slots = "".join(f"{d:%y/%m/%d}  " if d else " " * 10 for d in dates)
    return ("132" + " " * 88 + slots).rstrip()


def write_trf(tournament: tf.Tournament) -> str:
    """The whole file as TRF-16 text (lines end with LF; write it as UTF-8)."""
    header = [("012", tournament.name), ("022", tournament.city),
              ("032", tournament.federation),
              ("042", tournament.start and f"{tournament.start:%Y/%m/%d}"),
              ("052", tournament.end and f"{tournament.end:%Y/%m/%d}"),
              ("062", str(len(tournament.entrants))),
              ("072", str(sum(e.rating is not None for e in tournament.entrants))),
              ("102", tournament.arbiter),
              ("122", tournament.time_control)]  # fmt: skip
    lines = [f"{code} {value}" for code, value in header if value]
    dates = [tournament.round_dates.get(r) for r in range(1, tournament.rounds + 1)]
    if any(dates):
        lines.append(dates_line(dates))
    lines += [player_line(e) for e in tournament.entrants]
    return "\n".join(lines) + "\n"


# --- CSV ---------------------------------------------------------------------------------------


# Each prefix is one character: a cell's first one tells whether ``neutralise`` may change it.
_FORMULA_FIRST = frozenset(FORMULA_PREFIXES)


def csv_text(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    """CSV with formula cells neutralised (``neutralise``) and None as an empty cell."""
    return "".join(csv_chunks(header, rows))


def csv_chunks(
    header: Iterable[str], rows: Iterable[Iterable[object]], *, size: int = 1000
) -> Iterator[str]:
    """``csv_text`` in pieces of ``size`` rows (the header first), for a file streamed as it
    is read: only one piece is held at a time. (The csv module writes None as an empty cell;
    only a text starting with a formula prefix is handed to ``neutralise``: calling it for
    every cell of a 100,000-row list cost a second, measured.)"""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    rows = iter(rows)
    first = _FORMULA_FIRST
    while True:
        piece = itertools.islice(rows, size)
        writer.writerows(
            [neutralise(v) if type(v) is str and v[:1] in first else v for v in row]
            for row in piece
        )
        text = out.getvalue()
        if not text:
            return
        yield text
        out.seek(0)
        out.truncate()


def period_games_csv(period: RatingPeriod, rating_list: str | None = None) -> str:
    """A period's games in the games import format (``import_games`` reads it back)."""
    games = Game.objects.in_period(period).with_players().order_by("date", "pk")
    if rating_list:
        games = games.on_list(rating_list)
    return csv_text(
        ("date", "white", "black", "result", "event", "round", "list", "time_control"),
        (
            (
                g.date.isoformat(),
                _who(g.white),
                _who(g.black),
                g.result,
                g.event,
                g.round,
                g.rating_list,
                g.time_control,
            )
            for g in games
        ),
    )


def _who(player: Player) -> str:
    """How an import finds the player again: the FIDE id, else the national id
    (``NOR:12345``), else the name."""
    if player.fide_id:
        return str(player.fide_id)
    if player.national_id:
        return f"{player.national_federation}:{player.national_id}"
    return player.name


def rating_list_csv(period: RatingPeriod | None, list_name: str = RatingList.STANDARD) -> str:
    """The list that closes a period, written as ``rating_list --format csv`` writes it: as
    published when the period is closed (``official.period_list``), never rebuilt from today's
    players; formula cells neutralised as in every CSV Ladder writes."""
    rows = [entry.as_dict() for entry in official.period_list(period, list_name).entries]
    header = list(rows[0]) if rows else ["id", "name"]
    return csv_text(header, ([row[name] for name in header] for row in rows))


def history_csv(player: Player, list_name: str = RatingList.STANDARD) -> str:
    """A player's rating history on one list, one row a period, oldest first."""
    changes = sorted(player_history(player, list_name), key=lambda rc: rc.period.start)
    return csv_text(
        (
            "period",
            "start",
            "end",
            "rating_before",
            "k",
            "games",
            "score",
            "expected",
            "change_exact",
            "change",
            "rating_after",
            "status",
            "performance",
        ),
        (
            (
                rc.period.label,
                rc.period.start,
                rc.period.end,
                rc.rating_before,
                rc.k_applied,
                rc.games,
                rc.score,
                rc.expected,
                rc.change_exact,
                rc.change,
                rc.rating_after,
                rc.status,
                rc.performance,
            )
            for rc in changes
        ),
    )
