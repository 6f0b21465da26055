"""The rated players' RatingChange rows of a period, written as columns.

A federation's period rates some 90,000 players. Building a result object, a row tuple and a
COPY row for each cost about as much as the server's work to store them (measured on the
benchmark), so a full recompute turns ``engine.RatedColumns`` into the table's columns with
numpy and list operations and hands them to ``bulk.insert_columns``. The values are those that
``rows.change_row`` gives for ``engine.rated_results``; the services' tests and the property test
of incremental recompute against full replay hold them equal.
"""

from __future__ import annotations

from datetime import date

import numpy as np
from django.db.models import Model

from ratings.recompute import bulk
from ratings.rules import engine


def insert_rated(
    model: type[Model],
    columns: tuple[str, ...],
    period_pk: int,
    rated: engine.RatedColumns,
    rating_list: str,
    writer: bulk.RowWriter | None = None,
) -> int:
    """Insert the rated players' rows of the period on a list; ``columns`` as
    ``rows.ROW_COLUMNS``; with ``writer`` (``bulk.writing``), as part of its statement.

    Returns the number of rows.
    """
    values = rated_columns(period_pk, rated, rating_list)
    ordered = [values[name] for name in columns]
    if writer is not None:
        return writer.columns(ordered, len(rated.ids))
    return bulk.insert_columns(model, columns, ordered, len(rated.ids))


def rated_columns(
    period_pk: int, rated: engine.RatedColumns, rating_list: str = "standard"
) -> dict[str, bulk.Column]:
    """The rows' values by column name, in database form (see ``bulk.Column``)."""
    below = rated.below_floor()
    opening = rated.opening
    days = {day: date.fromordinal(day) for day in set(rated.last.tolist()) if day >= 0}
    # Below the floor: no rating after, the peak as it was (None if there was none).
    peak = np.where(below, opening.peak, rated.peak)
    return {
        "player": np.array(rated.ids, np.int64),
        "period": bulk.Same(period_pk),
        "rating_list": bulk.Same(rating_list),
        "status": [engine.STATUS_BELOW_FLOOR if b else engine.STATUS_RATED for b in below.tolist()],
        "rating_before": opening.rating,
        "k": rated.k,
        "k_reason": rated.k_reason,
        "k_applied": rated.applied,
        "games": rated.games,
        "score_units": rated.score,
        "expected_units": rated.expected,
        "change_exact_units": rated.exact,
        "change": rated.change,
        "rating_after": _nullable(rated.after, below),
        "performance": rated.performance,
        "rated_games_after": opening.rated_games + rated.games,
        "peak_after": _nullable(peak, peak < 0),
        "last_rated_on": [days.get(day) for day in rated.last.tolist()],
        "first_event": [event or "" for event in opening.first_event],
        "pool": bulk.Same("[]"),
        "adjustment": bulk.Same(0),
        "adjusted_on": bulk.Same(None),
        "opponents_total": rated.opponents,
    }


def _nullable(values: np.ndarray, null: np.ndarray) -> bulk.Column:
    """A column of integers, None where ``null`` (an array if there is none)."""
    return nullable(values, null) if null.any() else values


def nullable(values: np.ndarray, null: np.ndarray) -> list[int | None]:
    """Integers as Python values, None where ``null``."""
    found: list[int | None] = values.tolist()
    for k in np.flatnonzero(null).tolist():
        found[k] = None
    return found
