"""Recomputing ratings: ``recompute_from`` (and ``recompute_lists``, several lists at once).

The modules: ``services`` (the two entry points), ``replay`` (the full replay), ``incremental``
(only the players a correction reaches), ``states`` (reading opening states), ``rows`` (what is
written), ``summary`` (what a recompute reports) and ``storage`` with ``bulk`` and ``columns``
(packing, COPY, binary reads, planner settings).
"""

from ratings.recompute.services import (
    LOCK_KEY,
    Recompute,
    recompute_from,
    recompute_lists,
    rules,
    try_recompute_lock,
)

__all__ = [
    "LOCK_KEY",
    "Recompute",
    "recompute_from",
    "recompute_lists",
    "rules",
    "try_recompute_lock",
]
