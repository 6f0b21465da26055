"""Old links of a merged player: the same page of the player kept (a permanent redirect)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.urls import reverse

from ladder.records import Player
from ladder.records.merges import kept_for


def moved(request: HttpRequest, **players: Player) -> HttpResponsePermanentRedirect | None:
    """The redirect to this page with each merged player (by its URL argument's name) replaced
    by the player kept; None when none of them was merged."""
    if all(player.merged_into_id is None for player in players.values()):
        return None
    match = request.resolver_match
    assert match is not None  # a view resolved from its URL
    kwargs = dict(match.kwargs) | {name: kept_for(p) for name, p in players.items()}
    query = request.META.get("QUERY_STRING")
    url = reverse(match.view_name, kwargs=kwargs) + (f"?{query}" if query else "")
    return HttpResponsePermanentRedirect(url)
