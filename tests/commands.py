"""Run an import command on a file and return the sentence it refused the file with."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def refused_import(tmp_path, command: str, text: str) -> str:
    path = tmp_path / "file.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command(command, str(path), stdout=StringIO())
    return str(error.value)
