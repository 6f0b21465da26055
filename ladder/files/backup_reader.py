"""Values taken out of a club backup (``ladder.files.backup``) by the type their field needs,
each value of the wrong type noted by where it is in the file (``games[12].date``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from ladder.records import Player


class Reader:
    """Take values out of the document by the type their field needs, noting every value of
    the wrong type (or missing) by where it is; such a value reads as None."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def items(
        self, parent: dict[str, Any], key: str, *, where: str = ""
    ) -> Iterable[tuple[str, dict[str, Any]]]:
        path = f"{where}.{key}" if where else key
        found = parent.get(key, [])
        if not isinstance(found, list):
            self.problems.append(f"{path}: " + gettext("A list was expected."))
            return
        for index, item in enumerate(found):
            if isinstance(item, dict):
                yield f"{path}[{index}]", item
            else:
                self.problems.append(f"{path}[{index}]: " + gettext("An object was expected."))

    def value(self, item: dict[str, Any], where: str, key: str, kind: Any) -> Any:
        """Return ``item[key]`` as ``kind`` (str, int, bool, date, datetime, list, dict); None
        stays None (the model's validators decide whether it may be blank)."""
        if key not in item:
            self.problems.append(f"{where}.{key}: " + gettext("This value is missing."))
            return None
        value = item[key]
        if value is None:
            return None
        try:
            return _PARSERS[kind](value)
        except (TypeError, ValueError):
            self.problems.append(
                f"{where}.{key}: "
                + gettext("%(value)r is not %(kind)s.") % {"value": value, "kind": _KINDS[kind]}
            )
            return None

    def text(self, item: dict[str, Any], where: str, key: str) -> str:
        return self.value(item, where, key, str) or ""

    def names(self, item: dict[str, Any], where: str, key: str) -> list[str]:
        found = self.value(item, where, key, list) or []
        if not all(isinstance(name, str) for name in found):
            self.problems.append(f"{where}.{key}: " + gettext("A list of names was expected."))
            return []
        return found

    def record(
        self, model: type[models.Model], item: dict[str, Any], where: str, keys: list[str]
    ) -> Any:
        """An unsaved ``model`` from ``keys`` of ``item`` ("id" is the primary key, a key
        naming a foreign key is its id); a text field left null reads as blank."""
        values = {}
        for key in keys:
            field = model._meta.get_field("id" if key == "id" else key)
            kind = _kind(field)
            value = self.value(item, where, key, kind)
            if value is None and kind is str and not field.null:
                value = ""
            values[getattr(field, "attname", key)] = value
        record = model(**values)
        if isinstance(record, Player):
            record.start_from_entry()
        return record


def _kind(field: Any) -> Any:
    if isinstance(field, models.ForeignKey | models.AutoField | models.IntegerField):
        return int
    if isinstance(field, models.DateTimeField):
        return datetime
    if isinstance(field, models.DateField):
        return date
    if isinstance(field, models.BooleanField):
        return bool
    if isinstance(field, models.JSONField):
        return dict if field.default is dict else list
    return str


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError
    return value


def _of(kind: type) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, kind):
            raise TypeError
        return value

    return check


def _datetime(value: Any) -> datetime:
    moment = datetime.fromisoformat(_of(str)(value))
    if timezone.is_naive(moment):
        raise ValueError
    return moment


_PARSERS: dict[Any, Callable[[Any], Any]] = {
    str: _of(str),
    int: _int,
    bool: _of(bool),
    list: _of(list),
    dict: _of(dict),
    date: lambda value: date.fromisoformat(_of(str)(value)),
    datetime: _datetime,
}
_KINDS = {
    str: gettext_lazy("text"),
    int: gettext_lazy("a whole number"),
    bool: gettext_lazy("true or false"),
    list: gettext_lazy("a list"),
    dict: gettext_lazy("an object"),
    date: gettext_lazy("a date (YYYY-MM-DD)"),
    datetime: gettext_lazy("a moment with its time zone"),
}
