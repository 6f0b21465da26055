"""CSV answers of the API's lists, written as every CSV of Ladder is (``exports.csv_text``:
formula cells neutralised, None as an empty cell)."""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BaseRenderer

from ladder.files import exports


class CSVRenderer(BaseRenderer):
    """``?format=csv`` (or ``Accept: text/csv``): a list of rows as CSV, a header row of their
    keys; an error (a dict of field messages) as ``field,message`` rows."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        if isinstance(data, list):
            header = list(data[0]) if data else ["id", "name"]
            rows: Any = ([row.get(name) for name in header] for row in data)
        else:
            header = ["field", "message"]
            rows = [
                (name, message)
                for name, messages in (data or {}).items()
                for message in (messages if isinstance(messages, list) else [messages])
            ]
        return exports.csv_text(header, rows).encode(self.charset)
