"""What each player's latest row of a full replay holds, carried in memory beside their state.

A replay of many periods ends by writing every player's derived fields from their latest row
on each list. Read back from the rows, that is a sort of every row the replay wrote (9 million
at a federation's size: 9.5 of the statement's 10.3 s, measured). The replay carries each
player's state from period to period anyway, and the state a row leaves is the row's (the
rows' state columns are what opens the next period): what it lacks is whether the replay wrote
the player a row at all, and the change of that row, which the players keep as
``last_change`` when the row rated them. ``LatestRows`` keeps those two, a column each, and
the rating after the row, from which the replay reports whose rating moved.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import numpy as np

from ratings.recompute import bulk, columns
from ratings.recompute.states import EntryStates
from ratings.rules import engine

# ``last_change`` of a player whose latest row did not rate them (a newcomer, below the
# floor, an adjustment alone): none.
_NONE = np.iinfo(np.int64).min


class LatestRows:
    """For every player of a replay's entry table on one list: whether the replay has written
    them a row, the rating after the latest one (-1 for none) and its change when it rated
    them (``last_change``)."""

    def __init__(self, ids: np.ndarray) -> None:
        self._ids = ids
        self._written = np.zeros(len(ids), bool)
        self._after = np.full(len(ids), -1, np.int64)
        self._change = np.full(len(ids), _NONE, np.int64)

    def put_rated(self, rated: engine.RatedColumns) -> None:
        """The rows of a period's rated players (``columns.rated_columns``)."""
        position = np.searchsorted(self._ids, np.asarray(rated.ids, np.int64))
        below = rated.below_floor()
        self._written[position] = True
        self._after[position] = np.where(below, -1, rated.after)
        self._change[position] = np.where(below, _NONE, rated.change)

    def put_results(self, results: Mapping[int, engine.PlayerPeriod]) -> None:
        """The rows of these results (``rows.change_row``: newcomers)."""
        if not results:
            return
        ids = np.fromiter(results, np.int64, len(results))
        position = np.searchsorted(self._ids, ids)
        self._written[position] = True
        self._after[position] = [
            -1 if r.rating_after is None else r.rating_after for r in results.values()
        ]
        self._change[position] = [
            r.change if r.status == engine.STATUS_RATED else _NONE for r in results.values()
        ]

    def put_raised(self, ids: np.ndarray, after: np.ndarray, *, own: bool = True) -> None:
        """The rows of players a one-off adjustment raised (``replay.Raised``), ``after`` their
        new ratings: rows of their own ("adjusted", which rate nobody); not ``own``, the rows of
        players who played, raised (the change the games made stays)."""
        position = np.searchsorted(self._ids, ids)
        self._written[position] = True
        self._after[position] = after
        if own:
            self._change[position] = _NONE

    @property
    def written(self) -> np.ndarray:
        """Whether each player has a row (a boolean column in the table's id order)."""
        return self._written

    @property
    def after(self) -> np.ndarray:
        """The rating after each player's latest row, -1 for none (or no row)."""
        return self._after

    def fields(self, states: EntryStates, at: np.ndarray) -> list[bulk.Column]:
        """The players' derived fields on the list (``storage._DERIVED``, in database form)
        and first whether they have a row, for the players at positions ``at``, from the
        ``states`` closing the replay's last period."""
        found = states.state_columns(self._ids[at])
        days = {day: date.fromordinal(day) for day in set(found.last.tolist()) if day >= 0}
        change = self._change[at]
        return [
            self._written[at],
            columns.nullable(found.rating, found.rating < 0),
            found.rated_games,
            columns.nullable(found.peak, found.peak < 0),
            [days.get(day) for day in found.last.tolist()],
            columns.nullable(change, change == _NONE),
        ]
