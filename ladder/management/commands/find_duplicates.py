"""manage.py find_duplicates [--min-score N] [--limit N] [--format table|csv]: the players
likely entered twice, best first, with the score and the evidence (``records.duplicates``)."""

from __future__ import annotations

import csv
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop, ngettext

from ladder.records.duplicates import NAME_CUTOFF, find_duplicates
from ladder.records.translations import Help


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "List likely duplicate players: a close name (any order, any script) with the same "
            "birth year and federation, or the same name, or a FIDE id on one record only. Merge a "
            "pair with merge_players KEEP_ID OTHER_ID --reason TEXT; the admin's Duplicates page "
            "also remembers a pair that is two people."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--min-score",
            type=int,
            default=NAME_CUTOFF,
            help=gettext("Lowest score shown (0-100)."),
        )
        parser.add_argument("--limit", type=int, help=gettext("Show at most this many pairs."))
        parser.add_argument("--format", choices=("table", "csv"), default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 <= options["min_score"] <= 100:
            raise CommandError("--min-score: " + gettext("A score lies between 0 and 100."))
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit: " + gettext("Give 1 or more."))
        found = find_duplicates(min_score=options["min_score"])[: options["limit"]]
        if options["format"] == "csv":
            writer = csv.writer(self.stdout)
            writer.writerow(["score", "id", "name", "other_id", "other_name", "evidence"])
            for c in found:
                writer.writerow([c.score, c.first.pk, c.first.name, c.second.pk, c.second.name,
                                 "; ".join(c.evidence)])  # fmt: skip
            return
        for c in found:
            self.stdout.write(
                f"{c.score:3d}  #{c.first.pk} {c.first.name}  ~  #{c.second.pk} {c.second.name}"
                f"  ({'; '.join(c.evidence)})"
            )
        self.stdout.write(
            ngettext(
                "%(count)d likely duplicate pair.", "%(count)d likely duplicate pairs.", len(found)
            )
            % {"count": len(found)}
        )
