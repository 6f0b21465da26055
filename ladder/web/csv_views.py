"""CSV downloads from the players' pages: a period's rating list and games, a player's history.

Adapters over ``ladder.files.exports``; each reads in a fixed number of queries.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext

from ladder.files import exports
from ladder.records import Player, RatingPeriod
from ladder.web import merged
from ladder.web.views import chosen_list


def _csv(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


def _period(label: str) -> RatingPeriod:
    if "\x00" in label:  # PostgreSQL refuses a NUL in a query parameter; no label holds one.
        raise Http404(gettext("No such period."))
    return get_object_or_404(RatingPeriod, label=label)


def period_list_csv(request, label: str) -> HttpResponse:
    """The list that closes a period, with the columns of ``rating_list --format csv``."""
    period, chosen = _period(label), chosen_list(request)
    return _csv(exports.rating_list_csv(period, chosen), f"rating-list-{chosen}-{period.label}")


def period_games_csv(request, label: str) -> HttpResponse:
    """A period's games in the games import format (``import_games`` reads it back)."""
    period = _period(label)
    return _csv(exports.period_games_csv(period), f"games-{period.label}")


def player_history_csv(request, pk: int) -> HttpResponse:
    """A player's rating history on one list, one row a period."""
    player, chosen = get_object_or_404(Player, pk=pk), chosen_list(request)
    if (moved := merged.moved(request, pk=player)) is not None:
        return moved
    name = exports.filename(player.name)
    return _csv(exports.history_csv(player, chosen), f"history-{chosen}-{name}")
