"""manage.py rating_list [--list LIST] [--period LABEL] [--as-published [REVISION]]
[--format table|csv|json]."""

import csv
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.files.cells import neutralise
from ladder.management.commands._periods import period_by_label
from ladder.records import RatingList, RatingPeriod, kept_lists
from ladder.records.translations import Help
from ratings import publication
from ratings.publication import official

COLUMNS = (
    "name", "fide_id", "rating_before", "rating", "change", "k", "games", "total_games",
    "status", "score", "expected", "change_exact",
)  # fmt: skip


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Print a rating list (standard, rapid or blitz; default standard) that closes a period "
            "(default: the latest period)."
        )
    )
    chosen: str = RatingList.STANDARD  # the list being printed
    published: str = ""  # "as published ..." when it is a published list

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--period", dest="label", help=gettext("The period, e.g. 2026-03."))
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument(
            "--list", dest="rating_list", choices=RatingList.values,
            default=RatingList.STANDARD, help=gettext("The list (default: standard)."),
        )  # fmt: skip
        parser.add_argument(
            "--as-published", dest="revision", nargs="?", const=0, type=int,
            help=gettext(
                "The list as published when the period closed: its latest revision, or the "
                "revision given (1 = as first published)."
            ),
        )  # fmt: skip

    def handle(self, *args: str, **options: Any) -> None:
        chosen = options["rating_list"]
        if chosen not in kept_lists():
            raise CommandError(
                gettext("The club keeps no %(name)s list (it keeps: %(kept)s).")
                % {"name": chosen, "kept": ", ".join(kept_lists())}
            )
        if options["label"]:
            period: RatingPeriod | None = period_by_label(options["label"])
        else:
            period = RatingPeriod.objects.latest_period()
        if period is None:
            raise CommandError(
                gettext("There are no rating periods yet; enter or import games first.")
            )
        self.chosen = chosen
        self.published = ""
        if options["revision"] is not None:
            rows = self._published(period, chosen, options["revision"] or None)
        else:
            found = official.period_list(period, chosen)  # a closed period: as published
            rows = [entry.as_dict() for entry in found.entries]
            if found.publication is not None:
                self.published = f" as published {found.publication.published_at:%Y-%m-%d}" + (
                    f" (revision {found.publication.revision})"
                    if found.publication.revision > 1
                    else ""
                )
        getattr(self, f"_{options['format']}")(rows, period)

    def _published(
        self, period: RatingPeriod, chosen: str, revision: int | None
    ) -> list[dict[str, Any]]:
        found = publication.as_published(period, chosen, revision)
        if found is None:
            which = f"revision {revision} of " if revision else ""
            raise CommandError(
                gettext(
                    "There is no %(which)spublished %(list)s list for %(label)s: a period's "
                    "list is published when the period closes."
                )
                % {"which": which, "list": chosen, "label": period.label}
            )
        published, lines = found
        self.published = f" as published {published.published_at:%Y-%m-%d}" + (
            f" (revision {published.revision})" if published.revision > 1 else ""
        )
        return [
            {"name": line.player.name, "fide_id": line.player.fide_id, "rating_before": None,
             "rating": line.rating, "change": line.change, "k": line.k, "games": line.games,
             "total_games": line.total_games, "status": line.status}
            for line in lines
        ]  # fmt: skip

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
            f"{self.published}"
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
