"""Request hygiene shared by every page, the admin and the API."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, QueryDict


class StripNulMiddleware:
    """Drop NUL characters from the query string's names and values.

    No stored text holds a NUL (every door refuses one), and PostgreSQL refuses one in a query
    parameter with an error; ``?result=%00`` in the admin's games list answered 500.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            cleaned = query.replace("%00", "").replace("\x00", "")
            request.GET = QueryDict(cleaned, encoding=request.encoding)
        return self.get_response(request)
