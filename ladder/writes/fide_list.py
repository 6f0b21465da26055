"""FIDE's monthly list into the club: the snapshot written in bulk, the identity changes of the
players it names, and the entry data of the players it adds (``actions.import_fide_list``).

The snapshot of a month is written with COPY on PostgreSQL (sent by a worker thread while the
next lines are read: ``ratings.recompute.bulk.writing``) and ``executemany`` on SQLite. A month
not imported yet is written straight into the table; a month imported already is replaced
whole by a file of all three lists, and updated list by list by a one-list file (staged in a
temporary table, then one ``INSERT ... ON CONFLICT DO UPDATE``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import islice

from django.db import connection
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext

from ladder.records import (
    ENTRY_RATING_FLOOR,
    LIST_FIELDS,
    MAX_RATING,
    FideListEntry,
    Player,
    RatingList,
    Title,
    name_key,
)
from ladder.records.fide_list import LIST_COLUMNS, ROW_FIELDS
from ladder.records.names import search_key
from ratings.recompute import bulk

_NUMBER_FIELDS = {f for f in ROW_FIELDS if f.endswith(("_rating", "_games", "_k"))} | {
    "fide_id",
    "birth_year",
}
_BATCH = 5_000
_TITLES = frozenset(Title.values)  # ``Title.values`` builds its list anew at every read
_STAGE = "ladder_fide_list_stage"
K_MASTER = 10  # FIDE's K once a player has been published at 2400 or more


@dataclass(frozen=True)
class Change:
    """One field of one player changed (or left, ``note`` saying why) by FIDE's list."""

    player: str
    fide_id: int
    field: str
    old: object
    new: object
    note: str = ""

    def __str__(self) -> str:
        said = f"{self.player} ({self.fide_id}): {self.field} {self.old!r} -> {self.new!r}"
        if self.note:
            return gettext("%(change)s NOT CHANGED: %(note)s") % {"change": said, "note": self.note}
        return said


@dataclass
class FideListReport:
    """What a FIDE list import did: the month, the rows stored, every change, the added."""

    month: date
    rows: int = 0
    matched: int = 0
    changes: list[Change] = field(default_factory=list)
    added: list[Player] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False

    def lines(self) -> list[str]:
        """The report as a rating officer reads it."""
        if self.dry_run:
            head = gettext(
                "FIDE list of %(month)s: %(rows)s players stored; %(matched)s of the club's "
                "players are on it; %(changes)s changes would be made, %(added)s players would "
                "be added."
            )
        else:
            head = gettext(
                "FIDE list of %(month)s: %(rows)s players stored; %(matched)s of the club's "
                "players are on it; %(changes)s changes were made, %(added)s players were added."
            )
        counts = {
            "month": f"{self.month:%Y-%m}",
            "rows": number_format(self.rows, force_grouping=True),
            "matched": self.matched,
            "changes": len(self.changes),
            "added": len(self.added),
        }
        return [
            head % counts,
            *(gettext("changed: %(change)s") % {"change": c} for c in self.changes),
            *(
                gettext("added: %(name)s (%(fide_id)s)") % {"name": p.name, "fide_id": p.fide_id}
                for p in self.added
            ),
            *self.notes,
        ]


def store(
    rows: Iterable[str], *, month: date, columns: Sequence[str], keep: KeepRule
) -> tuple[int, list[list[str]]]:
    """Write the month's snapshot from ``rows`` (COPY lines of ``columns``); return how many
    and the rows ``keep`` asks for (the club's players and those to add), split."""
    kept: list[list[str]] = []
    picked = keep.picker(kept, columns)
    every_list = all(c in columns for cols in LIST_COLUMNS.values() for c in cols)
    names = ("month", *columns)
    stored = FideListEntry.objects.filter(month=month)
    if stored.exists():
        if every_list:  # one DELETE (a QuerySet's delete collects every row for its signals)
            stored._raw_delete(stored.db)
        else:
            return _staged(map(picked, rows), month, columns), kept
    with bulk.gc_paused(), bulk.writing(FideListEntry, names) as writer:
        return _write(writer, map(picked, rows), month, columns), kept


def _write(writer: bulk.RowWriter, rows: Iterator[str], month: date, columns: Sequence[str]) -> int:
    count = 0
    if writer.copy is None:  # SQLite
        numbers = [c in _NUMBER_FIELDS for c in columns]
        batch: list[list[object]] = []
        for row in rows:
            batch.append([month, *_typed(row.split("\t"), numbers)])
            if len(batch) >= _BATCH:
                count += writer.rows(batch)
                batch = []
        return count + writer.rows(batch)
    prefix = f"{month.isoformat()}\t"
    joined = f"\n{prefix}"
    # Batches taken in C (``islice``): no Python step a row beyond the reader's own.
    while lines := list(islice(rows, _BATCH)):
        writer.copy.write((prefix + joined.join(lines) + "\n").encode())
        count += len(lines)
    return count


def _typed(values: list[str], numbers: list[bool]) -> list[object]:
    return [int(v) if number else _unescaped(v) for v, number in zip(values, numbers, strict=True)]


def _unescaped(value: str) -> str:
    if "\\" not in value:
        return value
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m[1], m[1]), value)


def _staged(rows: Iterator[str], month: date, columns: Sequence[str]) -> int:
    """Update a month's rows with a one-list file's: the file into a temporary table, then
    one upsert of the columns the file gives."""
    quote = connection.ops.quote_name
    table = quote(FideListEntry._meta.db_table)
    names = [quote(c) for c in ("month", *columns)]
    listed = ", ".join(names)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {_STAGE}")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_STAGE} AS SELECT {listed} FROM {table} WHERE 1 = 0"
        )
    with bulk.gc_paused(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {_STAGE} ({listed}) FROM STDIN") as copy:
                count = _write(bulk.RowWriter(_STAGE, names, copy), rows, month, columns)
        else:
            count = _write(bulk.RowWriter(_STAGE, names, None), rows, month, columns)
    updated = ", ".join(f"{quote(c)} = excluded.{quote(c)}" for c in columns if c != "fide_id")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {_STAGE} WHERE 1 = 1 "
            f"ON CONFLICT (month, fide_id) DO UPDATE SET {updated}"
        )
        cursor.execute(f"DROP TABLE {_STAGE}")
    return count


@dataclass
class KeepRule:
    """Which rows of the list the import looks at beyond the snapshot: the club's players
    (by FIDE id), and the players to add (``federation``, ``ids``)."""

    club: set[str]
    federation: str = ""
    ids: set[str] = field(default_factory=set)

    def picker(self, kept: list[list[str]], columns: Sequence[str]) -> Callable[[str], str]:
        """A pass-through of the rows that keeps (split) those this rule asks for."""
        club, ids, federation = self.club, self.ids, self.federation
        where = columns.index("federation")
        fields = list(columns)

        needle = f"\t{federation}\t"  # a cheap look first: most rows are of another

        def pick(row: str) -> str:
            fide_id = row[: row.find("\t")]
            if (
                fide_id in club
                or fide_id in ids
                or federation
                and needle in row
                and row.split("\t", where + 1)[where] == federation
            ):
                kept.append([fields, *row.split("\t")])  # type: ignore[list-item]
            return row

        return pick


def update_identity(players: Sequence[Player], fields: Sequence[str]) -> None:
    """Write the identity fields of players FIDE's list corrected, in one ``executemany``
    (pipelined by psycopg): ``bulk_update`` builds a CASE a field for every player, which
    took a minute for 2,000 players (measured)."""
    quote = connection.ops.quote_name
    now = timezone.now()
    if "name" in fields:  # the name search reads the stored key of the name
        fields = [*fields, "search_key"]
        for player in players:
            player.search_key = search_key(player.name)
    assignments = ", ".join(f"{quote(name)} = %s" for name in (*fields, "updated"))
    statement = f"UPDATE {quote(Player._meta.db_table)} SET {assignments} WHERE id = %s"
    with connection.cursor() as cursor:
        cursor.executemany(
            statement, [[*(getattr(p, name) for name in fields), now, p.pk] for p in players]
        )
    for player in players:
        player.updated = now


# --- what the list says of a player ------------------------------------------------------------


def listed(row: list) -> dict[str, object]:
    """A kept row as values by field name (numbers as int; a list the file lacks: None)."""
    columns, *values = row
    typed = _typed(values, [c in _NUMBER_FIELDS for c in columns])
    found: dict[str, object] = dict.fromkeys(ROW_FIELDS)
    found.update(zip(columns, typed, strict=True))
    return found


def title_of(values: dict[str, object]) -> str:
    """The player's FIDE title as the club stores it: the open title, else the women's."""
    for name in ("title", "women_title"):
        text = str(values[name] or "").upper()
        if text in _TITLES:
            return text
    return ""


def identity_changes(player: Player, values: dict[str, object]) -> dict[str, object]:
    """The identity fields of ``player`` that FIDE's row corrects, with their new values.

    The name changes unless it differs only by case, accents or spacing (FIDE's lists are
    plain ASCII; the club's accented spelling is kept). A blank federation or sex, or a birth
    year of 0, on the list leaves the club's value; the title follows the list."""
    changes: dict[str, object] = {}
    name = str(values["name"])
    if name_key(name) != name_key(player.name):
        changes["name"] = name
    for attr in ("federation", "sex"):
        given = str(values[attr] or "").upper()
        if given and given != getattr(player, attr):
            changes[attr] = given
    if values["birth_year"] and values["birth_year"] != player.birth_year:
        changes["birth_year"] = values["birth_year"]
    title = title_of(values)
    if title != player.title:
        changes["title"] = title
    return changes


def new_player(values: dict[str, object], notes: list[str]) -> Player:
    """A player added from FIDE's row, with entry data per list: the published rating (none:
    unrated), the games that rating stands on -- 30 at least when the K is below 40 (FIDE's
    K 40 ends at 30 games), else the games of the last period -- and a peak of 2400 at least
    when the K is 10 (FIDE's K once published at 2400)."""
    player = Player(
        name=str(values["name"]),
        fide_id=int(str(values["fide_id"])),
        federation=str(values["federation"] or "").upper(),
        sex=str(values["sex"] or "").upper(),
        birth_year=values["birth_year"] or None,  # type: ignore[misc]
        title=title_of(values),
    )
    for rating_list, (rating_name, games_name, k_name) in LIST_COLUMNS.items():
        rating, games, k = values[rating_name], values[games_name], values[k_name]
        fields = LIST_FIELDS[RatingList(rating_list)]
        if not rating:  # FIDE's 0: unrated; None: the file has no such list
            continue
        assert isinstance(rating, int)
        if not ENTRY_RATING_FLOOR <= rating <= MAX_RATING:
            notes.append(
                gettext(
                    "%(name)s (%(fide_id)s): the %(list)s rating %(rating)s is below the floor "
                    "of %(floor)s; added unrated on that list."
                )
                % {
                    "name": player.name,
                    "fide_id": player.fide_id,
                    "list": rating_list,
                    "rating": rating,
                    "floor": ENTRY_RATING_FLOOR,
                }
            )
            continue
        setattr(player, fields.entry_rating, rating)
        done = int(games or 0)  # type: ignore[call-overload]
        if k is not None and int(k) < 40:  # type: ignore[call-overload]
            done = max(done, 30)
        setattr(player, fields.entry_rated_games, done)
        if k == K_MASTER and rating < 2400:
            setattr(player, fields.entry_peak_rating, 2400)
    return player
