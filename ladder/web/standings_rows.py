"""The standings' rows, written as HTML in one pass.

The template engine resolved each row's twenty-odd variables, filters and translations one
node at a time and included ``_level.html`` twice a row: rendering 50 rows was half of the
standings' time with the read cache off. Here a row is one string, its texts escaped; the
level's markup is still ``_level.html``'s, rendered once per level shown, and the words are
the template's own messages (``gettext``), so the translations are unchanged.
"""

from __future__ import annotations

import html
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from ladder.records.translations import rules_text


def rows_html(rows: list[dict[str, Any]], *, official: bool) -> SafeString:
    """The ``<tr>`` of each row (as ``standings`` builds them); ``official``: a list has been
    published, so a live rating that differs from it is marked provisional."""
    levels: dict[tuple[str, bool], str] = {}
    words = {
        "inactive": gettext("inactive"),
        "live": gettext("Live rating: it counts games not yet on the official list"),
        "provisional": gettext("provisional"),
        "unrated": gettext("official unrated"),
        "official": gettext("official %(rating)s"),
        "off_list": gettext("not on the official list"),
    }
    out = []
    for row in rows:
        key = (row["level"], row["is_title"])
        if key not in levels:
            levels[key] = render_to_string(
                "ladder/_level.html", {"level": row["level"], "is_title": row["is_title"]}
            )
        out.append(_row(row, levels[key], words, official))
    return mark_safe("\n".join(out))  # noqa: S308 - every text in a row is escaped


def _row(row: dict[str, Any], level: str, words: dict[str, str], official: bool) -> str:
    # Plain text escaped as Django's ``escape`` does (html.escape, quotes too): format_html
    # a cell cost more than the template's node did.
    p, state, standing, k = row["player"], row["state"], row["standing"], row["k"]
    name = f'<a href="{_e(p.get_absolute_url())}">{_e(p.name)}</a>'
    if p.federation:
        name += f' <span class="fed">{_e(p.federation)}</span>'
    if row["inactive"]:
        name += f' <span class="badge">{_e(words["inactive"])}</span>'
    if row["level"]:
        name += f'<span class="narrow-only"> {level}</span>'
    rating = _e(state.rating)
    if official and standing.provisional:
        if not standing.on_list:
            note = words["off_list"]
        elif standing.official is None:
            note = words["unrated"]
        else:
            note = words["official"] % {"rating": standing.official}
        rating += (
            f' <span class="badge provisional" title="{_e(words["live"])}">'
            f'{_e(words["provisional"])}</span> <small class="official">{_e(note)}</small>'
        )
    change = state.last_change
    if change is None:
        last = '<span class="muted">—</span>'
    else:
        direction = "up" if change > 0 else ("down" if change < 0 else "")
        last = f'<span class="{direction}">{change:+d}</span>'
    k_cell = f'<span title="{_e(rules_text(k.reason))}">{_e(k.value)}</span>' if k else ""
    shown = ' class="inactive"' if row["inactive"] else ""
    return (
        f"<tr{shown}>\n"
        f'  <td class="num">{_e(row["rank"])}</td>\n  <th scope="row">{name}</th>\n'
        f'  <td class="wide-only">{level}</td>\n  <td class="num rating">{rating}</td>\n'
        f'  <td class="num">{last}</td>\n  <td class="num wide-only">{k_cell}</td>\n'
        f'  <td class="num wide-only">{_e(state.rated_games)}</td>\n</tr>'
    )


def _e(value: object) -> str:
    return html.escape(str(value))
