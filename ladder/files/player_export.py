"""A player's data export: everything Ladder stores about one person, as JSON or as CSV.

Sections, each a list of rows (``SECTIONS`` gives their columns): the player (identity and
base data), their entry data and state per list, every game (with the opponent's name), every
RatingChange row, the lines of published lists that name them, the revisions that changed
their line, every history version of their record (simple-history) and the admin's log of
their record. JSON is one object with a key a section (``player`` is the one row itself);
CSV is a zip with one file a section (``player.csv``, ``games.csv``, ...), each with its
header even when empty. Read in a constant number of queries, whatever the player's history.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from ladder.files.exports import csv_text
from ladder.records import LIST_FIELDS, Game, Player, RatingList, parse_fide_id
from ratings.models import Publication, PublishedRating, RatingChange

FORMAT = "ladder-player-export"
VERSION = 1
_IDENTITY = (
    "id",
    "name",
    "fide_id",
    "birth_year",
    "sex",
    "federation",
    "title",
    "national_federation",
    "national_id",
    "created",
    "updated",
)
_HISTORY_FIELDS = (
    "name",
    "fide_id",
    "birth_year",
    "sex",
    "federation",
    "title",
    "national_federation",
    "national_id",
    *(name for fields in LIST_FIELDS.values() for name in fields.entry),
)
SECTIONS: dict[str, tuple[str, ...]] = {
    "player": _IDENTITY,
    "lists": (
        "list",
        "entry_rating",
        "entry_rated_games",
        "entry_peak_rating",
        "rating",
        "rated_games",
        "peak_rating",
        "last_rated_on",
        "last_change",
    ),
    "games": (
        "id",
        "date",
        "period",
        "list",
        "colour",
        "opponent_id",
        "opponent",
        "result",
        "event",
        "round",
        "time_control",
        "created",
        "updated",
    ),
    "rating_changes": (
        "period",
        "start",
        "end",
        "list",
        "status",
        "rating_before",
        "k",
        "k_reason",
        "k_applied",
        "games",
        "score",
        "expected",
        "change_exact",
        "change",
        "rating_after",
        "performance",
        "rated_games_after",
        "peak_after",
        "last_rated_on",
        "first_event",
        "pool",
    ),
    "published_lines": (
        "period",
        "list",
        "revision",
        "published_at",
        "status",
        "rating",
        "change",
        "k",
        "games",
        "total_games",
    ),
    "published_revisions": (
        "period",
        "list",
        "revision",
        "published_at",
        "reason",
        "old_rating",
        "new_rating",
        "old_change",
        "new_change",
    ),
    "history": (
        "history_id",
        "history_date",
        "history_type",
        "history_user",
        "history_change_reason",
        *_HISTORY_FIELDS,
    ),
    "admin_log": ("action_time", "user", "action", "object_repr", "change_message"),
}
_HISTORY_TYPES = {"+": "created", "~": "changed", "-": "deleted"}
_LOG_ACTIONS = {
    ADDITION: "added",
    CHANGE: "changed",
    DELETION: "deleted",
}


def find_player(text: str) -> Player:
    """Return the player whose id or FIDE id ``text`` is (``pk:N`` or ``fide:N`` to say which);
    raise ``LookupError`` with a sentence when there is none, or when N names two players."""
    kind, _, number = text.strip().rpartition(":")
    value = parse_fide_id(number)
    if value is None or kind not in ("", "pk", "fide"):
        raise LookupError(
            f"'{text}' is not a player's id or FIDE id; give a whole number (pk:N or fide:N "
            "to say which)."
        )
    by_pk = Player.objects.filter(pk=value).first() if kind != "fide" else None
    by_fide = Player.objects.filter(fide_id=value).first() if kind != "pk" else None
    if by_pk and by_fide and by_pk != by_fide:
        raise LookupError(
            f"{value} is the id of {by_pk} and the FIDE id of {by_fide}; say which: "
            f"pk:{value} or fide:{value}."
        )
    found = by_pk or by_fide
    if found is None:
        what = {"": "id or FIDE id", "pk": "id", "fide": "FIDE id"}[kind]
        raise LookupError(f"No player has the {what} {value}.")
    return found


def player_data(player: Player, *, now: datetime | None = None) -> dict[str, Any]:
    """Everything stored about ``player``, section by section (see the module)."""
    sections = {
        "player": [{name: getattr(player, name) for name in _IDENTITY}],
        "lists": [_list_row(player, name) for name in RatingList.values],
        "games": _games(player),
        "rating_changes": _rating_changes(player),
        "published_lines": _published_lines(player),
        "published_revisions": _revisions(player),
        "history": _history(player),
        "admin_log": _admin_log(player),
    }
    stamp = {"format": FORMAT, "version": VERSION, "exported_at": now or timezone.now()}
    return {**stamp, **sections}


def as_json(data: dict[str, Any]) -> str:
    """The export as JSON: ``player`` is the player's row, every other section a list."""
    return json.dumps(
        {**data, "player": data["player"][0]}, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False
    )


def as_zip(data: dict[str, Any]) -> bytes:
    """The export as a zip of CSV files, one a section, formula cells neutralised."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for section, header in SECTIONS.items():
            rows = ([_cell(row[name]) for name in header] for row in data[section])
            archive.writestr(f"{section}.csv", csv_text(header, rows))
    return out.getvalue()


def export_name(player: Player, extension: str) -> str:
    """The file's name, ``player-12.json``: by id only, as a file name travels further."""
    return f"player-{player.pk}.{extension}"


def _cell(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | dict):
        return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)
    return value


def _list_row(player: Player, rating_list: str) -> dict[str, Any]:
    fields = LIST_FIELDS[rating_list]
    names = (*fields.entry, *fields.derived)
    return {"list": rating_list} | dict(
        zip(SECTIONS["lists"][1:], (getattr(player, name) for name in names), strict=True)
    )


def _games(player: Player) -> list[dict[str, Any]]:
    games = Game.objects.for_player(player).with_players().order_by("date", "pk")
    rows = []
    for game in games:
        white = game.white_id == player.pk
        opponent = game.black if white else game.white
        rows.append(
            {
                "id": game.pk,
                "date": game.date,
                "period": game.period.label,
                "list": game.rating_list,
                "colour": "white" if white else "black",
                "opponent_id": opponent.pk,
                "opponent": opponent.name,
                "result": game.result,
                "event": game.event,
                "round": game.round,
                "time_control": game.time_control,
                "created": game.created,
                "updated": game.updated,
            }
        )
    return rows


def _rating_changes(player: Player) -> list[dict[str, Any]]:
    changes = RatingChange.objects.filter(player=player).select_related("period")
    rows = []
    for rc in changes.order_by("period__start", "rating_list"):
        rows.append(
            {
                "period": rc.period.label,
                "start": rc.period.start,
                "end": rc.period.end,
                "list": rc.rating_list,
                "status": rc.status,
                "rating_before": rc.rating_before,
                "k": rc.k,
                "k_reason": rc.k_reason,
                "k_applied": rc.k_applied,
                "games": rc.games,
                "score": str(rc.score),
                "expected": str(rc.expected),
                "change_exact": str(rc.change_exact),
                "change": rc.change,
                "rating_after": rc.rating_after,
                "performance": rc.performance,
                "rated_games_after": rc.rated_games_after,
                "peak_after": rc.peak_after,
                "last_rated_on": rc.last_rated_on,
                "first_event": rc.first_event,
                "pool": rc.pool,
            }
        )
    return rows


def _published_lines(player: Player) -> list[dict[str, Any]]:
    lines = PublishedRating.objects.filter(player=player).select_related("publication__period")
    ordered = lines.order_by(
        "publication__period__start", "publication__rating_list", "publication__revision"
    )
    return [
        {
            "period": line.publication.period.label,
            "list": line.publication.rating_list,
            "revision": line.publication.revision,
            "published_at": line.publication.published_at,
            "status": line.status,
            "rating": line.rating,
            "change": line.change,
            "k": line.k,
            "games": line.games,
            "total_games": line.total_games,
        }
        for line in ordered
    ]


def _revisions(player: Player) -> list[dict[str, Any]]:
    """The revisions whose differences name the player (a few a period: read whole)."""
    revised = Publication.objects.exclude(differences=[]).select_related("period")
    rows = []
    for publication in revised.order_by("period__start", "rating_list", "revision"):
        for pid, old_rating, new_rating, old_change, new_change in _differences(publication):
            if pid == player.pk:
                rows.append(
                    {
                        "period": publication.period.label,
                        "list": publication.rating_list,
                        "revision": publication.revision,
                        "published_at": publication.published_at,
                        "reason": publication.reason,
                        "old_rating": old_rating,
                        "new_rating": new_rating,
                        "old_change": old_change,
                        "new_change": new_change,
                    }
                )
    return rows


def _differences(publication: Publication) -> Iterable[list[Any]]:
    return (line for line in publication.differences or [] if len(line) == 5)


def _history(player: Player) -> list[dict[str, Any]]:
    versions = player.history.select_related("history_user")
    return [
        {
            "history_id": v.history_id,
            "history_date": v.history_date,
            "history_type": _HISTORY_TYPES.get(v.history_type, v.history_type),
            "history_user": v.history_user.get_username() if v.history_user else None,
            "history_change_reason": v.history_change_reason,
        }
        | {name: getattr(v, name) for name in _HISTORY_FIELDS}
        for v in versions.order_by("history_date", "history_id")
    ]


def _admin_log(player: Player) -> list[dict[str, Any]]:
    kind = ContentType.objects.get_for_model(Player)
    entries = LogEntry.objects.filter(content_type=kind, object_id=str(player.pk))
    return [
        {
            "action_time": entry.action_time,
            "user": entry.user.get_username(),
            "action": _LOG_ACTIONS.get(entry.action_flag, str(entry.action_flag)),
            "object_repr": entry.object_repr,
            "change_message": entry.get_change_message(),
        }
        for entry in entries.select_related("user").order_by("action_time", "pk")
    ]
