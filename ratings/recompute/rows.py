"""What a recompute writes: a RatingChange row in database form, and the players' fields."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from datetime import date
from typing import Any

from ladder.records import LIST_FIELDS, Player, RatingPeriod
from ratings.recompute import bulk
from ratings.recompute.summary import RatingMove
from ratings.rules import engine

Row = tuple[Any, ...]


def pool_to_json(pool: Iterable[engine.PoolGame]) -> list[Any]:
    return [[g.on.isoformat(), g.event, g.opponent_rating, g.score] for g in pool]


ROW_COLUMNS = (
    "player", "period", "rating_list", "status", "rating_before", "k", "k_reason", "k_applied",
    "games", "score_units", "expected_units", "change_exact_units", "change", "rating_after",
    "performance", "rated_games_after", "peak_after", "last_rated_on", "first_event", "pool",
    "adjustment", "adjusted_on", "opponents_total",
)  # fmt: skip


def change_row(
    pid: int, period: RatingPeriod, result: engine.PlayerPeriod, rating_list: str
) -> Row:
    """Return a RatingChange row in ``ROW_COLUMNS`` order, in database form."""
    state, k = result.state, result.k
    return (
        pid, period.pk, rating_list, result.status, result.rating_before, k.value if k else None,
        k.reason if k else "", result.k_applied, result.games, result.score, result.expected,
        result.change_exact, result.change, result.rating_after, result.performance,
        state.rated_games, state.peak_rating, state.last_rated_on, state.first_event or "",
        pool_text(result.pool) if result.pool else "[]", result.adjustment, result.adjusted_on,
        result.opponents_total,
    )  # fmt: skip


def pool_text(pool: Iterable[engine.PoolGame]) -> str:
    """``json.dumps(pool_to_json(pool))``, character for character, a few times faster.

    A federation's period writes some 10,000 pools of 170,000 games; encoding each game's
    date and event anew, then the nested lists, was about a tenth of the recompute (measured
    on the benchmark). A period's games share a few dates and events: each is encoded once.
    """
    parts = []
    for on, event, rating, score in pool:
        if type(rating) is not int or type(score) is not int:  # not a plain JSON integer
            return json.dumps(pool_to_json(pool))
        parts.append(f'["{_iso(on)}", {_json_text(event)}, {rating}, {score}]')
    return f"[{', '.join(parts)}]"


@functools.lru_cache(maxsize=4096)
def _iso(on: date) -> str:
    return on.isoformat()


@functools.lru_cache(maxsize=4096)
def _json_text(value: str) -> str:
    return json.dumps(value)


def write_players(
    final: dict[int, tuple[engine.PlayerState, int | None]],
    before: dict[int, Row],
    rating_list: str,
) -> list[RatingMove]:
    """Write the players' derived state on a list; return the players whose rating changed."""
    changed = []
    moves = []
    for pid, (state, last_change) in final.items():
        new = (state.rating, state.rated_games, state.peak_rating, state.last_rated_on, last_change)
        old = before.get(pid)
        if new != old:
            changed.append((pid, *new))
            if old is None or old[0] != state.rating:
                moves.append(RatingMove(pid, old[0] if old is not None else None, state.rating))
    bulk.update_rows(Player, LIST_FIELDS[rating_list].derived, changed)
    return moves


_POOL = ROW_COLUMNS.index("pool")
_LAST_RATED = ROW_COLUMNS.index("last_rated_on")
_ADJUSTED_ON = ROW_COLUMNS.index("adjusted_on")
# The row's columns that make the state on the next list (status through pool).
STATE = [ROW_COLUMNS.index(c) for c in ("status", "rating_after", "rated_games_after",
          "peak_after", "last_rated_on", "first_event", "pool")]  # fmt: skip


RATING_AFTER, CHANGE = ROW_COLUMNS.index("rating_after"), ROW_COLUMNS.index("change")
_AT = {name: ROW_COLUMNS.index(name) for name in ROW_COLUMNS}
_RATED = (engine.STATUS_RATED, engine.STATUS_BELOW_FLOOR)


def rating_met(row: Row) -> int | None:
    """The rating a stored row's player was met with in the period's tournaments (None:
    unrated then)."""
    return row[_AT["rating_before"]] if row[_AT["status"]] in _RATED else None


def stored_sums(row: Row | None, rating: int | None) -> engine.StoredSums | None:
    """A rated player's stored sums (``engine.rate_again``) when their row can be rated again
    from them: rated from ``rating`` on the opening list, without an adjustment, its opponents'
    total kept (rows written before it was kept have none)."""
    if row is None or rating is None:
        return None
    at = _AT
    if (
        row[at["status"]] not in _RATED
        or row[at["rating_before"]] != rating
        or row[at["adjustment"]]
        or row[at["opponents_total"]] is None
        or row[at["k_applied"]] is None
        or row[at["k"]] is None
    ):
        return None
    return engine.StoredSums(
        row[at["k"]], row[at["k_reason"]], row[at["k_applied"]], row[at["games"]],
        row[at["score_units"]], row[at["expected_units"]], row[at["opponents_total"]],
        row[at["last_rated_on"]],
    )  # fmt: skip


def comparable(row: Row) -> Row:
    """A row as the driver or ``change_row`` gives it, with its date and pool in Python form."""
    values = list(row)
    values[_LAST_RATED] = bulk.as_date(values[_LAST_RATED])
    values[_ADJUSTED_ON] = bulk.as_date(values[_ADJUSTED_ON])
    if isinstance(values[_POOL], str):
        values[_POOL] = json.loads(values[_POOL])
    return tuple(values)


def stored_form(row: Row) -> Row:
    values = list(row)
    values[_POOL] = json.dumps(values[_POOL])
    return tuple(values)
