"""manage.py rating_list [--list LIST] [--period LABEL] [--format table|csv|json]."""

import csv
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.models import RatingList, RatingPeriod, kept_lists
from ratings.selectors import rating_list

from ._periods import period_by_label

COLUMNS = (
    "name", "fide_id", "rating_before", "rating", "change", "k", "games", "total_games",
    "status", "score", "expected", "change_exact",
)  # fmt: skip


# A spreadsheet reads a cell starting with one of these as a formula (CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """Return a text cell a spreadsheet would run as a formula behind a quote ("'=cmd|..."), so
    it shows as text; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


class Command(BaseCommand):
    help = (
        "Print a rating list (standard, rapid or blitz; default standard) that closes a period "
        "(default: the latest period)."
    )
    chosen: str = RatingList.STANDARD  # the list being printed

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--period", dest="label", help="The period, e.g. 2026-03.")
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument(
            "--list", dest="rating_list", choices=RatingList.values,
            default=RatingList.STANDARD, help="The list (default: standard).",
        )  # fmt: skip

    def handle(self, *args: str, **options: Any) -> None:
        chosen = options["rating_list"]
        if chosen not in kept_lists():
            raise CommandError(
                f"The club keeps no {chosen} list (it keeps: {', '.join(kept_lists())})."
            )
        if options["label"]:
            period: RatingPeriod | None = period_by_label(options["label"])
        else:
            period = RatingPeriod.objects.latest_period()
        if period is None:
            raise CommandError("There are no rating periods yet; enter or import games first.")
        self.chosen = chosen
        rows = [entry.as_dict() for entry in rating_list(period, rating_list=chosen)]
        getattr(self, f"_{options['format']}")(rows, period)

    def _json(self, rows: list[dict[str, Any]], period: RatingPeriod) -> None:
        self.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2))

    def _csv(self, rows: list[dict[str, Any]], period: RatingPeriod) -> None:
        writer = csv.DictWriter(self.stdout, fieldnames=list(rows[0]) if rows else COLUMNS)
        writer.writeheader()
        writer.writerows({name: neutralise(value) for name, value in row.items()} for row in rows)

    def _table(self, rows: list[dict[str, Any]], period: RatingPeriod) -> None:
        prefix = (
            "" if self.chosen == RatingList.STANDARD else f"{RatingList(self.chosen).label} list: "
        )
        self.stdout.write(
            f"{prefix}Rating list closing {period.label} ({period.start} to {period.end})"
        )
        header = ("#", "Name", "FIDE id", "Before", "Rating", "Chg", "K", "Games", "Total",
                  "Status")  # fmt: skip
        lines = [header]
        for rank, row in enumerate(rows, start=1):
            lines.append((
                str(rank), row["name"], str(row["fide_id"] or ""),
                _blank(row["rating_before"]), _blank(row["rating"]),
                f"{row['change']:+d}" if row["k"] is not None else "", _blank(row["k"]),
                str(row["games"]), str(row["total_games"]), row["status"],
            ))  # fmt: skip
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        for line in lines:
            self.stdout.write(
                "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
            )


def _blank(value: object) -> str:
    return "" if value is None else str(value)
