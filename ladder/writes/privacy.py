"""Erasure: a person's name and personal fields replaced by a pseudonym, every rating kept.

What is removed: the name (replaced by "Erased player #<id>"), the FIDE id, sex, federation
and title, on the player's row and on every history version of it; the birth year too, unless
the junior rule (FIDE.md 8.3.3) could read it in a period the player has games in (then it
is an input of their K, and so of their opponents' ratings, and stays). The name is
also replaced wherever Ladder wrote it into a text: history reasons, period logs, reopen
reasons of published lists, rating runs, the admin's log and stored API answers.

What is kept: the player's id, entry data, games and ratings, so nobody's history changes;
published lists name players by id, so their lines stay as published and now read the
pseudonym. The erasure itself is the player's newest history version: who, when and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext

from ladder.records import Game, IdempotentRequest, PeriodLog, Player, RatingPeriod
from ladder.records import versions as data_version
from ladder.records.text import refuse_control_characters
from ratings.models import Publication, RatingRun
from ratings.rules import fide

ERASED = "Erased: "  # how an erasure's history version begins (its change reason)
# The personal fields and what each becomes; the birth year is decided per player.
_CLEARED: dict[str, Any] = {"fide_id": None, "sex": "", "federation": "", "title": ""}


@dataclass(frozen=True)
class Erasure:
    """What an erasure did."""

    player: Player
    kept_birth_year: bool
    versions_scrubbed: int
    texts_rewritten: int


def pseudonym(pk: int) -> str:
    return f"Erased player #{pk}"


def reason_room() -> int:
    """How long a reason may be: the history version keeps it whole, after ``ERASED``."""
    field = Player.history.model._meta.get_field("history_change_reason")
    return int(field.max_length or 100) - len(ERASED)


def check_reason(reason: str) -> str:
    """Return the reason stripped, or raise ``ValidationError`` on ``reason`` saying why not."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": gettext("Give a reason for the erasure; it is recorded.")})
    if len(reason) > reason_room():
        raise ValidationError(
            {
                "reason": gettext(
                    "Keep the reason to %(most)s characters (it has %(length)s); it is recorded "
                    "whole in the player's history."
                )
                % {"most": reason_room(), "length": len(reason)}
            }
        )
    try:
        refuse_control_characters(reason)
    except ValidationError as error:
        raise ValidationError({"reason": error.messages}) from error
    return reason


def erasure_version(player: Player) -> Any:
    """The history version that recorded the player's erasure, or None."""
    versions = player.history.filter(history_change_reason__startswith=ERASED)
    return versions.select_related("history_user").order_by("-history_date").first()


def already_erased_message(player: Player, version: Any) -> str:
    values = {
        "name": player.name,
        "when": f"{version.history_date:%Y-%m-%d %H:%M}",
        "user": version.history_user,
    }
    if version.history_user:
        return (
            gettext(
                "%(name)s was erased already on %(when)s by %(user)s; there is nothing left to "
                "erase."
            )
            % values
        )
    return (
        gettext("%(name)s was erased already on %(when)s; there is nothing left to erase.") % values
    )


def erase(*, player: Player, reason: str, user: Any) -> Erasure:
    """Erase ``player`` (locked by the caller, inside its transaction); see the module."""
    reason = check_reason(reason)
    version = erasure_version(player)
    if version is not None:
        raise ValidationError(already_erased_message(player, version))
    old_name, old_fide_id = player.name, player.fide_id
    keep_birth_year = birth_year_needed(player)
    cleared = {**_CLEARED, "name": pseudonym(player.pk)}
    if not keep_birth_year:
        cleared["birth_year"] = None
    for name, value in cleared.items():
        setattr(player, name, value)
    player.save()
    history = player.history
    newest = history.order_by("-history_date", "-history_id").first()
    history.filter(pk=newest.pk).update(history_change_reason=ERASED + reason, history_user=user)
    scrubbed = history.exclude(pk=newest.pk).update(**cleared)
    rewritten = _rewrite_texts(player, old_name, old_fide_id)
    data_version.bump_on_commit()
    return Erasure(player, keep_birth_year, scrubbed, rewritten)


def birth_year_needed(player: Player) -> bool:
    """Whether the junior rule could read the birth year: the player was a junior in the year
    of a period they have a game in, on any list (the year K is judged in, FIDE.md 8.3.3).
    Games, not rating changes: a run still queued has written no row for its period yet.
    Cleared otherwise, it changes no K, so no rating of theirs or anyone's."""
    if player.birth_year is None:
        return False
    years = set(Game.objects.for_player(player).values_list("period__start__year", flat=True))
    return any(fide.is_junior(player.birth_year, year) for year in years)


# --- texts Ladder wrote the name into ----------------------------------------------------------


def _rewrite_texts(player: Player, old_name: str, old_fide_id: int | None) -> int:
    """Replace the old name (and "Name (FIDE id)") by the pseudonym in every stored text that
    can hold it; return how many rows changed."""
    spelled = [f"{old_name} ({old_fide_id})", old_name] if old_fide_id else [old_name]
    patterns = [re.compile(rf"(?<!\w){re.escape(text)}(?!\w)", re.IGNORECASE) for text in spelled]
    new = pseudonym(player.pk)

    def replace(text: str) -> str:
        for pattern in patterns:
            text = pattern.sub(new, text)
        return text

    count = _own_log_entries(player, new)
    texts: list[tuple[type[models.Model], tuple[str, ...]]] = [
        (Player.history.model, ("history_change_reason",)),
        (Game.history.model, ("history_change_reason",)),
        (RatingPeriod.history.model, ("history_change_reason",)),
        (PeriodLog, ("reason",)),
        (Publication, ("reason",)),
        (RatingRun, ("reason", "summary", "error")),
        (LogEntry, ("object_repr", "change_message")),
    ]
    for model, fields in texts:
        count += _rewrite(model, fields, old_name, replace)
    return count + _rewrite_answers(replace, old_fide_id)


def _own_log_entries(player: Player, new: str) -> int:
    """The admin's log of the player's own page names them by ``str(player)``."""
    kind = ContentType.objects.get_for_model(Player)
    return LogEntry.objects.filter(content_type=kind, object_id=str(player.pk)).update(
        object_repr=new
    )


def _rewrite(
    model: type[models.Model], fields: tuple[str, ...], old: str, replace: Callable[[str], str]
) -> int:
    """Rewrite the ``fields`` of the rows of ``model`` that hold ``old`` in any of them."""
    holding = models.Q()
    for name in fields:
        holding |= models.Q(**{f"{name}__icontains": old})
    count = 0
    for row in model._default_manager.filter(holding).only("pk", *fields):
        changes = {name: replace(getattr(row, name) or "") for name in fields if getattr(row, name)}
        if any(changes[name] != getattr(row, name) for name in changes):
            model._default_manager.filter(pk=row.pk).update(**changes)
            count += 1
    return count


def _rewrite_answers(replace: Callable[[str], str], old_fide_id: int | None) -> int:
    """Stored API answers (``Idempotency-Key``, kept a day) that name the player."""
    count = 0
    for stored in IdempotentRequest.objects.exclude(response=None).only("pk", "response"):
        answer = _walk(stored.response, replace, old_fide_id)
        if answer != stored.response:
            IdempotentRequest.objects.filter(pk=stored.pk).update(response=answer)
            count += 1
    return count


def _walk(value: Any, replace: Callable[[str], str], fide_id: int | None) -> Any:
    if isinstance(value, str):
        return replace(value)
    if isinstance(value, list):
        return [_walk(item, replace, fide_id) for item in value]
    if isinstance(value, dict):
        return {
            key: None
            if key == "fide_id" and fide_id and item == fide_id
            else _walk(item, replace, fide_id)
            for key, item in value.items()
        }
    return value


def erased_ids(players: Iterable[Player]) -> set[int]:
    """The ids of those of ``players`` who were erased (one query)."""
    ids = [p.pk for p in players]
    history = Player.history.model
    return set(
        history.objects.filter(id__in=ids, history_change_reason__startswith=ERASED)
        .values_list("id", flat=True)
        .distinct()
    )
