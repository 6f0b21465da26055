"""The Jinja2 environment of the pages' longest loops (settings ``TEMPLATES``, ``"jinja2"``).

The pages are Django templates. A loop that writes one row per player or game is rendered by
Jinja2 instead (``ladder/jinja2/``), its text put into the Django page: Django's engine
resolves every variable of every row afresh, which was most of a page's time with the read
cache off (issue 25); Jinja2 compiles a template into Python once. The rows' texts are
translated with Django's own catalogues: ``_("...")`` in these templates is ``gettext``, and
``makemessages`` reads such calls in any ``.html`` file, as it reads ``{% translate %}``.
"""

from __future__ import annotations

import html
from typing import Any

from django.utils import formats
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]
from django.utils.translation import gettext, ngettext
from jinja2 import Environment

from ladder.records import translations


def environment(**options: Any) -> Environment:
    """The environment Django's Jinja2 backend renders with: the i18n extension on Django's
    ``gettext`` (the page's language, as Django activated it) and the filters the rows use.

    Every value a template writes (``{{ ... }}``) goes through ``escape`` (Jinja2's
    ``finalize``), which writes it as Django's engine does. Jinja2's own autoescaping is
    therefore off: it would escape each value a second time (a third of the rows' time) and
    write other bytes (``&#39;`` for Django's ``&#x27;``)."""
    options["autoescape"] = False
    env = Environment(extensions=["jinja2.ext.i18n"], finalize=escape, **options)
    env.install_gettext_callables(gettext, ngettext, newstyle=False)  # type: ignore[attr-defined]
    env.filters["rules_text"] = translations.rules_text
    return env


def escape(value: object) -> str:
    """``value`` as Django's engine writes it into a page (``render_value_in_context``): a
    safe text (Django's ``mark_safe``, Jinja2's ``Markup``: anything with ``__html__``) as it
    is; a decimal, a day or a time in the page's language and time zone; every text escaped
    (``html.escape``, as ``conditional_escape``). A whole number is written plain, as inside
    ``{% localize off %}``: ratings and counts never take a thousands separator."""
    if type(value) is str:  # not a subclass: a safe text is one
        return html.escape(value)
    if type(value) is int:  # not a bool
        return str(value)
    html_of = getattr(value, "__html__", None)
    if html_of is not None:
        return str(html_of())
    return html.escape(str(formats.localize(template_localtime(value))))
