"""What the import commands share: open a CSV file, turn every failure into a message, and say
what the rating run did."""

from collections.abc import Callable
from typing import Any, TextIO

from django.core.management.base import CommandError
from django.utils.translation import gettext

from ladder.exceptions import ImportFailed
from ratings.models import RatingRun
from ratings.runs import describe, settle


def import_file(path: str, importer: Callable[[TextIO], Any]) -> Any:
    """Run ``importer`` on the UTF-8 file at ``path``; raise ``CommandError`` on any failure."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as file:
            return importer(file)
    except OSError as exc:
        raise CommandError(
            gettext("Cannot read %(path)s: %(reason)s.") % {"path": path, "reason": exc.strerror}
        ) from exc
    except UnicodeDecodeError as exc:
        raise CommandError(gettext("%(path)s is not UTF-8 text.") % {"path": path}) from exc
    except ImportFailed as exc:
        raise CommandError(gettext("Nothing was imported.") + f"\n{exc}") from exc


def report_run(stdout: Any) -> None:
    """Say what the latest rating run did, or that it waits for a worker."""
    settle()
    run = RatingRun.objects.order_by("-pk").first()
    if run is not None:
        stdout.write(describe(run))
