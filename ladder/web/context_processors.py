"""Template context for every page: how fresh the ratings are (read only when a page shows it)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from ratings import runs


def freshness(request: HttpRequest) -> dict[str, object]:
    return {"freshness": SimpleLazyObject(runs.freshness)}
