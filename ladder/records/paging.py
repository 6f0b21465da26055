"""Pages of a list of records, as every door pages them."""

from __future__ import annotations

from typing import Any

from django.core import paginator


class Paginator(paginator.Paginator):
    """Django's ``Paginator``, which finds the count of a short first page from its rows.

    Django counts the rows (one ``COUNT`` query) before it reads any page. The first page is
    read whatever the count, and when it holds fewer rows than a page, those are all the rows:
    a club smaller than a page, a search with few matches, a player's history of a few periods
    ask no count (a query of the standings' ten, on the demo club two of them). Any other page,
    or a first page that is full, is counted as Django counts it.

    ``count``: the number of rows when the caller has it already (read with another count),
    so that Django asks none and an empty list reads no page.
    """

    def __init__(
        self, object_list: Any, per_page: int, *, count: int | None = None, **options: Any
    ) -> None:
        super().__init__(object_list, per_page, **options)
        if count is not None:
            vars(self)["count"] = count  # Django's ``count`` is a cached property

    def validate_number(self, number: Any) -> int:
        if self._first(number):  # the first page is always there (an empty one allowed)
            return 1
        return super().validate_number(number)

    def page(self, number: Any) -> paginator.Page:
        if not self._first(number) or "count" in vars(self):
            return super().page(number)
        rows = list(self.object_list[: self.per_page])
        if len(rows) < self.per_page:
            vars(self)["count"] = len(rows)  # Django's ``count`` is a cached property
        return self._get_page(rows, 1, self)  # type: ignore[attr-defined]  # not in the stubs

    def _first(self, number: Any) -> bool:
        # Orphans let the first page hold more than ``per_page``: counted as Django counts.
        return (
            number in (1, "1")
            and type(number) is not bool
            and self.allow_empty_first_page
            and not self.orphans
        )
