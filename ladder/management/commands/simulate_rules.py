"""manage.py simulate_rules --rules 2022-01 [--from 2025-01] [--list rapid] [--k N] [--cap N]
[--floor N]: the whole list as it would be under other rules, written nowhere."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from ladder.management.commands._periods import period_by_label
from ladder.records import Player, RatingList, bounds, kept_lists
from ladder.records.translations import Help, rules_text
from ratings.recompute.simulate import THRESHOLDS, Simulation, simulate_rules
from ratings.rules import eras


def rules_day(text: str) -> date | None:
    """Read ``--rules``: a month (2022-01: the rules in force on its first day), a day, or
    ``current`` / ``by-date``; None for by-date."""
    try:
        return eras.parse_rules_setting(text)
    except ValueError as error:
        raise CommandError(gettext("--rules: %(error)s") % {"error": rules_text(error)}) from None


def whole(name: str, low: int, high: int):
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise CommandError(
                gettext("--%(name)s: '%(text)s' is not a whole number from %(low)s to %(high)s.")
                % {"name": name, "text": text, "low": low, "high": high}
            )
        return value

    return read


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Compute a whole list as it would be under another rule set (--rules, a month or day: "
            "the rules then) or a changed K, cap or floor, from a period on, without writing "
            "anything; report each player whose rating would differ and a summary."
        )
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rules", required=True, help=gettext("e.g. 2022-01, 2014-07-01, current.")
        )
        parser.add_argument(
            "--from", dest="label", help=gettext("First period (default: the first).")
        )
        parser.add_argument("--list", dest="rating_list", choices=RatingList.values)
        parser.add_argument(
            "--k",
            type=whole("k", bounds.MIN_K, bounds.MAX_K),
            help=gettext("One K for everyone."),
        )
        parser.add_argument(
            "--cap", type=whole("cap", 1, 3500), help=gettext("The difference cap.")
        )
        parser.add_argument(
            "--floor",
            type=whole("floor", 0, bounds.MAX_RATING),
            help=gettext("The lowest rating."),
        )
        parser.add_argument("--format", choices=["table", "json"], default="table")
        parser.add_argument("--limit", type=whole("limit", 0, 10**7), default=50,
                            help=gettext(
                                "Players listed in the table (default 50; 0: all)."
                            ))  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        rating_list = options["rating_list"] or kept_lists()[0]
        if rating_list not in kept_lists():
            raise CommandError(
                gettext("The club keeps no %(name)s list (it keeps: %(kept)s).")
                % {"name": rating_list, "kept": ", ".join(kept_lists())}
            )
        period = period_by_label(options["label"]) if options["label"] else None
        found = simulate_rules(
            period=period,
            rating_list=rating_list,
            on=rules_day(options["rules"]),
            k=options["k"],
            cap=options["cap"],
            floor=options["floor"],
        )
        names = dict(Player.objects.filter(pk__in=[m.player for m in found.moves])
                     .values_list("pk", "name"))  # fmt: skip
        if options["format"] == "json":
            self.stdout.write(json.dumps(_document(found, names), indent=2))
            return
        self._table(found, names, options["limit"])

    def _table(self, found: Simulation, names: dict[int, str], limit: int) -> None:
        span = f"{found.periods[0]} to {found.periods[-1]}" if found.periods else "no period"
        self.stdout.write(
            gettext("%(rating_list)s list, %(span)s, simulated (nothing was written).")
            % {"rating_list": found.rating_list, "span": span}
        )
        shown = found.moves if not limit else found.moves[:limit]
        for move in shown:
            self.stdout.write(
                f"{names.get(move.player, move.player)!s:<32} {_text(move.old):>8} -> "
                f"{_text(move.new):>8}  {_change(move.old, move.new)}"
            )
        if len(shown) < len(found.moves):
            self.stdout.write(
                gettext("... and %(shown)s more players.")
                % {"shown": len(found.moves) - len(shown)}
            )
        for line in _summary(found):
            self.stdout.write(line)


def _text(rating: int | None) -> str:
    return "unrated" if rating is None else str(rating)


def _change(old: int | None, new: int | None) -> str:
    return f"{new - old:+d}" if old is not None and new is not None else ""


def _summary(found: Simulation) -> list[str]:
    lines = [f"Players changed: {len(found.moves)}."]
    if found.mean_change is not None:
        lines.append(f"Mean change: {found.mean_change:+.1f}; largest: {found.largest_change:+d}.")
    for threshold in THRESHOLDS:
        up, down = found.crossing(threshold)
        lines.append(f"Crossing {threshold}: {up} up, {down} down.")
    return lines


def _document(found: Simulation, names: dict[int, str]) -> dict[str, Any]:
    return {
        "list": found.rating_list,
        "periods": found.periods,
        "players_changed": len(found.moves),
        "mean_change": found.mean_change,
        "largest_change": found.largest_change,
        "crossing": {
            str(t): dict(zip(("up", "down"), found.crossing(t), strict=True)) for t in THRESHOLDS
        },
        "players": [
            {"id": m.player, "name": names.get(m.player), "stored": m.old, "simulated": m.new}
            for m in found.moves
        ],
    }
