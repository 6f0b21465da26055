"""Head-to-head pages: every game between two players with its effect on each, and the
"compare with…" search on a player's page that leads there.

Adapters only: the games, their explanations and their effects come from
``selectors.head_to_head``; players are found by the write path's one lookup (the same
sentences as every door). Each page reads in a fixed number of queries.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from ladder.records import Player, kept_lists
from ladder.records.names import name_key
from ladder.web import merged
from ladder.writes.validation import PlayerLookup
from ratings import selectors

NAME_MAX = Player._meta.get_field("name").max_length or 200


def head_to_head(request, pk: int, other: int) -> HttpResponse:
    """Show every game between two players, by list: the score, then each game with its date,
    event and round, and each side's rating used, expected score and rating effect."""
    first = get_object_or_404(Player, pk=pk)
    if other == pk:
        problem = f"{first.name} cannot be compared with themselves: choose another player."
        context = {"player": first, "problem": problem, "typed": "", "candidates": []}
        return render(request, "ladder/compare.html", context, status=404)
    second = get_object_or_404(Player, pk=other)
    if (moved := merged.moved(request, pk=first, other=second)) is not None:
        return moved
    found = selectors.head_to_head(first, second)
    first_points, second_points = found.score
    context = {
        "player": first,
        "first": first,
        "second": second,
        "h2h": found,
        "score": (points(first_points), points(second_points)),
        "sections": [_section(found, record) for record in found.records],
        "many_lists": len(kept_lists()) > 1 or len(found.records) > 1,
        "reverse_url": reverse("ladder:head-to-head", args=[second.pk, first.pk]),
    }
    return render(request, "ladder/head_to_head.html", context)


def _section(found: selectors.HeadToHead, record: selectors.Record) -> dict[str, Any]:
    first_points, second_points = record.score
    first_expected, second_expected = record.expected
    first_effect, second_effect = record.effect
    return {
        "record": record,
        "score": (points(first_points), points(second_points)),
        "totals": [
            {
                "player": found.first,
                "score": points(first_points),
                "expected": first_expected,
                "effect": first_effect,
            },
            {
                "player": found.second,
                "score": points(second_points),
                "expected": second_expected,
                "effect": second_effect,
            },
        ],  # fmt: skip
        "games": [
            {
                "game": m.game,
                "sides": [
                    _side(found.first, m.first, m.second),
                    _side(found.second, m.second, m.first),
                ],
            }
            for m in record.meetings
        ],
    }


def _side(player: Player, side: selectors.Side, other: selectors.Side) -> dict[str, Any]:
    line = side.line
    return {
        "player": player,
        "colour": line.colour,
        "score": points(line.score) if line.score is not None else "",
        "rating_used": other.line.opponent_rating,  # the other side's opponent is this player
        "calculation": line.calculation,
        "k": side.k,
        "effect": side.effect,
        "note": line.note,
    }


def points(value: Decimal) -> str:
    """A score as a chess player writes it: 2½, ½, 0."""
    whole, half = divmod(value, 1)
    text = str(int(whole)) if whole or not half else ""
    return text + ("½" if half else "")


def compare(request, pk: int) -> HttpResponse:
    """Find the player typed in "compare with…" (a name or a FIDE id, as every door finds
    players) and go to the head-to-head page; else say why, with the players meant if any."""
    player = get_object_or_404(Player, pk=pk)
    if (moved := merged.moved(request, pk=player)) is not None:
        return moved
    typed = request.GET.get("name", "")[:NAME_MAX]
    context: dict[str, Any] = {"player": player, "typed": typed, "problem": "", "candidates": []}
    if "name" in request.GET:
        lookup = PlayerLookup.load(light=True)
        try:
            other = lookup.find(typed)
        except LookupError as error:
            context["problem"] = str(error)
            context["candidates"] = _candidates(lookup, typed, player)
        else:
            if other.pk != player.pk:
                return redirect("ladder:head-to-head", pk=player.pk, other=other.pk)
            context["problem"] = f"That is {player.name}: choose another player to compare with."
    return render(request, "ladder/compare.html", context)


def _candidates(lookup: PlayerLookup, typed: str, player: Player) -> list[dict[str, Any]]:
    """The players a name that found none or several may mean: the namesakes, else the close
    names (as the lookup's "Did you mean"), each with a link to the head-to-head page."""
    key = name_key(typed)
    found = list(lookup.by_name.get(key, []))
    if not found and key:
        found = [p for group in lookup.close(typed) for p in group]
    return [
        {"player": p, "url": reverse("ladder:head-to-head", args=[player.pk, p.pk])}
        for p in found
        if p.pk != player.pk
    ]
