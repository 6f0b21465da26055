"""Every exception the ratings app defines, in one place: its modules import them from here.

Each message is a sentence a club administrator understands: a rating run records it as its
error, and the admin and the commands show it.
"""

from __future__ import annotations

from collections.abc import Iterable


class RatingsError(Exception):
    """Base of the ratings app's own errors."""


class UnknownRatingList(RatingsError, ValueError):
    """A recompute was asked for a rating list the club does not keep."""

    def __init__(self, unknown: Iterable[str], known: Iterable[str]) -> None:
        self.unknown = sorted(unknown)
        super().__init__(
            f"Unknown rating lists: {', '.join(self.unknown)}. "
            f"The club keeps these lists: {', '.join(known)}."
        )


class StorageError(RatingsError):
    """A table cannot be read or written by the recompute's bulk statements."""


class RunQueueError(RatingsError):
    """The queue of rating runs is not as a request or a retry found it a moment before."""
