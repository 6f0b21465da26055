"""The admin's widgets, where Django's would fail on a value no form offers."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.widgets import AutocompleteSelect

from ladder.records import MAX_FIDE_ID


class PlayerSelect(AutocompleteSelect):
    """The player autocomplete. Django's looks the submitted value up to show it again, and a
    value that is no id (``abc``, ``1e400``, a number past the column) answered 500 there
    instead of the form's "Select a valid choice" error: such values are not looked up."""

    def optgroups(self, name: str, value: Any, attr: Any = None) -> Any:
        ids = [v for v in value if str(v).isascii() and str(v).isdigit() and int(v) <= MAX_FIDE_ID]
        return super().optgroups(name, ids, attr)
