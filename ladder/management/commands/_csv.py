"""What the import commands share: open a CSV file and turn every failure into a message."""

from collections.abc import Callable
from typing import Any, TextIO

from django.core.management.base import CommandError

from ladder.importers import ImportFailed


def import_file(path: str, importer: Callable[[TextIO], Any]) -> Any:
    """Run ``importer`` on the UTF-8 file at ``path``; raise ``CommandError`` on any failure."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as file:
            return importer(file)
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror}.") from exc
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path} is not UTF-8 text.") from exc
    except ImportFailed as exc:
        raise CommandError(f"Nothing was imported.\n{exc}") from exc
