"""What an incremental recompute reads and writes over its periods (``incremental``).

A correction ten years back rates 120 periods of each list for a few hundred players; round
trips, not rows, were its cost (six or seven queries a period, measured on the history
benchmark). A run here reads:

- each seed's games once for all the periods from the one it became a seed in (a period none
  of the seeds plays in, and that nothing else reaches, is not read at all);
- a period's games of the players rated again, then the opening rows and stored rows of
  everyone in them, and the entry data of those met for the first time in the run
  (``RunReads.period``): two statements, each prepared once for the run's period after
  period on PostgreSQL (planning them was a third of their server time);
- the standard list (R&B 7.2.1, on rapid and blitz) a player at a time for all periods, in SQL
  written once;

and writes every period's rows at the end: the rows it has rewritten are laid over what the
database holds while it runs (``RunRows``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from django.db import connection
from django.db.models import F, FilteredRelation, Q

from ladder.records import (
    LIST_FIELDS,
    Game,
    Player,
    RatingList,
    RatingPeriod,
    Tournament,
)
from ladder.records.compiled import prepared_cursor
from ratings.models import RatingChange, Status
from ratings.recompute import bulk, storage
from ratings.recompute.rows import ROW_COLUMNS, STATE, Row, comparable, stored_form
from ratings.recompute.states import (
    base_corrections_of,
    entry_state,
    in_force_from_rows,
    latest_changes,
    load_players,
    pool_from_json,
    ratings_in_force,
)
from ratings.rules import engine, eras


class RunReads:
    """What a run reads of its periods, each thing once where it can (see the module)."""

    def __init__(self, periods: list[RatingPeriod], rating_list: str) -> None:
        self.rating_list = rating_list
        self.periods = periods
        ids = [p.pk for p in periods]
        self.fixes = base_corrections_of(ids, rating_list)
        self.earlier: dict[int, list[tuple[int, int, date | str]]] = {}
        games = Game.objects.filter(
            period_id__in=ids,
            rating_list=rating_list,
            tournament__start__lt=F("period__start"),
        )
        for pid, white, black, start in games.values_list(
            "period_id", "white_id", "black_id", "tournament__start"
        ):
            self.earlier.setdefault(pid, []).append((white, black, start))
        self.ascending = storage.periods_ascend()
        self.starts: dict[int, date] = dict(RatingPeriod.objects.values_list("pk", "start"))
        self._entry: dict[int, engine.PlayerState] = {}
        # The games of the players read so far (by period and game: White and Black), from
        # the period each was first asked for; the players given, and their stored rows' periods.
        self._pairs: dict[int, dict[int, tuple[int, int]]] = {}
        self._seeds: set[int] = set()
        self._given: set[int] = set()
        self._rows_at: dict[int, set[int]] = {}
        # R&B 7.2.1 on rapid and blitz reads the standard list opening each period.
        self.standard_fixes: dict[int, dict[int, int]] = {}
        if rating_list in eras.RAPID_BLITZ_LISTS:
            self.standard_fixes = base_corrections_of(ids, RatingList.STANDARD)
        self._standard_entry: dict[int, int | None] = {}
        self._standard_rows: dict[int, list[tuple[Any, Any, int | None]]] = {}
        self.rows = RunRows(rating_list, self.starts)

    def _from(self, current: RatingPeriod) -> list[int]:
        """The ids of ``current`` and every later period of the run."""
        at = next(i for i, p in enumerate(self.periods) if p.pk == current.pk)
        return [p.pk for p in self.periods[at:]]

    def seed_pairs(self, current: RatingPeriod, seeds: set[int]) -> list[tuple[int, int]]:
        """White and Black of each game of the period with a player of ``seeds``; a seed's
        games are read once, for this period and every later one."""
        new = seeds - self._seeds
        if new:
            for pk, period_id, white, black in self._games_of(new, current):
                self._pairs.setdefault(period_id, {})[pk] = (white, black)
            self._seeds |= new
        return [
            (white, black)
            for white, black in self._pairs.get(current.pk, {}).values()
            if white in seeds or black in seeds
        ]

    def _games_of(self, players: set[int], current: RatingPeriod) -> Iterable[Row]:
        """Id, period, White and Black of the games of ``players`` in ``current`` and every
        later period of the run. On PostgreSQL in SQL written once: a run asks it of each
        period that brings new seeds (150 times in a correction ten years back), and the ORM
        built the query each time, half of the call. Not prepared: a plan for any values
        reads the period index over every period (measured: four times slower)."""
        if connection.vendor != "postgresql":
            games = Game.objects.filter(
                storage.among(players, "white_id", "black_id"),
                period_id__in=self._from(current),
                rating_list=self.rating_list,
            )
            return bulk.fetch_rows(
                games.order_by().values_list("pk", "period_id", "white_id", "black_id")
            )
        ids = bulk.int_array(sorted(players))
        table = connection.ops.quote_name(Game._meta.db_table)
        wanted = self._from(current)
        bound: int | str
        if self.ascending:
            # The later periods as a bound on their ids (``storage.periods_ascend``), the
            # run's kept below: a list of periods is an index descent a player and period in
            # each of the players' indexes (60 players over 70 periods: 18 ms, against 5 ms).
            later, bound = "period_id >= %s", current.pk
        else:
            later, bound = "period_id = ANY(%s::bigint[])", bulk.int_array(wanted)
        sql = f"""
            SELECT id, period_id, white_id, black_id FROM {table}
            WHERE (white_id = ANY(%s::bigint[]) OR black_id = ANY(%s::bigint[]))
                AND {later} AND rating_list = %s"""  # fmt: skip
        run = set(wanted)
        found = bulk.fetch_rows_sql(sql, [ids, ids, bound, self.rating_list])
        return [row for row in found if row[1] in run]

    def given_rows(self, current: RatingPeriod, players: set[int]) -> set[int]:
        """The players of ``players`` (given) with a row stored in the period; each player's
        rows are looked up once, for this period and every later one."""
        new = players - self._given
        if new:
            rows = RatingChange.objects.filter(
                storage.among(new, "player_id"),
                period_id__in=self._from(current),
                rating_list=self.rating_list,
            )
            for pid, period_id in bulk.fetch_rows(
                rows.order_by().values_list("player_id", "period_id")
            ):
                self._rows_at.setdefault(period_id, set()).add(pid)
            self._given |= new
        return self._rows_at.get(current.pk, set()) & players

    def entry(self, players: set[int]) -> dict[int, engine.PlayerState]:
        """The players' entry states on the list, each read once in the run."""
        missing = players - self._entry.keys()
        if missing:
            self._entry.update(load_players(self.rating_list, Q(storage.among(missing, "id")))[0])
        return {pid: self._entry[pid] for pid in players if pid in self._entry}

    def period(
        self, current: RatingPeriod, redo: set[int], wanted: set[int]
    ) -> tuple[list[Row], dict[int, engine.PlayerState], dict[int, Row]]:
        """The games of the period of the players of ``redo`` (White, Black, result, date,
        event, the tournament's start); the states of everyone in them and of ``wanted`` opening
        it (their latest row before it, the run's own rows first, else their entry data); and
        the rows stored in it of ``wanted`` (``comparable`` form)."""
        if not redo and not wanted:
            return [], {}, {}
        games, entry, latest, stored = self._read(current, redo, wanted)
        states: dict[int, engine.PlayerState] = {}
        for pid, born in entry.items():
            own, last = self.rows.carried.get(pid), latest.get(pid)
            if own is not None and (last is None or own[0] >= self.starts[last[0]]):
                row = own[1]
                states[pid] = state_of([row[i] for i in STATE], born.birth_year)
            elif last is not None:
                states[pid] = state_of(last[1:], born.birth_year)
            else:
                states[pid] = born
        return games, states, {pid: comparable(row) for pid, row in stored.items()}

    def _read(
        self, current: RatingPeriod, redo: set[int], wanted: set[int]
    ) -> tuple[list[Row], dict[int, engine.PlayerState], dict[int, Row], dict[int, Row]]:
        """``period``'s games; the entry states of everyone in them and of ``wanted``, their
        latest rows before ``current`` (the period's id, then the state's columns, ``STATE``);
        the rows stored in it of ``wanted``."""
        # The row's columns (their fields' names are their columns' names).
        names = [f"{c}_id" if c in ("player", "period") else c for c in ROW_COLUMNS]
        state = [names[i] for i in STATE]
        if connection.vendor != "postgresql":
            return self._read_elsewhere(current, redo, wanted, names, state)
        quote = connection.ops.quote_name
        changes = quote(RatingChange._meta.db_table)
        games_sql = f"""
            SELECT g.white_id, g.black_id, g.result, g.date, g.event, t.start
            FROM {quote(Game._meta.db_table)} g
            LEFT JOIN {quote(Tournament._meta.db_table)} t ON t.id = g.tournament_id
            WHERE g.period_id = %s AND g.rating_list = %s
                AND (g.white_id = ANY(%s::bigint[]) OR g.black_id = ANY(%s::bigint[]))"""
        redo_ids = bulk.int_array(sorted(redo))
        games_params = [current.pk, self.rating_list, redo_ids, redo_ids]
        # A player's latest row, and their row of the period, through their own index (player,
        # list, period), a probe each (laterals, each with a LIMIT that keeps PostgreSQL
        # from making it a join: planned over the period's rows, 100 ms):
        # with ``ascending`` (``storage.periods_ascend``) by the periods' ids, else starts. The
        # row of the period is found as the latest up to it, in the order only that index
        # gives: asked for by equality, it was read through the index by period whenever the
        # table's statistics predated the period's rows (a correction just after a replay:
        # 48,000 rows read a player, 5.8 s for 335 players in make bench's federation).
        join, bound = "", "o.period_id < %s ORDER BY o.period_id DESC"
        at: int | date = current.pk
        if not self.ascending:
            join = f"JOIN {quote(RatingPeriod._meta.db_table)} p ON p.id = o.period_id"
            bound, at = "p.start < %s ORDER BY p.start DESC", current.start
        entry_columns = ", ".join(
            f"pl.{quote(name)}" for name in (*LIST_FIELDS[self.rating_list].entry, "birth_year")
        )  # fmt: skip
        # Per player: whether their entry data is still to be read (each player's once in the
        # run), whether their row of the period is wanted; each a flag PostgreSQL tests before
        # the probe it guards (a lateral's condition on the outer row alone; the LIMIT keeps
        # the players' lateral a subquery: pulled up into a join, its flag was tested after
        # the probe).
        states_sql = f"""
            WITH w(id, fresh, wanted) AS (
                SELECT * FROM unnest(%s::bigint[], %s::boolean[], %s::boolean[]))
            SELECT w.id, pl.*,
                   o.period_id, {", ".join(f"o.{quote(c)}" for c in state)},
                   {", ".join(f"s.{quote(c)}" for c in names)}
            FROM w
            LEFT JOIN LATERAL (
                SELECT {entry_columns} FROM {quote(Player._meta.db_table)} pl
                WHERE pl.id = w.id AND w.fresh LIMIT 1
            ) pl ON TRUE
            LEFT JOIN LATERAL (
                SELECT o.* FROM {changes} o {join}
                WHERE o.player_id = w.id AND o.rating_list = %s AND {bound} LIMIT 1
            ) o ON TRUE
            LEFT JOIN LATERAL (
                SELECT s.* FROM {changes} s WHERE s.player_id = w.id AND s.rating_list = %s
                    AND s.period_id <= %s AND w.wanted ORDER BY s.period_id DESC LIMIT 1
            ) s ON s.period_id = %s"""
        # Two prepared statements (``prepared_cursor``), their texts the same period after
        # period: the states of the players the games name, sent back. Sent as one text of
        # two statements, bound on the client, each was planned afresh on every period, about
        # 1 ms each, and the second found the games again (measured on the history benchmark:
        # the period reads 5.8 ms a period before, 4.5 ms after).
        with prepared_cursor(connection) as cursor:
            cursor.execute(games_sql, games_params)
            games = cursor.fetchall()
            players = sorted(
                {white for white, *_ in games} | {black for _, black, *_ in games} | wanted
            )
            known = self._entry
            params = [
                bulk.int_array(players),
                bulk.bool_array(pid not in known for pid in players),
                bulk.bool_array(pid in wanted for pid in players),
                self.rating_list, at, self.rating_list, current.pk, current.pk,
            ]  # fmt: skip
            cursor.execute(states_sql, params)
            found = cursor.fetchall()
        entry, latest, stored = {}, {}, {}
        width = 1 + len(state)
        for pid, rating, played, peak, born, *row in found:
            if pid in known:
                entry[pid] = known[pid]
            else:
                entry[pid] = known[pid] = entry_state(rating, played, peak, born)
            if row[0] is not None:
                latest[pid] = tuple(row[:width])
            if row[width] is not None:
                stored[pid] = tuple(row[width:])
        return games, entry, latest, stored

    def _read_elsewhere(
        self,
        current: RatingPeriod,
        redo: set[int],
        wanted: set[int],
        names: list[str],
        state: list[str],
    ) -> tuple[list[Row], dict[int, engine.PlayerState], dict[int, Row], dict[int, Row]]:
        """``_read`` on SQLite: the games, then the players' entry data (each read once in
        the run), latest rows and stored rows, a query each."""
        games: list[Row] = []
        if redo:
            selected = Game.objects.filter(
                storage.among(redo, "white_id", "black_id"),
                period=current,
                rating_list=self.rating_list,
            ).order_by()
            games = list(bulk.fetch_rows(selected.values_list(
                "white_id", "black_id", "result", "date", "event", "tournament__start"
            )))  # fmt: skip
        players = {w for w, *_ in games} | {b for _, b, *_ in games} | wanted
        if not players:
            return games, {}, {}, {}
        entry = self.entry(players)
        before = latest_changes(before=current.start, rating_list=self.rating_list)
        before = before.filter(storage.among(players, "player_id"))
        latest = {
            row[0]: row[1:]
            for row in bulk.fetch_rows(before.values_list("player_id", "period_id", *state))
        }
        here = RatingChange.objects.filter(
            storage.among(wanted, "player_id"), rating_list=self.rating_list, period=current
        )
        stored = {row[0]: row for row in bulk.fetch_rows(here.order_by().values_list(*names))}
        return games, entry, latest, stored

    def standard(self, current: RatingPeriod) -> engine.StandardRatings:
        """R&B 7.2.1's reading of the standard list for a period: the list opening it from
        each player's standard rows, read once in the run (the standard list does not move
        while a rapid or blitz list is rated); an earlier tournament's list as
        ``ratings_in_force`` reads it."""

        def read(day: int, players: list[int]) -> dict[int, int | None]:
            if day != engine.OPENING:
                return ratings_in_force(date.fromordinal(day), players, RatingList.STANDARD)
            missing = set(players) - self._standard_rows.keys()
            if missing:
                for pid, entry, start, end, rating in _standard_rows(missing):
                    self._standard_entry[pid] = entry
                    held = self._standard_rows.setdefault(pid, [])
                    if start is not None:
                        held.append((bulk.as_date(start), bulk.as_date(end), rating))
            found = {
                pid: in_force_from_rows(
                    self._standard_entry.get(pid), self._standard_rows.get(pid, []), current.start
                )
                for pid in players
            }
            fixes = self.standard_fixes.get(current.pk, {})
            found.update((pid, rating) for pid, rating in fixes.items() if pid in found)
            return found

        return read


def _standard_rows(players: set[int]) -> Iterable[Row]:
    """Each player's standard entry rating and standard rows (the period's start and end, the
    rating after), a row each (one with None for a player without rows). On PostgreSQL in
    SQL written once: a rapid or blitz run asks it of each period with unrated players (about
    a hundred times in a correction ten years back), and the ORM built the query each time,
    most of the call."""
    entry = LIST_FIELDS[RatingList.STANDARD].entry[0]
    if connection.vendor != "postgresql":
        players_id = f"{connection.ops.quote_name(Player._meta.db_table)}.id"
        rows = (
            Player.objects.filter(storage.among(players, players_id))
            .annotate(
                standard=FilteredRelation(
                    "rating_changes",
                    condition=Q(rating_changes__rating_list=RatingList.STANDARD),
                )
            )
            .order_by()
            .values_list("pk", entry, "standard__period__start", "standard__period__end",
                         "standard__rating_after")
        )  # fmt: skip
        return bulk.fetch_rows(rows)
    quote = connection.ops.quote_name
    sql = f"""
        SELECT pl.id, pl.{quote(entry)}, p.start, p.{quote("end")}, rc.rating_after
        FROM {quote(Player._meta.db_table)} pl
        LEFT JOIN {quote(RatingChange._meta.db_table)} rc
            ON rc.player_id = pl.id AND rc.rating_list = %s
        LEFT JOIN {quote(RatingPeriod._meta.db_table)} p ON p.id = rc.period_id
        WHERE pl.id = ANY(%s::bigint[])"""
    return bulk.fetch_rows_sql(sql, [RatingList.STANDARD, bulk.int_array(sorted(players))])


def state_of(row: Sequence[Any], birth_year: int | None) -> engine.PlayerState:
    """The state a row leaves a player in, as the next list shows it: the row's ``STATE``
    columns, as the driver or ``comparable`` gives them."""
    status, rating, games, peak, last, first_event, pool = row
    if status != Status.UNRATED:  # only an unrated player keeps a pool
        pool = ()
    else:
        pool = pool_from_json(json.loads(pool) if isinstance(pool, str) else pool)
    return engine.PlayerState(
        rating=rating,
        rated_games=games,
        peak_rating=peak,
        birth_year=birth_year,
        last_rated_on=bulk.as_date(last),
        pool=pool,
        first_event=first_event or None,
    )


class RunRows:
    """The rows a run has rewritten, written at its end (``flush``); ``carried`` lays each
    player's latest of them over the database's rows while the run reads on."""

    def __init__(self, rating_list: str, starts: dict[int, date]) -> None:
        self.rating_list = rating_list
        self.starts = starts
        self.carried: dict[int, tuple[date, Row]] = {}
        self._pending: list[Row] = []
        self._replaced: list[tuple[int, int]] = []

    def replace(self, period: RatingPeriod, rows: Sequence[Row], replaced: Iterable[int]) -> None:
        """Keep ``rows`` (``comparable`` form) of ``period`` for the end, where the stored rows
        of the players ``replaced`` go first."""
        for row in rows:
            self.carried[row[0]] = (period.start, row)
            self._pending.append(stored_form(row))
        self._replaced += [(pid, period.pk) for pid in replaced]

    def flush(self) -> None:
        """Write what is kept: the replaced rows deleted, the new ones inserted."""
        if self._replaced:
            storage.delete_pairs(self.rating_list, self._replaced)
            self._replaced = []
        if self._pending:
            bulk.insert_rows(RatingChange, ROW_COLUMNS, self._pending)
            self._pending = []
