"""The rated players' RatingChange rows of a period, written as columns.

A federation's period rates some 90,000 players. Building a result object, a row tuple and a
COPY row for each cost about as much as the server's work to store them (measured on the
benchmark), so a full recompute turns ``engine.RatedColumns`` into the table's columns with
numpy and list operations and hands them to ``bulk.insert_columns``. The values are those that
``services._row`` gives for ``engine.rated_results``; the services' tests and the property test
of incremental recompute against full replay hold them equal.
"""

from __future__ import annotations

from datetime import date

import numpy as np
from django.db.models import Model

from . import bulk, engine


def insert_rated(
    model: type[Model],
    columns: tuple[str, ...],
    period_pk: int,
    rated: engine.RatedColumns,
    rating_list: str,
    writer: bulk.RowWriter | None = None,
) -> int:
    """Insert the rated players' rows of the period on a list; ``columns`` as
    ``services._ROW_COLUMNS``; with ``writer`` (``bulk.writing``), as part of its statement.

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
    n = len(rated.ids)
    below = rated.below_floor().tolist()
    after = rated.after.tolist()
    opening = rated.opening
    days = {day: date.fromordinal(day) for day in set(rated.last.tolist()) if day >= 0}
    return {
        "player": np.array(rated.ids, np.int64),
        "period": bulk.Same(period_pk),
        "rating_list": bulk.Same(rating_list),
        "status": [engine.STATUS_BELOW_FLOOR if b else engine.STATUS_RATED for b in below],
        "rating_before": [state.rating for state in opening],
        "k": [k.value for k in rated.k],
        "k_reason": [k.reason for k in rated.k],
        "k_applied": rated.applied,
        "games": rated.games,
        "score_units": rated.score,
        "expected_units": rated.expected,
        "change_exact_units": rated.exact,
        "change": rated.change,
        "rating_after": [None if b else a for b, a in zip(below, after, strict=True)],
        "performance": rated.performance,
        "rated_games_after": (
            np.fromiter((state.rated_games for state in opening), np.int64, n) + rated.games
        ),
        "peak_after": [
            state.peak_rating if b else peak
            for state, b, peak in zip(opening, below, rated.peak.tolist(), strict=True)
        ],
        "last_rated_on": [days.get(day) for day in rated.last.tolist()],
        "first_event": [state.first_event or "" for state in opening],
        "pool": bulk.Same("[]"),
    }
