"""Write services for the club's records: every door (admin, API, import) enters games here.

Each validates fully before writing and writes in one transaction; the ``ratings`` app hears of
the change through signals and recomputes after the commit.
"""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from .models import Game, Player, RatingPeriod, closed_message, parse_fide_id


class PeriodClosedError(ValidationError):
    """A write into a closed period (the API answers 409 Conflict)."""


def resolve_player(text: str, *, field: str = "player") -> Player:
    """Find a player by FIDE id or exact name; raise a ``ValidationError`` naming ``field``."""
    text = (text or "").strip()
    if not text:
        raise ValidationError({field: "A player is required."})
    fide_id = parse_fide_id(text)
    if fide_id is not None:
        player = Player.objects.filter(fide_id=fide_id).first()
        if player is not None:
            return player
    matches = list(Player.objects.filter(name=text)[:2])
    if not matches:
        raise ValidationError({field: f"No player has the FIDE id or exact name '{text}'."})
    if len(matches) > 1:
        raise ValidationError(
            {field: f"Several players are named '{text}'; use the FIDE id instead."}
        )
    return matches[0]


def ensure_open(day: date, *, field: str = "date") -> None:
    """Raise ``PeriodClosedError`` if the period holding ``day`` is closed."""
    period = RatingPeriod.objects.containing(day).first()
    if period is not None and period.is_closed:
        raise PeriodClosedError({field: closed_message(period)})


@transaction.atomic
def record_game(
    *,
    date: date,
    white: Player,
    black: Player,
    result: str,
    event: str = "",
    round: str = "",
) -> Game:
    """Record one game after full validation; the rating recompute follows the commit."""
    if date:
        ensure_open(date)
    game = Game(date=date, white=white, black=black, result=result, event=event, round=round)
    game.full_clean()
    game.save()
    return game


@transaction.atomic
def record_games(*, games: list[dict]) -> list[Game]:
    """Record several games at once, all or none (one recompute follows the commit)."""
    return [record_game(**game) for game in games]


@transaction.atomic
def correct_game(*, game: Game, **changes) -> Game:
    """Correct a game (date, players, result, event, round); both periods must be open."""
    stored = Game.objects.select_related("period").get(pk=game.pk)
    if stored.period.is_closed:
        raise PeriodClosedError({"date": closed_message(stored.period)})
    for name, value in changes.items():
        if name not in {"date", "white", "black", "result", "event", "round"}:
            raise ValueError(f"A game has no field '{name}' to correct.")
        setattr(game, name, value)
    if game.date:
        ensure_open(game.date)
    game.full_clean()
    game.save()
    return game


@transaction.atomic
def delete_game(*, game: Game) -> None:
    """Delete a game of an open period; the recompute follows the commit."""
    stored = Game.objects.select_related("period").get(pk=game.pk)
    if stored.period.is_closed:
        raise PeriodClosedError({"date": closed_message(stored.period)})
    stored.delete()
