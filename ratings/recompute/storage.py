"""How a recompute reads and writes the database fast: the one module that knows.

The recompute lock and the transaction's planner settings, the period's games packed into
``bytea`` values, deletes that return their ids packed, conditions on many ids in SQL of constant
size, and the statement that copies the players' latest rows into their fields. Below it,
``bulk`` (COPY, binary reads) and ``columns`` (the rated players' rows as columns).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date
from typing import Any, NamedTuple

import numpy as np
from django.db import connection, transaction
from django.db.models import BooleanField, F, QuerySet, UniqueConstraint
from django.db.models.expressions import RawSQL

from ladder.records import LIST_FIELDS, Game, Player, RatingList, RatingPeriod, Tournament, versions
from ratings.exceptions import UnknownRatingList
from ratings.models import RatingChange, Status
from ratings.recompute import bulk
from ratings.recompute.ahead import GamesAhead, Groups, Half
from ratings.recompute.summary import Recompute
from ratings.rules import engine

# The PostgreSQL advisory lock serializing recomputes: a recompute takes it for its transaction,
# a rating run's executor for its session (ratings.runs); a session's locks are re-entrant.
LOCK_KEY = 0x1ADDE7
# Memory for a recompute's sorts and hashes on PostgreSQL (its transaction only; see _prepare).
_WORK_MEM = "64MB"


def check_rating_lists(rating_lists: Sequence[str]) -> None:
    """Raise ``UnknownRatingList`` unless every list named is one the club keeps."""
    unknown = set(rating_lists) - set(RatingList.values)
    if unknown:
        raise UnknownRatingList(unknown, RatingList.values)


class Start(NamedTuple):
    """What a recompute starts from (``begin``)."""

    periods: list[RatingPeriod]  # from the period given on
    summary: Recompute  # empty
    untouched: bool  # the transaction has written nothing yet (``ahead`` may read the games)
    narrow: bool  # every player's id fits int4 (``games_by_list``)


def begin(period: RatingPeriod | None, *, dry_run: bool) -> Start:
    """Take the recompute lock; return the periods from ``period`` on, an empty summary, and
    what the reads need to know of the transaction and the players (``Start``)."""
    untouched, narrow = _prepare()
    periods = list(
        RatingPeriod.objects.filter(start__gte=period.start)
        if period
        else RatingPeriod.objects.all()
    )
    summary = Recompute(periods=[p.label for p in periods], dry_run=dry_run)
    return Start(periods, summary, untouched, narrow)


# The players' UPDATE joins the rows just written, which the table's statistics may not know
# of yet: estimated at one row, the join became 100,000 index probes (0.37 s, against 0.08 s
# for a hash join: measured on the benchmark's three-list period, after its rows were cleared).
HASHED = {"enable_nestloop": "off"}


# Whether this context's transaction has set the rating table's index by player aside
# (``player_index_aside``).
_ASIDE: ContextVar[bool] = ContextVar("player_index_aside", default=False)


def _player_index() -> UniqueConstraint:
    """The rating table's index by player: its unique (player, list, period) constraint, as
    the model declares it (so that dropped and added back it is what the migrations made)."""
    (found,) = (
        c for c in RatingChange._meta.constraints
        if isinstance(c, UniqueConstraint) and c.fields[0] == "player"
    )  # fmt: skip
    return found


@contextmanager
def player_index_aside(enabled: bool = True) -> Iterator[None]:
    """Write a replay's rows without the rating table's index by player (PostgreSQL): drop it,
    let the block write, then build it again from the rows, sorted, in one pass.

    Every row a replay writes lands beside its player's earlier rows in that index, a leaf page
    of its own each: at a federation's size it is most of what storing a row costs (measured:
    docs/benchmarks.md). The price is a lock: the table is locked against every other
    transaction, readers included, until the caller's transaction ends, and the index is not
    there to keep the rows unique meanwhile (building it again checks them; a duplicate fails
    the block). Hence only for a replay asked to (``LADDER_EXCLUSIVE_REPLAY_PERIODS``).
    A read by player meanwhile (``latest_rows``, ``states.latest_changes``) builds the index
    first (``player_index_back``): nothing reads a table scan a player at a time.
    A failure in the block rolls the drop back with it (a savepoint).
    """
    if not enabled or connection.vendor != "postgresql" or _ASIDE.get():
        yield
        return
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        with connection.schema_editor() as editor:
            editor.remove_constraint(RatingChange, _player_index())
        token = _ASIDE.set(True)
        try:
            yield
            player_index_back()
        finally:
            _ASIDE.reset(token)


def player_index_back() -> None:
    """Build the rating table's index by player again if ``player_index_aside`` dropped it;
    else nothing."""
    if not _ASIDE.get():
        return
    # 4.0-4.9 s for a federation's 9.15 million rows (measured), the same whether the sort
    # has the default 64 MB of memory, 256 MB or 1 GB: no setting of its own.
    with connection.schema_editor() as editor:
        editor.add_constraint(RatingChange, _player_index())
    _ASIDE.set(False)


def try_recompute_lock() -> bool:
    """Take the recompute lock (PostgreSQL) for the caller's transaction if it is free; return
    whether it was taken (always, on SQLite: its writers take turns on the database itself).

    For a caller that writes and then recomputes in one transaction (``ladder.writes.previews``): it
    holds row locks that the run executor, holding this lock, may be waiting for, so it must
    not wait for this lock in turn. When the lock is taken, give way (roll back) and try again.
    """
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [LOCK_KEY])
        return bool(cursor.fetchone()[0])


def _prepare() -> tuple[bool, bool]:
    """Serialize recomputes so that concurrent entry cannot lose an update (DESIGN Flow 4);
    return whether the transaction has written nothing yet (PostgreSQL; False elsewhere) and
    whether every player's id fits int4 (the games' packing), both read in the same round trip.

    On PostgreSQL also turn JIT compilation off for the transaction: the recompute's scans are
    simple, and compiling them cost more than it saved (measured on the benchmark). And give its
    sorts room: a federation's 300,000 latest rows (three lists) spilled to disk in the default
    4 MB (measured: a third of the players' update).
    """
    if connection.vendor != "postgresql":
        return False, False  # SQLite reads games as rows: no packing, nothing read ahead
    players = connection.ops.quote_name(Player._meta.db_table)
    fits = f"(SELECT COALESCE(MAX(id), 0) FROM {players}) <= {INT4_MAX}"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s), set_config('jit', 'off', true), "
            f"set_config('work_mem', %s, true), pg_current_xact_id_if_assigned() IS NULL, {fits}",
            [LOCK_KEY, _WORK_MEM],
        )
        *_, untouched, narrow = cursor.fetchone()
        return bool(untouched), bool(narrow)


def delete_rows(
    periods: Sequence[RatingPeriod], rating_lists: Sequence[str]
) -> dict[str, set[int]]:
    """Delete the periods' rows on the lists, in one statement; return whose rows they were,
    by list.

    On PostgreSQL the ids come back packed, a value per list (100,000 rows' ids as Python
    tuples cost as much as the delete).
    """
    deleted: dict[str, set[int]] = {name: set() for name in rating_lists}
    if not periods:
        return deleted
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    periods_marks = ", ".join(["%s"] * len(periods))
    marks = ", ".join(["%s"] * len(rating_lists))
    delete = (
        f"DELETE FROM {table} WHERE period_id IN ({periods_marks}) AND rating_list IN ({marks})"
    )
    params: list[Any] = [*(period.pk for period in periods), *rating_lists]
    if connection.vendor == "postgresql":
        packed = bulk.fetch_packed(
            f"WITH d AS ({delete} RETURNING player_id, rating_list) "
            "SELECT rating_list, string_agg(int8send(player_id), ''::bytea) "
            "FROM d GROUP BY rating_list",
            params,
            np.dtype(">i8"),
        )
        for (rating_list,), ids in packed:
            deleted[rating_list] = set(ids.tolist())
        return deleted
    with connection.cursor() as cursor:
        cursor.execute(f"{delete} RETURNING player_id, rating_list", params)
        for pid, rating_list in cursor.fetchall():
            deleted[rating_list].add(pid)
    return deleted


def delete_quietly(rows: QuerySet[Any, Any]) -> int:
    """Delete ``rows`` in one statement; return how many.

    ``QuerySet.delete`` reads every row back first to send each one's ``post_delete`` (the
    data version listens to every model): 1,900 rows of a correction's run cost seconds on the
    history benchmark. The version is moved on once instead, when the transaction commits.
    """
    deleted = rows._raw_delete(rows.db)
    if deleted:
        versions.bump_on_commit()
    return deleted


def delete_pairs(rating_list: str, rows: list[tuple[int, int]]) -> None:
    """Delete the rows of a list of these (player, period) pairs, quietly
    (``delete_quietly``)."""
    if connection.vendor == "postgresql":
        quote = connection.ops.quote_name
        sql = f"""DELETE FROM {quote(RatingChange._meta.db_table)} WHERE rating_list = %s
                  AND (player_id, period_id) IN
                      (SELECT * FROM unnest(%s::bigint[], %s::bigint[]))"""
        players, periods = zip(*rows, strict=True)
        with connection.cursor() as cursor:
            cursor.execute(sql, [rating_list, bulk.int_array(players), bulk.int_array(periods)])
        versions.bump_on_commit()
        return
    by_period: dict[int, set[int]] = {}
    for pid, period_id in rows:
        by_period.setdefault(period_id, set()).add(pid)
    for period_id, players_of in by_period.items():
        delete_quietly(
            RatingChange.objects.filter(
                among(players_of, "player_id"), period_id=period_id, rating_list=rating_list
            )
        )


def games_by_list(
    period: RatingPeriod,
    rating_lists: Sequence[str],
    *,
    narrow: bool = False,
    meanwhile: Callable[[], object] | None = None,
    ahead: GamesAhead | None = None,
    earlier: dict[int, date] | None = None,
    before_reading: Callable[[], object] = lambda: None,
) -> dict[str, engine.GameColumns]:
    """The period's games on the lists, in one query, as integer columns for each list that has
    any: White's score and the day decoded by the query, and for the games of tournaments that
    started before the period the day they started (``GameColumns.start``; one more query
    finds those tournaments, usually none).

    On PostgreSQL they come packed into ``bytea`` values straight into numpy (a million Python
    tuples of strings and dates cost more than the rest of the reading), one value for each
    list, event and tournament: the server groups them, so each game's list, event and
    tournament are known without a byte of their own, and the event names come once each.
    ``narrow``: every player's id fits int4, so White's and Black's ids share one int8.
    ``meanwhile`` is called while the server reads (on PostgreSQL; elsewhere first).
    ``ahead``: the games read ahead on another connection (``games_query``), if it has them.
    ``earlier``: the tournaments rated in the period that started before it, by id, if the
    caller has read them (``earlier_tournaments``). ``before_reading`` is called before this
    connection is used (a caller streaming rows in on it ends the stream first).
    """
    if earlier is None:
        before_reading()
        earlier = earlier_tournaments([period]).get(period.pk, {})
    if connection.vendor != "postgresql":
        before_reading()
        if meanwhile is not None:
            meanwhile()
        table = connection.ops.quote_name(Game._meta.db_table)
        marks = ", ".join(["%s"] * len(rating_lists))
        sql = (
            f"SELECT rating_list, white_id, black_id, CASE result {_SCORES} ELSE -1 END, date, "
            f"event, tournament_id FROM {table} WHERE period_id = %s AND rating_list IN ({marks})"
        )
        rows = list(bulk.fetch_rows_sql(sql, [period.pk, *rating_lists]))
        found = {}
        for rating_list in rating_lists:
            chosen = [row[1:] for row in rows if row[0] == rating_list]
            if not chosen:
                continue
            white, black, score = np.array([row[:3] for row in chosen], np.int64).T
            days = np.fromiter(
                (date.fromisoformat(str(row[3])[:10]).toordinal() for row in chosen),
                np.int64,
                len(chosen),
            )
            events = np.array([row[4] for row in chosen], dtype=object)
            found[rating_list] = engine.GameColumns(
                white, black, score, days, functools.partial(_names, events, None),
                _starts(earlier, [row[5] for row in chosen]),
            )  # fmt: skip
        return found
    groups: Groups | None
    if ahead is not None and (half := ahead.half_left(period)) is not None:
        before_reading()  # one half here, the other ahead, at once (``GamesAhead.half_left``)
        groups = _packed_games(period, rating_lists, narrow, half, meanwhile)
        other = ahead.take(period)
        if other is None:  # the reading ahead stopped: the other half read here too
            other = _packed_games(period, rating_lists, narrow, half.other())
        groups += other
    else:
        groups = ahead.take(period) if ahead is not None else None
        if groups is None:
            before_reading()
            groups = _packed_games(period, rating_lists, narrow, None, meanwhile)
        elif meanwhile is not None:
            meanwhile()
    found = {}
    for rating_list in rating_lists:
        mine = [(event, tid, records) for (name, event, tid), records in groups
                if name == rating_list]  # fmt: skip
        if not mine:
            continue
        records = np.concatenate([records for *_, records in mine])
        if narrow:
            pair = records["players"].astype(np.int64)
            white, black = pair >> 32, pair & 0xFFFFFFFF
        else:
            white, black = records["white"].astype(np.int64), records["black"].astype(np.int64)
        packed = records["score_day"].astype(np.int64)
        score = (packed + 32768) >> 16
        days = packed - (score << 16) + period.start.toordinal()
        events = np.array([event for event, *_ in mine], dtype=object)
        sizes = [len(records) for *_, records in mine]
        codes = np.repeat(np.arange(len(mine)), sizes)
        start = None
        starts = _starts(earlier, [tid for _, tid, _ in mine])
        if starts is not None:
            start = np.repeat(starts, sizes)
        found[rating_list] = engine.GameColumns(
            white, black, score, days, functools.partial(_names, events, codes), start
        )
    return found


def _packed_games(
    period: RatingPeriod,
    rating_lists: Sequence[str],
    narrow: bool,
    half: Half | None,
    meanwhile: Callable[[], object] | None = None,
) -> Groups:
    """``games_query``'s packed groups, read on this connection."""
    _, sql, params, dtype = games_query(period, rating_lists, narrow=narrow, half=half)
    return bulk.fetch_packed(sql, params, dtype, meanwhile=meanwhile)


def games_middle(period: RatingPeriod) -> int | None:
    """The page of the games table halfway through ``period``'s games (PostgreSQL), None when
    it has none: from the first and last entries of the index by period, which PostgreSQL
    keeps in the order of the rows' places for equal keys. Any page cuts the games into two
    halves that hold each game once; this one into halves of about equal size when the
    period's games are stored together (as a month's import leaves them)."""
    table = connection.ops.quote_name(Game._meta.db_table)
    page = f"SELECT (ctid::text::point)[0] FROM {table} WHERE period_id = %s"
    first = f"{page} ORDER BY period_id, rating_list LIMIT 1"
    last = f"{page} ORDER BY period_id DESC, rating_list DESC LIMIT 1"
    sql = f"SELECT ({first}), ({last})"
    with connection.cursor() as cursor:
        cursor.execute(sql, [period.pk, period.pk])
        first, last = cursor.fetchone()
    if first is None or last is None:
        return None
    return int(first + last) // 2


def games_query(
    period: RatingPeriod, rating_lists: Sequence[str], *, narrow: bool, half: Half | None = None
) -> tuple[int, str, list[Any], np.dtype[Any]]:
    """The PostgreSQL query of ``games_by_list`` for ``period`` (its id, the SQL, the
    parameters and the packed games' dtype), for ``bulk.fetch_packed`` or ``ahead``; with
    ``half``, of the games of that half only."""
    table = connection.ops.quote_name(Game._meta.db_table)
    marks = ", ".join(["%s"] * len(rating_lists))
    # A game packs into 12 bytes (20 when ids need int8): the players, then White's score and
    # the day in one int4 (score x 2**16 + day; the cast to int2 refuses a day out of range).
    players = (
        "int8send((white_id::int8 << 32) | black_id)"
        if narrow
        else "int8send(white_id) || int8send(black_id)"
    )
    halves = ""
    if half is not None:  # the half's own pages (``ahead.Half``), an int written in the SQL
        halves = f"AND ctid {'<' if half.low else '>='} '({int(half.page)},0)'::tid"
    sql = f"""SELECT rating_list, event, tournament_id,
                     string_agg({players} || int4send((CASE result {_SCORES} ELSE -1 END) * 65536
                                                      + (date - %s)::int2), ''::bytea)
              FROM {table} WHERE period_id = %s AND rating_list IN ({marks}) {halves}
              GROUP BY rating_list, event, tournament_id"""
    return (
        period.pk,
        sql,
        [period.start, period.pk, *rating_lists],
        (_NARROW_GAME if narrow else _WIDE_GAME),
    )


def earlier_tournaments(periods: Sequence[RatingPeriod]) -> dict[int, dict[int, date]]:
    """The tournaments rated in each of ``periods`` that started before it (FIDE.md 10.1), by
    period id, then tournament id: their start. One query."""
    found: dict[int, dict[int, date]] = {}
    rows = Tournament.objects.filter(
        rated_in__in=[period.pk for period in periods], start__lt=F("rated_in__start")
    ).values_list("rated_in_id", "pk", "start")
    for period_id, pk, start in rows:
        found.setdefault(period_id, {})[pk] = start
    return found


def _starts(earlier: dict[int, date], tournaments: Sequence[int | None]) -> np.ndarray | None:
    """The start of each of ``tournaments`` that started before the period (-1: the others),
    or None when none did."""
    if not earlier:
        return None
    return np.fromiter(
        (earlier[t].toordinal() if t in earlier else -1 for t in tournaments),
        np.int64,
        len(tournaments),
    )


def _names(events: np.ndarray, codes: np.ndarray | None = None, at: Any = None) -> list[str]:
    """The event names of the games at ``at``: ``events`` holds a name a game, or with
    ``codes`` a name a code."""
    chosen = codes[at] if codes is not None else at
    return events[chosen].tolist()  # type: ignore[no-any-return]


# White's score by result, in the games queries' CASE.
_SCORES = " ".join(f"WHEN '{code}' THEN {value}" for code, value in engine.WHITE_SCORE.items())
_WIDE_GAME = np.dtype([("white", ">i8"), ("black", ">i8"), ("score_day", ">i4")])
_NARROW_GAME = np.dtype([("players", ">i8"), ("score_day", ">i4")])


INT4_MAX = 2**31 - 1


_IDS = "ratings_recompute_ids"


def among(ids: Iterable[int], *columns: str) -> RawSQL:
    """A condition: any of ``columns`` holds one of ``ids``, in SQL of constant size.

    An array parameter on PostgreSQL (``= ANY`` uses the columns' indexes); on SQLite, which
    limits the variables of a query, a scratch table filled in one statement (the condition
    then holds until the next call fills it again).
    """
    each = among_each(ids, *columns)
    sql = " OR ".join(condition.sql for condition in each)
    params = [param for condition in each for param in condition.params]
    return RawSQL(f"({sql})", params, output_field=BooleanField())


def among_each(ids: Iterable[int], *columns: str) -> list[RawSQL]:
    """``among``'s condition for each of ``columns`` alone, the ids passed or filled once (on
    SQLite the conditions hold until the next ``among`` fills the scratch table again)."""
    if connection.vendor == "postgresql":
        array = bulk.int_array(sorted(ids))
        return [
            RawSQL(f"({column} = ANY(%s::bigint[]))", [array], output_field=BooleanField())
            for column in columns
        ]
    table = bulk.fill_ids(_IDS, ids)
    return [
        RawSQL(f"({column} IN (SELECT id FROM {table}))", [], output_field=BooleanField())
        for column in columns
    ]


def periods_ascend() -> bool:
    """Whether the periods' ids ascend with their starts (periods made in date order, as a
    club makes them): then a player's latest row before a day is the one of the highest
    period id below the first period from that day (``latest_rows``)."""
    ids = list(RatingPeriod.objects.order_by("start").values_list("pk", flat=True))
    return ids == sorted(ids)


def latest_rows(
    ids: Collection[int],
    *,
    before: date | None,
    rating_list: str,
    columns: Sequence[str],
    ascending: bool = False,
    ended_before: date | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Each of the players' latest row on a list of a period starting before ``before`` (any
    period with None; with ``ended_before``, of a period ended before that day): ``player_id``
    and ``columns`` of it (names of RatingChange's columns), as the driver gives them
    (PostgreSQL only).

    A row a player, found through the players' own index (player, list, period): with
    ``ascending`` (``periods_ascend``) one probe of it each, else the player's rows on the
    list sorted by their periods' starts. A window over the rows of the periods before
    ``before``, as ``states.latest_changes`` reads them, was planned through the periods'
    index while the table's statistics predated the rows a replay had just written: 0.3 s a
    period for a few hundred players, where the history benchmark's correction ten years back
    reads them for 120 periods.
    """
    player_index_back()
    quote = connection.ops.quote_name
    changes, periods = quote(RatingChange._meta.db_table), quote(RatingPeriod._meta.db_table)
    chosen = ", ".join(f"rc.{quote(column)}" for column in columns)
    params: list[Any] = [bulk.int_array(sorted(ids)), rating_list]
    if ascending and ended_before is None:
        bound = ""
        if before is not None:
            bound = f"AND rc.period_id < (SELECT COALESCE(MIN(id), {2**63 - 1}) FROM {periods} "
            bound += "WHERE start >= %s)"
            params.append(before)
        latest = f"""SELECT rc.player_id, {chosen} FROM {changes} rc
                     WHERE rc.player_id = wanted.id AND rc.rating_list = %s {bound}
                     ORDER BY rc.period_id DESC LIMIT 1"""
    else:
        bound = ""
        if before is not None:
            bound = "AND p.start < %s"
            params.append(before)
        if ended_before is not None:
            bound += " AND p.end < %s"
            params.append(ended_before)
        latest = f"""SELECT rc.player_id, {chosen} FROM {changes} rc
                     JOIN {periods} p ON p.id = rc.period_id
                     WHERE rc.player_id = wanted.id AND rc.rating_list = %s {bound}
                     ORDER BY p.start DESC LIMIT 1"""
    sql = "SELECT latest.* FROM unnest(%s::bigint[]) AS wanted(id) "
    sql += f"CROSS JOIN LATERAL ({latest}) AS latest"
    yield from bulk.fetch_rows_sql(sql, params)


_DERIVED = ("rating", "rated_games", "peak_rating", "last_rated_on", "last_change")


def players_from_rows(
    periods: Sequence[RatingPeriod], rating_lists: Sequence[str]
) -> tuple[str, list[Any]]:
    """The statement (SQL and parameters) that copies each player's latest row on each list in
    ``periods`` (a period and every later one) into their derived fields of that list, every
    list in one statement.

    Only players whose fields differ are written, each once whatever the number of lists. The
    rows were just written, so the database joins them to the players faster than a scratch
    table filled from Python would.
    """
    quote = connection.ops.quote_name
    changes, periods_table = quote(RatingChange._meta.db_table), quote(RatingPeriod._meta.db_table)
    check_rating_lists(rating_lists)  # their names are written into the SQL below
    marks = ", ".join(["%s"] * len(rating_lists))
    # Each player's latest row on each list by a window over the rows from ``start`` on (rows
    # before it cannot be later): a sort, where an anti-join ("no later row exists") could turn
    # into a nested loop when the table's statistics predate the rows just written (measured:
    # a three-list federation's update ran for minutes). Then one row per player, a column
    # set per list (``on_<n>``: the player has a row on list n, so its fields are written).
    several = len(rating_lists) > 1  # else a row per player already: nothing to pivot
    pivot = ", ".join(
        (f"COUNT(*) FILTER (WHERE rating_list = '{name}') > 0" if several else "TRUE")
        + f" AS on_{n}, "
        + ", ".join(
            (f"MAX({value}) FILTER (WHERE rating_list = '{name}')" if several else value)
            + f" AS {value}_{n}"
            for value in _DERIVED
        )
        for n, name in enumerate(rating_lists)
    )
    row = """rc.player_id, rc.rating_list, rc.rating_after AS rating,
              rc.rated_games_after AS rated_games, rc.peak_after AS peak_rating,
              rc.last_rated_on, CASE WHEN rc.status = %s THEN rc.change END AS last_change"""
    where: int | date
    if len(periods) == 1:  # one row per player and list: each is the latest
        rows = f"SELECT {row} FROM {changes} rc WHERE rc.rating_list IN ({marks}) AND "
        rows += "rc.period_id = %s"
        where = periods[0].pk
    else:
        rows = f"""
            SELECT * FROM (
                SELECT {row}, ROW_NUMBER() OVER (PARTITION BY rc.player_id, rc.rating_list
                                                 ORDER BY p.start DESC) AS recency
                FROM {changes} rc JOIN {periods_table} p ON p.id = rc.period_id
                WHERE rc.rating_list IN ({marks}) AND p.start >= %s
            ) AS ranked
            WHERE recency = 1"""
        where = periods[0].start
    latest = f"""SELECT player_id, {pivot} FROM ({rows}) AS latest
                 {"GROUP BY player_id" if several else ""}"""
    params: list[Any] = [Status.RATED, *rating_lists, where]
    if len(periods) == 1 and several and connection.vendor == "postgresql":
        # One row per player and list: the lists' rows side by side by full joins (hashes of
        # 100,000 rows each), not 300,000 rows sorted and grouped (measured: 0.45 s less).
        joined, key, flags = "", "", []
        for n, name in enumerate(rating_lists):
            part = (
                f"(SELECT {row} FROM {changes} rc "
                f"WHERE rc.rating_list = '{name}' AND rc.period_id = %s) AS l{n}"
            )
            joined += f" FULL JOIN {part} ON l{n}.player_id = {key}" if key else part
            key = f"COALESCE({key}, l{n}.player_id)" if key else f"l{n}.player_id"
            flags.append(
                f"l{n}.player_id IS NOT NULL AS on_{n}, "
                + ", ".join(f"l{n}.{value} AS {value}_{n}" for value in _DERIVED)
            )
        latest = f"SELECT {key} AS player_id, {', '.join(flags)} FROM {joined}"
        params = [Status.RATED, periods[0].pk] * len(rating_lists)
    return _players_update(latest, params, rating_lists)


def players_from_columns(
    ids: np.ndarray, lists: Mapping[str, Sequence[bulk.Column]]
) -> tuple[str, list[Any]]:
    """The statement (SQL and parameters) that writes the players ``ids`` their derived fields
    on each list of ``lists``, given as columns aligned with ``ids``: whether the player has a
    row on the list (if not, that list's fields are left alone), then the values of
    ``_DERIVED`` in database form. ``players_from_rows``'s update, from values a replay
    carried in memory instead of the rows it wrote; the values go into a scratch table now.
    """
    check_rating_lists(list(lists))  # their names are written into the SQL below
    # One scratch table per set of lists, as ``bulk.update_rows`` keeps them.
    scratch = connection.ops.quote_name(f"ladder_latest_{'_'.join(lists)}")
    names, declared = ["player_id"], ["player_id bigint"]
    values: list[bulk.Column] = [ids]
    for n, (name, given) in enumerate(lists.items()):
        fields = [Player._meta.get_field(field) for field in LIST_FIELDS[name].derived]
        names += [f"on_{n}", *(f"{value}_{n}" for value in _DERIVED)]
        declared += [f"on_{n} boolean"]
        declared += [
            f"{value}_{n} {field.db_type(connection)}"
            for value, field in zip(_DERIVED, fields, strict=True)
        ]
        values += given
    drop = " ON COMMIT DROP" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {scratch} ({', '.join(declared)}){drop}"
        )
        cursor.execute(f"DELETE FROM {scratch}")
    with bulk.writing_into(scratch, names) as writer:
        writer.columns(values, len(ids))
    return _players_update(f"SELECT * FROM {scratch}", [], list(lists))


def _players_update(
    latest: str, params: list[Any], rating_lists: Sequence[str]
) -> tuple[str, list[Any]]:
    """The players' UPDATE from ``latest``, a query of one row a player: ``player_id``, and
    for each list n ``on_n`` (whether to write the list's fields) and ``<value>_n`` for each
    of ``_DERIVED``; only the players whose fields differ are written."""
    quote = connection.ops.quote_name
    players = quote(Player._meta.db_table)
    differ = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"
    several = len(rating_lists) > 1
    assignments, different = [], []
    for n, name in enumerate(rating_lists):
        # The query's own names (rating_0, ...) become the list's columns (rapid_rating, ...).
        fields = LIST_FIELDS[name]
        pairs = [(quote(column), f"{value}_{n}")
                 for value, column in zip(_DERIVED, fields.derived, strict=True)]  # fmt: skip
        assignments += [
            f"{column} = CASE WHEN l.on_{n} THEN l.{value} ELSE {players}.{column} END"
            if several
            else f"{column} = l.{value}"
            for column, value in pairs
        ]
        unequal = " OR ".join(f"{players}.{column} {differ} l.{value}" for column, value in pairs)
        different.append(f"(l.on_{n} AND ({unequal}))")
    return (
        f"UPDATE {players} SET {', '.join(assignments)} FROM ({latest}) AS l "
        f"WHERE {players}.id = l.player_id AND ({' OR '.join(different)})",
        params,
    )
