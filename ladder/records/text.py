"""Text rules of the records: no control characters, period labels, FIDE ids."""

from __future__ import annotations

import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext, gettext_lazy

from ladder.records.bounds import (
    MAX_FIDE_ID,
)

# Bidirectional overrides reorder what a reader sees (a name that shows as something else).
_INVISIBLE = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def _control_character(value: str, allowed: str = "") -> str | None:
    for char in value:
        if char in allowed:
            continue
        if unicodedata.category(char) == "Cc" or ord(char) in _INVISIBLE:
            return char
    return None


def refuse_control_characters(value: str) -> None:
    """Refuse a one-line text holding a control character (ESC, BEL, a newline, ...): it would
    reach terminals and CSV files as it is."""
    char = _control_character(value)
    if char is not None:
        raise ValidationError(
            gettext("Contains the control character %(code)s; use plain printable text.")
            % {"code": f"U+{ord(char):04X}"},
            code="control_character",
        )


def refuse_control_characters_but_lines(value: str) -> None:
    """Refuse a control character in a text of several lines (newlines and tabs allowed)."""
    char = _control_character(value, allowed="\n\r\t")
    if char is not None:
        raise ValidationError(
            gettext("Contains the control character %(code)s; use plain printable text.")
            % {"code": f"U+{ord(char):04X}"},
            code="control_character",
        )


PERIOD_LABEL_VALIDATOR = RegexValidator(
    r"\A[0-9A-Za-z][0-9A-Za-z._-]*\Z",
    gettext_lazy(
        "A period label is letters, digits and '-', '_' or '.', starting with a letter or digit "
        "(e.g. 2026-03): it is part of the period page's address."
    ),
    code="invalid_label",
)


def parse_fide_id(text: str) -> int | None:
    """Return the FIDE id written in ``text``, or None when it is not one.

    Only ASCII digits count: ``str.isdigit()`` also accepts characters such as "²" that ``int()``
    rejects, and a number too large for the column would fail in the database.
    """
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 0 < number <= MAX_FIDE_ID else None


def read_fide_id(text: str) -> int | None:
    """Read the FIDE id a person typed (a form, a file, a JSON string): None when blank; raise
    ``ValidationError`` when it is not written in the digits 0-9.

    Every door reads a typed FIDE id here: ``int()`` and the framework's integer fields take
    any Unicode digit ("١٢٣٤٥" would be 12345), which no FIDE list writes. The number's bounds are
    the model field's validators.
    """
    text = text.strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()):
        # The sentence names the text typed, which may hold a "%": as a parameter, never
        # formatted again (django-filter formats every message with its parameters).
        raise ValidationError(
            "%(sentence)s", code="invalid_fide_id", params={"sentence": fide_id_message(text)}
        )
    return int(text)


def fide_id_message(text: str) -> str:
    """Say that ``text`` is not a FIDE id."""
    return gettext("'%(text)s' is not a FIDE id: write a whole number with the digits 0-9.") % {
        "text": text
    }


class FideIdFormField(forms.IntegerField):
    """A FIDE id in a form or a query string, read by ``read_fide_id`` (Django's integer field
    would take any Unicode digit): the admin's player form and the API's filter use it."""

    def to_python(self, value: object) -> int | None:
        if isinstance(value, str):
            return read_fide_id(value)
        return super().to_python(value)
