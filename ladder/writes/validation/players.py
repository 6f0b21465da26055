"""Players: new ones (a batch from a file or a tournament), entry data changes, deletions."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django.core.exceptions import ValidationError
from django.db.models import Field
from django.utils.translation import gettext

from ladder.exceptions import (
    PeriodClosedError,
    PlayersInvalid,
    batch_names,
)
from ladder.records import (
    PLAYER_ENTRY_FIELDS,
    BaseCorrection,
    Game,
    PeriodStatus,
    Player,
    RatingList,
    entry_fields,
)
from ladder.writes.validation.games import (
    IN_LIST_LIMIT,
    field_problems,
)
from ladder.writes.validation.look_alikes import check_look_alikes
from ratings.models import PublishedRating

# --- new players --------------------------------------------------------------------------------


def check_players(
    players: Sequence[Player], *, sources: Sequence[str] = ()
) -> list[dict[str, list[str]]]:
    """Check new players as every door enters them; return each one's problems by field.

    Each player is checked by the model's own validators (``full_clean`` of the entry data:
    the derived fields are not the door's), the batch for a FIDE id given twice (``sources``:
    how the door names each player, "line 5"), for a FIDE id a stored player has (one query)
    and for a name that only looks like another player's (``look_alikes``).
    """
    names = list(sources) or batch_names(len(players))
    problems: list[dict[str, list[str]]] = [{} for _ in players]
    first: dict[int, int] = {}  # FIDE id -> the index of the first player with it
    for index, player in enumerate(players):
        if not _plainly_valid(player):
            _player_checks(player, problems[index])
        if player.fide_id is not None:
            if player.fide_id in first:
                message = gettext("FIDE id %(fide_id)s is also on %(where)s.") % {
                    "fide_id": player.fide_id,
                    "where": names[first[player.fide_id]],
                }
                problems[index].setdefault("fide_id", []).append(message)
            first.setdefault(player.fide_id, index)
    _national_ids(players, names, problems)
    stored = Player.objects.exclude(fide_id=None)
    if len(first) <= IN_LIST_LIMIT:  # else read them all: SQLite limits a statement's values
        stored = stored.filter(fide_id__in=list(first))
    taken = {i for i in stored.values_list("fide_id", flat=True) if i in first} if first else ()
    for fide_id in sorted(taken):
        message = gettext("A player with FIDE id %(fide_id)s already exists.") % {
            "fide_id": fide_id
        }
        problems[first[fide_id]].setdefault("fide_id", []).append(message)
    for found, problem in zip(problems, check_look_alikes(players, sources=names), strict=True):
        if problem:
            found.setdefault("name", []).append(problem)
    return problems


def _national_ids(
    players: Sequence[Player], names: Sequence[str], problems: list[dict[str, list[str]]]
) -> None:
    """Refuse a national id given twice in the batch, or that a stored player has."""
    first: dict[tuple[str, str], int] = {}
    for index, player in enumerate(players):
        player.settle_national_id()
        if not player.national_id:
            continue
        key = (player.national_federation, player.national_id)
        if key in first:
            message = f"National id {' '.join(key)} is also on {names[first[key]]}."
            problems[index].setdefault("national_id", []).append(message)
        first.setdefault(key, index)
    if not first:
        return
    numbers = sorted({number for _, number in first})
    stored = Player.objects.exclude(national_id="")
    if len(numbers) <= IN_LIST_LIMIT:
        stored = stored.filter(national_id__in=numbers)
    for key in stored.values_list("national_federation", "national_id"):
        if key in first:
            message = f"A player with national id {' '.join(key)} already exists."
            problems[first[key]].setdefault("national_id", []).append(message)


def raise_for_players(problems: list[dict[str, list[str]]], sources: Sequence[str] = ()) -> None:
    """Raise ``PlayersInvalid`` when any player has a problem."""
    if any(problems):
        raise PlayersInvalid(problems, sources)


_DERIVED = [f.name for f in Player._meta.fields if not f.editable]
# What full_clean checks of a new player (the door's fields), and the one field whose every
# value differs (the FIDE id: checked, not remembered).
_CLEANED = [f for f in Player._meta.fields if f.editable and not f.primary_key]
_NAME = Player._meta.get_field("name")
_UNIQUE = {"fide_id"}


def _player_checks(player: Player, found: dict[str, list[str]]) -> None:
    try:
        # Uniqueness is checked for the whole batch at once, and every check constraint repeats
        # a field validator: Django checks a constraint with a query, three a row otherwise.
        player.full_clean(exclude=_DERIVED, validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            found.setdefault(name, []).extend(messages)


def _plainly_valid(player: Player) -> bool:
    """Say whether ``full_clean`` (as ``_player_checks`` calls it) would pass the player, in a
    few dictionary reads: each field's values repeat (ratings, years, federations), so each
    distinct value is cleaned once; a name of printable characters within the length passes
    the name's validators. False sends the player to full_clean for its messages."""
    for model_field in _CLEANED:
        value = getattr(player, model_field.attname)
        if model_field.blank and value in model_field.empty_values:
            continue
        if model_field is _NAME:
            if not (0 < len(value) <= (_NAME.max_length or 0) and value.isprintable()):
                return False
        elif model_field.name in _UNIQUE:
            if field_problems(model_field, value):
                return False
        elif not _cleans_cached(model_field.attname, value):
            return False
    try:
        player.clean()
    except ValidationError:
        return False
    return True


@functools.lru_cache(maxsize=8192)
def _cleans_cached(attname: str, value: Any) -> bool:
    return not field_problems(cast(Field, Player._meta.get_field(attname)), value)


# --- players' entry data ------------------------------------------------------------------------


def check_entry_change(player: Player) -> None:
    """Refuse a change to a stored player's entry data (or birth year) on a list where they have
    games in a closed period: those data shape every published list from their first game on,
    and published means published until the period is reopened (``PeriodClosedError``)."""
    if player.pk is None:
        return
    stored = Player.objects.filter(pk=player.pk).values(*PLAYER_ENTRY_FIELDS).first()
    if stored is None:
        return
    changed = {
        rating_list: [name for name in entry_fields(rating_list)
                      if getattr(player, name) != stored[name]]
        for rating_list in RatingList.values
    }  # fmt: skip
    changed = {name: fields for name, fields in changed.items() if fields}
    if not changed:
        return
    closed = (
        Game.objects.for_player(player)
        .filter(rating_list__in=list(changed), period__status=PeriodStatus.CLOSED)
        .values_list("rating_list", "period__label")
        .order_by("rating_list", "period__start")
    )
    first: dict[str, str] = {}
    for rating_list, label in closed:
        first.setdefault(rating_list, label)
    problems: dict[str, list[str]] = {}
    for rating_list, label in first.items():
        message = gettext(
            "%(name)s has %(list)s games in the published list of %(label)s, which "
            "their entry data shape; reopen it first (admin action 'Reopen', or: manage.py "
            "reopen_period %(label)s --reason '...') to change them."
        ) % {"name": player.name, "list": rating_list, "label": label}
        for name in changed[rating_list]:
            problems.setdefault(name, [message])
    if problems:
        raise PeriodClosedError(problems)


# --- deleting players ---------------------------------------------------------------------------


def check_player_deletion(players: Iterable[Player]) -> None:
    """Refuse to delete a player who has games, a line on a published list (published lists
    keep every line) or a base correction; every refused player is named in one
    ``ValidationError``."""
    players = sorted(players, key=lambda p: (p.name, p.pk))
    pks = [p.pk for p in players]
    played = {  # who has games (as white or as black)
        pk
        for colour in ("white", "black")
        for pk in Game.objects.filter(**{f"{colour}__in": pks})
        .order_by()
        .values_list(colour, flat=True)
        .distinct()
    }
    listed = dict(
        PublishedRating.objects.filter(player__in=pks)
        .order_by("player", "-publication__period__start")  # the first list wins the dict
        .values_list("player", "publication__period__label")
    )
    corrected = set(BaseCorrection.objects.filter(player__in=pks).values_list("player", flat=True))
    problems = []
    for player in players:
        if player.pk in played:
            problems.append(
                gettext("%(name)s has games in the ladder; a player with games cannot be deleted.")
                % {"name": player.name}
            )
        elif player.pk in listed:
            problems.append(
                gettext(
                    "%(name)s is on the published list of %(label)s; published "
                    "lists keep every line, so the player cannot be deleted."
                )
                % {"name": player.name, "label": listed[player.pk]}
            )
        elif player.pk in corrected:
            problems.append(
                gettext("%(name)s has base corrections; delete them first to delete the player.")
                % {"name": player.name}
            )
    if problems:
        raise ValidationError(problems)
