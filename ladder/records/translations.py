"""What the doors translate that no ``gettext`` call or template wrote: the rules' sentences
and the commands' help.

The rules' sentences (``ratings.rules.wording``): the rules import nothing of Django, so they
write English, each sentence from a template they mark; ``rules_text`` finds the template back
and gives it in the active language, the values filled in again (a day in the language's way
of writing days, a nested sentence translated too). A text the rules did not make (a reason
the club typed) comes back as it is. Pages use the ``rules_text`` filter, the API, the admin
and the commands call ``rules_text``; ``rules_text_lazy`` is for texts fixed at import (a form
field's error messages).

A command's help (``Help``): ``BaseCommand.help`` is read when the parser is built (``manage.py
CMD --help``), and argparse needs a ``str`` there (a lazy translation fails in its formatter).
``Help`` translates when read, so the help follows ``LADDER_LANGUAGE`` (or the language
``call_command`` runs in). Write ``help = Help(gettext_noop("..."))``: ``makemessages``
gathers the text; ``Help(gettext_noop("... {columns} ..."), columns=...)`` fills in what is
not translated. The arguments' help texts are ``gettext(...)`` in ``add_arguments``, which runs
when the parser is built.
"""

from __future__ import annotations

import functools
import re
from calendar import monthrange
from datetime import date
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.dateformat import format as date_format
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext, override, pgettext

from ratings.rules import calculator, eras, fide, in_force, wording

# Every module that marks sentences, imported so that ``wording.read`` knows them all.
_MARKING = (calculator, eras, fide, in_force)
# A day as the rules write it: "1 Jul 2009" or "1 July 2009" (English month names).
_DAY = re.compile(r"(\d{1,2}) ([A-Z][a-z]+) (\d{4})")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def rules_text(text: object, language: str | None = None) -> str:
    """Return a sentence of the rules in the active language, or in ``language`` (any other
    text as it is)."""
    return _rules_text(str(text), language or get_language())


# A sentence's translation, kept by its text and language: a K's reason is written again on
# every row of a page, and finding its template back and the translation machinery's own
# lookups were a fifth of an uncached 50-player page. The catalogues do not change while a
# process runs, but for tests' ``override_settings`` of the languages (``_forget``).
@functools.lru_cache(maxsize=4096)
def _rules_text(english: str, language: str | None) -> str:
    if language is None:  # translations deactivated: the sentence as written
        return _translated(english)
    with override(language):
        return _translated(english)


def _translated(english: str) -> str:
    found = wording.read(english)
    if found is None:
        return _value(english) if _DAY.fullmatch(english) else english
    if not found.values:
        return gettext(found.template)
    return gettext(found.template) % {name: _value(value) for name, value in found.values.items()}


rules_text_lazy = lazy(rules_text, str)


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "USE_L10N", "FORMAT_MODULE_PATH"}:
        _rules_text.cache_clear()


def _value(value: str) -> str:
    """A value of a sentence, written in the active language."""
    found = _DAY.fullmatch(value)
    if found is None:
        return rules_text(value)
    day, month, year = found.groups()
    for number, name in enumerate(_MONTHS, 1):
        if month in (name, name[:3]) and 1 <= int(day) <= monthrange(int(year), number)[1]:
            return _day(date(int(year), number, int(day)), short=len(month) == 3)
    return value


def _day(on: date, *, short: bool) -> str:
    # The same formats as the pages' ``day`` and ``long_day`` filters.
    if short:
        return date_format(on, pgettext("date format (Django's date filter): 2 Mar 2026", "j M Y"))
    return date_format(on, pgettext("date format (Django's date filter): 2 March 2026", "j F Y"))


class Help:
    """A descriptor: a command's help text, translated each time it is read."""

    def __init__(self, english: str, **values: str) -> None:
        self.english = english
        self.values = values  # filled into ``{name}`` places, after the translation

    def __get__(self, instance: Any, owner: Any = None) -> str:
        translated = gettext(self.english)
        return translated.format(**self.values) if self.values else translated
