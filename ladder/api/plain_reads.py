"""The API's busiest reads as plain values: a player, a page of players, a page of history,
how fresh the ratings are.

``PlayerSerializer`` and ``HistorySerializer`` stay what the schema documents and what the
writes validate with; the reads build the same JSON from plain values here. DRF builds a
serializer's thirty fields afresh for each request and walks them for each row (measured with
the read cache off: three quarters of a player's detail, most of a 50-player page). The keys
come from the serializers' own ``Meta.fields``, in their order (a player's written out, field
by field), and ``tests/api/test_plain_reads.py`` holds each builder's JSON equal to its
serializer's to the byte, so the two cannot drift.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import get_language
from rest_framework import ISO_8601, serializers
from rest_framework.settings import api_settings
from rest_framework.utils.encoders import JSONEncoder

from ladder.api.serializers import (
    ChangeSerializer,
    PeriodRefSerializer,
    PlayerRefSerializer,
    fide_list_data,
    k_data,
    official_data,
)
from ladder.records import LIST_FIELDS, FideListEntry, Player, RatingList, fide_list, kept_lists
from ladder.records.translations import rules_text
from ratings import selectors
from ratings.models import Publication, RatingChange
from ratings.publication import official
from ratings.rules import fide
from ratings.runs.status import Freshness

# DRF's own representation of a date-time (the current time zone, "Z" for UTC): one field,
# never bound, so that the text is the serializers' to the character.
_DATETIME = serializers.DateTimeField()
_ENCODER = JSONEncoder()

_CHANGE_FIELDS = tuple(ChangeSerializer.Meta.fields)
_CHANGE_TEXTS = {"k_reason", "adjustment_reason"}  # sentences of the rules, translated
_CHANGE_DECIMALS = {"score", "expected", "change_exact"}  # exact digits, as text
_PERIOD_FIELDS = tuple(PeriodRefSerializer.Meta.fields)
_REF_FIELDS = tuple(PlayerRefSerializer.Meta.fields)


def _value(value: Any) -> Any:
    """A model field's value as ModelSerializer writes it (None stays None)."""
    if isinstance(value, datetime):
        return _DATETIME.to_representation(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


# What a player's read needs beside the player, read with the players (``read_with``)
# rather than in queries of its own: the latest open period's start (the year K is counted
# in) and the player's row of FIDE's newest list (JSON).
OPEN_START = "ladder_open_period_start"
FIDE_ROW = "ladder_fide_row"
_UNREAD = object()


def read_with() -> dict[str, Any]:
    """The annotations a players' query takes for ``players_data``."""
    return {OPEN_START: selectors.latest_open_start(), FIDE_ROW: fide_list.latest_row_of()}


def players_data(players: Sequence[Player]) -> list[dict[str, Any]]:
    """``PlayerSerializer(players, many=True).data`` as plain values: the page's official
    lines and FIDE rows in three queries, the year K is counted in in one (none when the
    players were read with ``OPEN_START``)."""
    lists = kept_lists()
    officials = official.official_lists(lists, players)
    fide_rows = _fide_rows(players)
    start: Any = vars(players[0]).get(OPEN_START, _UNREAD) if players else _UNREAD
    year = selectors.current_year() if start is _UNREAD else selectors.year_from(start)
    page = _Page(year, timezone.localdate())
    # Each list's lines, its publication as written and its entry fields, once a page.
    plan = [
        (name, officials[name], page.published(officials[name].publication), _ENTRY[name])
        for name in lists
    ]
    return [_player(p, plan, fide_rows, page) for p in players]


def _fide_rows(players: Sequence[Player]) -> dict[int, FideListEntry]:
    """The players' rows of FIDE's newest list by FIDE id: from their query (``read_with``),
    else in one of their own."""
    if not players or FIDE_ROW not in vars(players[0]):
        return FideListEntry.objects.latest_for(p.fide_id for p in players)
    found = {}
    for player in players:
        row = fide_list.row_from(vars(player)[FIDE_ROW]) if player.fide_id else None
        if row is not None:
            found[row.fide_id] = row
    return found


def player_data(player: Player) -> dict[str, Any]:
    """``PlayerSerializer(player).data`` as plain values."""
    return players_data([player])[0]


class _Page:
    """What every row of a page shares: the year K is counted in, today, each K as written
    (a K's reason is a sentence of the rules, translated: once per K, not per row), and DRF's
    date-time field with the current time zone read once (twice a row was a tenth of a list)."""

    def __init__(self, year: int, today: date) -> None:
        self.year, self.today = year, today
        self._ks: dict[tuple[int, str], dict[str, Any] | None] = {}
        self._published: dict[int, dict[str, Any] | None] = {}
        self._language = get_language()
        self.club_k = selectors.current_club_k()
        self._zone = timezone.get_current_timezone() if settings.USE_TZ else None
        self._datetimes = (
            serializers.DateTimeField(default_timezone=self._zone) if self._zone else _DATETIME
        )
        if api_settings.DATETIME_FORMAT is None or api_settings.DATETIME_FORMAT.lower() != ISO_8601:
            self._zone = None  # a format of the project's own: DRF's field writes it

    def value(self, value: Any) -> Any:
        """``_value``, the time zone read once."""
        if isinstance(value, datetime):
            if self._zone is not None and value.utcoffset() is not None:
                # DRF's ``DateTimeField.to_representation`` of an aware date-time, inline.
                text = value.astimezone(self._zone).isoformat()
                return text[:-6] + "Z" if text.endswith("+00:00") else text
            return self._datetimes.to_representation(value)
        return _value(value)

    def published(self, publication: Publication | None) -> dict[str, Any] | None:
        """``official_data``'s ``official_list`` of a publication, once a page: every row of
        a list shares it."""
        if publication is None:
            return None
        found = self._published.get(publication.pk)
        if found is None:
            found = official_data(official.Standing(None, None, publication, False))
            found = self._published[publication.pk] = found["official_list"]
            # As text, as the JSON renderer writes it (DRF's encoder), once a page.
            found["published_at"] = _ENCODER.default(found["published_at"])
        return found

    def k(self, k: fide.KFactor | None) -> dict[str, Any] | None:
        if k is None:
            return None
        # By its value and reason, as a plain tuple: a frozen dataclass hashes in Python, a
        # tenth of a page; players of different states often share a K's text.
        key = (k.value, k.reason)
        found = self._ks.get(key)
        if found is None:
            found = self._ks[key] = k_data(k, self._language)
        return found


def _player(
    player: Player,
    plan: list[tuple[str, official.OfficialList, dict[str, Any] | None, Any]],
    fide_rows: dict[int, FideListEntry],
    page: _Page,
) -> dict[str, Any]:
    # Written out, field by field in ``PlayerSerializer.Meta.fields``' order (its test holds
    # the JSON equal to the serializer's, to the byte): a loop over the fields, asking each
    # whether it is computed or a date, was a third of a 50-player page's time.
    today, year, club_k, value = page.today, page.year, page.club_k, page.value
    pk, birth_year = player.id, player.birth_year
    ratings: dict[str, dict[str, Any]] = {}
    for name, listed, published, entry in plan:
        state = player.on_list(name)
        on_official, provisional = listed.official(pk, state.rating)
        rated_on = state.last_rated_on  # as text: the JSON renderer's callback, once a list
        entry_rating, entry_games, entry_peak = entry(player)
        ratings[name] = {
            "rating": state.rating,
            "official_rating": on_official,
            "official_list": published,
            "provisional": provisional,
            "rated_games": state.rated_games,
            "peak_rating": state.peak_rating,
            "last_rated_on": None if rated_on is None else rated_on.isoformat(),
            "last_change": state.last_change,
            "k": page.k(
                selectors.k_on_list(state, birth_year=birth_year, year=year, club_k=club_k)
            ),
            "inactive": selectors.inactive_on_list(state, on=today),
            "entry_rating": entry_rating,
            "entry_rated_games": entry_games,
            "entry_peak_rating": entry_peak,
        }
    standard = ratings.get(RatingList.STANDARD)
    if standard is None:  # a club without the standard list: nothing official on it
        own = player.on_list(RatingList.STANDARD)
        official_rating, official_list, provisional = None, None, player.rating is not None
        k = page.k(selectors.k_on_list(own, birth_year=birth_year, year=year, club_k=club_k))
        inactive = selectors.inactive_on_list(own, on=today)
    else:
        official_rating, official_list = standard["official_rating"], standard["official_list"]
        provisional, k, inactive = standard["provisional"], standard["k"], standard["inactive"]
    row = fide_rows.get(player.fide_id) if player.fide_id else None
    last_rated_on = player.last_rated_on
    return {
        "id": pk,
        "name": player.name,
        "fide_id": player.fide_id,
        "birth_year": birth_year,
        "sex": player.sex,
        "federation": player.federation,
        "title": player.title,
        "national_federation": player.national_federation,
        "national_id": player.national_id,
        "entry_rating": player.entry_rating,
        "entry_rated_games": player.entry_rated_games,
        "entry_peak_rating": player.entry_peak_rating,
        "rapid_entry_rating": player.rapid_entry_rating,
        "rapid_entry_rated_games": player.rapid_entry_rated_games,
        "rapid_entry_peak_rating": player.rapid_entry_peak_rating,
        "blitz_entry_rating": player.blitz_entry_rating,
        "blitz_entry_rated_games": player.blitz_entry_rated_games,
        "blitz_entry_peak_rating": player.blitz_entry_peak_rating,
        "rating": player.rating,
        "official_rating": official_rating,
        "official_list": official_list,
        "provisional": provisional,
        "rated_games": player.rated_games,
        "peak_rating": player.peak_rating,
        "last_rated_on": None if last_rated_on is None else last_rated_on.isoformat(),
        "last_change": player.last_change,
        "k": k,
        "level": fide.level(player.title, player.rating),
        "inactive": inactive,
        "ratings": ratings,
        "fide": fide_list_data(row) if row is not None else None,
        "created": value(player.created),
        "updated": value(player.updated),
    }


# Each list's entry data of a player, read at once.
_ENTRY = {
    name: operator.attrgetter(fields.entry_rating, fields.entry_rated_games,
                              fields.entry_peak_rating)
    for name, fields in LIST_FIELDS.items()
}  # fmt: skip


# --- history -------------------------------------------------------------------------------


def history_data(
    changes: Iterable[RatingChange], lines: dict[int, list[selectors.Line]]
) -> list[dict[str, Any]]:
    """``HistorySerializer(changes, many=True, context={"lines": lines}).data`` as plain
    values."""
    opponents: dict[int, dict[str, Any]] = {}  # each opponent written once, not once a game
    language = get_language()
    return [
        {
            "period": _period(change.period),
            **_change(change, language),
            "lines": [_line(line, opponents) for line in lines.get(change.period_id, [])],
        }
        for change in changes
    ]


def _period(period: Any) -> dict[str, Any]:
    return {name: _value(getattr(period, name)) for name in _PERIOD_FIELDS}


def _change(change: RatingChange, language: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for name in _CHANGE_FIELDS:
        value = getattr(change, name)
        if name in _CHANGE_AS_THEY_ARE:
            row[name] = value
        elif name in _CHANGE_TEXTS:
            row[name] = rules_text(value, language)
        elif name in _CHANGE_DECIMALS:
            row[name] = str(value)
        else:
            row[name] = _value(value)
    return row


# The row's fields written as they are read: neither text of the rules, nor exact digits,
# nor a date.
_CHANGE_AS_THEY_ARE = {
    name
    for name in _CHANGE_FIELDS
    if name not in _CHANGE_TEXTS | _CHANGE_DECIMALS
    and isinstance(RatingChange._meta.get_field(name), (models.IntegerField, models.CharField))
}


def _line(line: selectors.Line, opponents: dict[int, dict[str, Any]]) -> dict[str, Any]:
    game, calculation, opponent = line.game, line.calculation, line.opponent
    ref = opponents.get(id(opponent))
    if ref is None:
        ref = opponents[id(opponent)] = {name: getattr(opponent, name) for name in _REF_FIELDS}
    row = {
        "game": game.pk,
        "date": game.date.isoformat(),
        "colour": line.colour,
        "opponent": ref,
        "result": game.result,
        "score": None if line.score is None else str(line.score),
        "opponent_rating": line.opponent_rating,
        "rated": line.rated,
        "note": line.note,
        "difference": None if calculation is None else calculation.difference,
        "difference_used": None if calculation is None else calculation.difference_used,
        "expected": None if calculation is None else str(calculation.expected),
        "delta": None if calculation is None else str(calculation.delta),
    }
    return row


# --- freshness -----------------------------------------------------------------------------


def freshness_data(found: Freshness) -> dict[str, Any]:
    """``FreshnessSerializer`` of ``found`` as plain values: the API's cheapest read, which
    other tools poll (the serializer's four fields, copied afresh each request, were a tenth
    of it)."""
    rated_up_to = found.rated_up_to
    return {
        "rated_up_to": None if rated_up_to is None else _DATETIME.to_representation(rated_up_to),
        "pending": found.pending,
        "failed_run": found.failed_run,
        "current": found.current,
    }
