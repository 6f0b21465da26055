"""The Jinja2 environment of the pages' longest loops (settings ``TEMPLATES``, ``"jinja2"``).

The pages are Django templates. A loop that writes a row per player, period or game is rendered
by Jinja2 instead (``ladder/jinja2/``), its text put into the Django page by the view: Django's
engine resolves every variable of every row afresh, which was most of a page's time with the
read cache off (issue 25); Jinja2 compiles a template into Python once. The standings, the
busiest page, are rendered whole by Jinja2, on ``ladder/base.html``, the twin of Django's
``base.html`` (``views.jinja_page``).

What these templates write is what Django's engine wrote, byte for byte:

- every value goes through ``escape`` (Jinja2's ``finalize``), which escapes and localizes as
  Django's ``render_value_in_context`` does;
- ``row.name`` reads a dict's key first, as Django's engine does;
- ``{% translate "..." %}`` is ``{{ _("...") }}`` (Django's ``gettext``, written as it is:
  Django's engine takes a template's literals as safe);
  ``{% blocktranslate with a=x %}...{{ a }}...{% endblocktranslate %}`` is
  ``{{ _("...%(a)s...")|fill(a=x) }}`` (the translation as written, each value escaped); and
  ``{% blocktranslate count %}`` of a game count is ``games_text(n)``. ``makemessages`` reads
  ``_("...")`` in any ``.html`` file, as it reads ``{% translate %}`` (the translations test
  holds it); the plural forms, which it would not read there, are in this module.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal, DecimalTuple
from typing import Any, cast
from urllib.parse import quote_plus

from django.conf import settings
from django.http import HttpRequest
from django.http.request import bytes_to_text
from django.template import defaultfilters
from django.templatetags.static import static
from django.utils import formats
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]
from django.utils.translation import gettext, ngettext, trans_real
from jinja2 import Environment

from ladder.records import translations
from ladder.templatetags import ladder_pages


class _Environment(Environment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        # A dict's key before its attributes, as Django's engine looks: a row's ``items`` is
        # its key, and a row (a dict) is read without an AttributeError raised a lookup. The
        # rest is Jinja2's own ``getattr``, written out: it runs for every ``a.b`` of a page.
        if type(obj) is dict and attribute in obj:
            return obj[attribute]
        try:
            return getattr(obj, attribute)
        except AttributeError:
            pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)


def environment(**options: Any) -> Environment:
    """The environment Django's Jinja2 backend renders with: the i18n extension on Django's
    ``gettext`` (the page's language, as Django activated it) and the filters the rows use.

    Jinja2's own autoescaping is off: ``escape`` escapes every value written, and Jinja2's
    would escape each a second time (a third of the rows' time) and write other bytes
    (``&#39;`` for Django's ``&#x27;``). So no markup may be made inside a template as a
    value: a macro's, a ``{% call %}``'s, ``{% filter %}``'s or a block ``{% set %}``'s text
    is a plain string, which ``escape`` would escape as text. A test refuses them; render
    such markup in the view, or write another template."""
    options["autoescape"] = False
    # A template's last newline written, as Django's engine writes it (an include's too).
    options["keep_trailing_newline"] = True
    env = _Environment(extensions=["jinja2.ext.i18n"], finalize=escape, **options)
    env.install_gettext_callables(literal, ngettext, newstyle=False)  # type: ignore[attr-defined]
    env.filters.update(
        rules_text=translations.rules_text,
        month_name=ladder_pages.month_name,
        day=_in_local_time(ladder_pages.day),
        long_day=_in_local_time(ladder_pages.long_day),
        day_time=_in_local_time(ladder_pages.day_time),
        default_if_none=defaultfilters.default_if_none,
        fill=fill,
    )
    env.globals.update(
        games_text=games_text, static=static, querystring=querystring, page_query=page_query
    )
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
    if type(value) is Decimal and not settings.USE_THOUSAND_SEPARATOR:
        # What ``formats.localize`` writes, without its walk through the number's parts
        # (a player's page writes hundreds of decimals): the digits, the language's
        # separator. Not 1E+999 and the like: ``localize`` below.
        parts = value.as_tuple()
        if isinstance(parts.exponent, int) and abs(parts.exponent) + len(parts.digits) <= 200:
            separator = _SEPARATOR.get() or formats.get_format("DECIMAL_SEPARATOR")
            return _decimal_text(parts, separator)
    html_of = getattr(value, "__html__", None)
    if html_of is not None:
        return str(html_of())
    return html.escape(str(formats.localize(template_localtime(value))))


# The decimal separator of the language a render writes in (``rendering``), found once a
# render: ``formats.get_format`` finds the thread's language again on every call (1.7 µs, half
# of a decimal's writing), and a player's page writes some 700 decimals.
_SEPARATOR: ContextVar[str | None] = ContextVar("jinja_decimal_separator", default=None)


@contextmanager
def rendering() -> Iterator[None]:
    """Render within this: ``escape`` writes decimals with the separator of the language
    active when it began (elsewhere it looks the separator up for each)."""
    token = _SEPARATOR.set(formats.get_format("DECIMAL_SEPARATOR"))
    try:
        yield
    finally:
        _SEPARATOR.reset(token)


@functools.lru_cache(maxsize=4096)
def _decimal_text(parts: DecimalTuple, separator: str) -> str:
    """A decimal's digits as ``escape`` writes them, kept by its sign, digits and exponent
    (not its value: 0.5 and 0.50 are equal and written apart): a page's expected scores and
    differences are the same few hundred values."""
    sign, digits, exponent = parts
    value = Decimal((sign, digits, cast(int, exponent)))  # finite: ``escape`` saw to it
    return html.escape(f"{value:f}".replace(".", separator))


def literal(message: str) -> SafeString:
    """``_("...")``: a literal's translation written as it is, as Django's ``{% translate
    "..." %}`` writes it (Django's engine takes a template's string literals as safe)."""
    return mark_safe(gettext(message))


def texts() -> Callable[[str], SafeString]:
    """``_`` for one render (the render's ``gettext``, which the i18n extension reads before
    the environment's): ``literal`` with the active language's catalogue found once. Django's
    ``gettext`` finds it again for every text (a lookup of the thread's language, 1.4 µs
    against 0.15 µs for the catalogue's own), and a page has sixty-odd."""
    if not settings.USE_I18N:
        return literal
    catalog = trans_real.catalog()  # what Django's gettext would read: the active, or default
    return lambda message: mark_safe(catalog.gettext(message))


def fill(text: str, **values: object) -> SafeString:
    """A translated sentence with its values, as ``{% blocktranslate with ... %}`` writes it:
    the translation as it is (it may hold markup), each value escaped."""
    return mark_safe(text % {name: escape(value) for name, value in values.items()})


def games_text(count: int) -> SafeString:
    """The count of games in the page's language, "1 game" or "2 games" (``{% blocktranslate
    count %}``)."""
    return mark_safe(ngettext("%(count)s game", "%(count)s games", count) % {"count": count})


def _in_local_time(written: Callable[[object], str]) -> Callable[[object], str]:
    """A day filter of ``ladder_pages`` as Jinja2's: a moment in the page's time zone first,
    as Django's engine gives it to a filter that ``expects_localtime``."""
    return lambda value: written(template_localtime(value))


def querystring(request: HttpRequest, **changes: object) -> str:
    """Django's ``{% querystring %}``: the request's query string with ``changes`` (None
    removes a parameter), the same text. It reads only the request's ``GET``.

    Written out rather than called: Django's copies the ``QueryDict`` with ``deepcopy`` and
    urlencodes a parameter at a time, 9-14 µs a link, and the standings write five such
    links (their list selector's three, their pages')."""
    query = request.GET
    encoding = query.encoding
    as_text = cast(Callable[[Any, str], Any], bytes_to_text)  # as QueryDict stores a value
    params: dict[str, list[Any]] = dict(query.lists())
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        elif isinstance(value, Iterable) and not isinstance(value, str):
            params[key] = [as_text(item, encoding) for item in value]
        else:
            params[key] = [as_text(value, encoding)]
    if not params and not query:
        return ""
    return "?" + "&".join(
        f"{quote_plus(key, encoding=encoding)}={quote_plus(str(value), encoding=encoding)}"
        for key, values in params.items()
        for value in values
    )


def page_query(request: HttpRequest, param: str, number: int) -> str:
    """``ladder_pages``' ``{% page_query %}``: the query string with the page ``param`` (page,
    upage or rpage; page when empty) set to ``number``."""
    return querystring(request, **{param or "page": number})
