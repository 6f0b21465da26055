"""The statistics page: one list's pool at a glance, drawn as inline SVG with its numbers.

Adapter only: the numbers come from ``ratings.statistics`` (aggregates, a constant number of
queries); this module lays them out as charts on a fixed viewBox that scales to any width,
like the rating chart on a player's page (``views.rating_chart``).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.shortcuts import render
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from ladder.records import RatingList, default_list, parse_list
from ladder.web.views import list_choices
from ratings import selectors
from ratings import statistics as stats
from ratings.publication import official
from ratings.rules import fide

# The charts' box in SVG units. Narrower than the rating chart's, so that on a 390 px phone it
# shrinks little and its 14-unit labels stay about 10 px high.
BOX = {"width": 480, "height": 220, "left": 44, "right": 8, "top": 10, "bottom": 30}
MAX_X_LABELS = 6  # "2026-03" is about 55 units wide: six fit without touching
BAR_ROW = 30  # height of one row of a horizontal bar chart


def statistics(request):
    """Show a list's rating distribution, levels, K, and newcomers, leavers and drift per
    period; a list the club does not keep shows the default list with a notice."""
    notice = None
    try:
        rating_list = parse_list(request.GET.get("list"))
    except ValueError as error:
        rating_list, notice = default_list(), str(error)
    pool = stats.pool(rating_list, year=selectors.current_year(), on=timezone.localdate())
    rows = stats.periods(rating_list)
    published = official.latest_publications([rating_list]).get(rating_list)
    context = {
        "list": rating_list,
        "list_label": RatingList(rating_list).label,
        "list_choices": list_choices(rating_list),
        "notice": notice,
        "pool": pool,
        "official": published,
        "histogram": histogram_chart(pool.bins),
        "levels": bar_chart(pool.levels),
        "ks": bar_chart(pool.ks),
        "rows": rows,
        "flow": flow_chart(rows),
        "drift": drift_chart(rows),
        "means": mean_chart(rows),
        "floor": fide.FLOOR,
    }
    return render(request, "ladder/statistics.html", context)


# --- layouts -------------------------------------------------------------------------------


def _nice_step(span: float, most: int = 5) -> int:
    """The smallest round step that cuts ``span`` into at most ``most`` parts."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        if span / step <= most:
            return step
    return int(span // most) + 1


def _columns(labels: Sequence[str], slots: Sequence[Sequence[tuple[str, float, str]]]) -> dict:
    """Lay out columns on one zero line, one slot per label: each slot's bars (css class,
    value, tooltip) start at zero, up when positive and down when negative."""
    c = BOX
    values = [v for slot in slots for _, v, _ in slot]
    step = _nice_step(max(max(values, default=0), 0) - min(min(values, default=0), 0) or 1)
    high = -(-max(max(values, default=0), 0) // step) * step or step
    low = min(min(values, default=0), 0) // step * step
    plot_h = c["height"] - c["top"] - c["bottom"]
    plot_w = c["width"] - c["left"] - c["right"]

    def y(value: float) -> float:
        return round(c["top"] + (high - value) / (high - low) * plot_h, 1)

    slot_w = plot_w / max(len(labels), 1)
    bar_w = round(max(slot_w * 0.8, 1), 1)
    zero = y(0)
    bars, x_labels = [], []
    every = -(-len(labels) // MAX_X_LABELS)
    for i, (label, slot) in enumerate(zip(labels, slots, strict=True)):
        x = round(c["left"] + i * slot_w + (slot_w - bar_w) / 2, 1)
        for css, value, tip in slot:
            top = y(max(value, 0))
            height = round(abs(y(value) - zero), 1)
            bars.append(
                {"x": x, "y": top, "width": bar_w, "height": height, "css": css, "title": tip}
            )
        if i % every == 0:
            x_labels.append({"x": round(x + bar_w / 2, 1), "label": label})
    ticks = [{"y": y(v), "label": v} for v in range(int(low), int(high) + 1, step)]
    return {**_frame(), "zero": zero, "bars": bars, "x_labels": x_labels, "y_ticks": ticks}


def _frame() -> dict:
    """The box of a chart with its plot's bottom and right edges."""
    c = BOX
    return {**c, "bottom_y": c["height"] - c["bottom"], "right_x": c["width"] - c["right"]}


def histogram_chart(bins: list[tuple[int, int]]) -> dict | None:
    """Columns of rated players per 100-point bin; None when nobody is rated."""
    if not bins:
        return None
    labels = [str(start) for start, _ in bins]
    slots = [
        [
            (
                "bar",
                n,
                ngettext(
                    "%(low)s–%(high)s: %(count)s player", "%(low)s–%(high)s: %(count)s players", n
                )
                % {"low": start, "high": start + stats.BIN_WIDTH - 1, "count": n},
            )
        ]
        for start, n in bins
    ]
    chart = _columns(labels, slots)
    first, last = bins[0][0], bins[-1][0] + stats.BIN_WIDTH - 1
    total = sum(n for _, n in bins)
    chart["summary"] = ngettext(
        "%(total)s rated player, rated from %(first)s to %(last)s, in 100-point bins.",
        "%(total)s rated players, rated from %(first)s to %(last)s, in 100-point bins.",
        total,
    ) % {"total": total, "first": first, "last": last}
    return chart


def flow_chart(rows: list[stats.PeriodRow]) -> dict | None:
    """Newcomers up and leavers down, per period; None without periods."""
    if not rows:
        return None
    labels = [r.period.label for r in rows]
    slots = [
        [
            (
                "in",
                r.newcomers,
                gettext("%(period)s: %(count)s first ratings")
                % {"period": r.period.label, "count": r.newcomers},
            ),
            (
                "out",
                -r.leavers,
                gettext("%(period)s: %(count)s left")
                % {"period": r.period.label, "count": r.leavers},
            ),
        ]
        for r in rows
    ]
    chart = _columns(labels, slots)
    chart["summary"] = gettext(
        "%(newcomers)s first ratings and %(leavers)s leavers over %(periods)s periods."
    ) % {
        "newcomers": sum(r.newcomers for r in rows),
        "leavers": sum(r.leavers for r in rows),
        "periods": len(rows),
    }
    return chart


def drift_chart(rows: list[stats.PeriodRow]) -> dict | None:
    """The mean change of the rated players per period (periods nobody was rated in are
    empty); None when no period has a rated player."""
    if not any(r.drift is not None for r in rows):
        return None
    labels = [r.period.label for r in rows]
    slots = [
        []
        if r.drift is None
        else [("up" if r.drift >= 0 else "down", r.drift, f"{r.period.label}: {_signed(r.drift)}")]
        for r in rows
    ]
    chart = _columns(labels, slots)
    rated = [r.drift for r in rows if r.drift is not None]
    chart["summary"] = gettext("Mean change per period between %(low)s and %(high)s points.") % {
        "low": _signed(min(rated)),
        "high": _signed(max(rated)),
    }
    return chart


def mean_chart(rows: list[stats.PeriodRow]) -> dict | None:
    """The mean rating of each period's published list, a line; None before any is."""
    points = [(i, r) for i, r in enumerate(rows) if r.mean is not None]
    if not points:
        return None
    c = BOX
    values = [r.mean for _, r in points if r.mean is not None]
    low = int(min(values)) // 50 * 50 - 50
    high = -(-int(max(values)) // 50) * 50 + 50
    plot_h = c["height"] - c["top"] - c["bottom"]
    slot_w = (c["width"] - c["left"] - c["right"]) / len(rows)

    def y(value: float) -> float:
        return round(c["top"] + (high - value) / (high - low) * plot_h, 1)

    dots = [
        {"x": _centre(i, slot_w), "y": y(r.mean or 0), "title": f"{r.period.label}: {r.mean:.0f}"}
        for i, r in points
    ]
    step = _nice_step(high - low)
    every = -(-len(rows) // MAX_X_LABELS)
    x_labels = [
        {"x": _centre(i, slot_w), "label": r.period.label}
        for i, r in enumerate(rows)
        if i % every == 0
    ]
    ticks = [{"y": y(v), "label": v} for v in range(-(-low // step) * step, high + 1, step)]
    return {
        **_frame(),
        "dots": dots,
        "polyline": " ".join(f"{d['x']},{d['y']}" for d in dots),
        "x_labels": x_labels,
        "y_ticks": ticks,
        "summary": gettext(
            "Mean rating of the published list from %(first)s to %(last)s over %(periods)s "
            "published periods."
        )
        % {"first": f"{values[0]:.0f}", "last": f"{values[-1]:.0f}", "periods": len(values)},
    }


def _signed(value: float) -> str:
    """A mean change with its sign and one decimal, as the page's language writes decimals."""
    return ("+" if value >= 0 else "") + number_format(round(value, 1), decimal_pos=1)


def _centre(slot: int, slot_w: float) -> float:
    return round(BOX["left"] + (slot + 0.5) * slot_w, 1)


def bar_chart(bars: list[stats.Bar]) -> dict:
    """Horizontal bars, one row per count, the count written at the end of each."""
    # Narrower than the column charts: on a phone its labels are read at about 13 px.
    width, label_w, value_w = 400, 110, 44
    most = max((b.count for b in bars), default=0) or 1
    span = width - label_w - value_w
    rows = []
    for i, bar in enumerate(bars):
        length = round(bar.count / most * span, 1)
        rows.append(
            {
                "y": 6 + i * BAR_ROW,
                "label": bar.label,
                "count": bar.count,
                "width": length,
                "value_x": label_w + length + 6,
            }
        )
    return {
        "width": width,
        "height": 12 + len(bars) * BAR_ROW,
        "label_w": label_w,
        "bar_h": BAR_ROW - 10,
        "rows": rows,
        "summary": "; ".join(f"{b.label}: {b.count}" for b in bars) + ".",
    }
