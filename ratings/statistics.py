"""The pool at a glance: a list's rating distribution, levels, K, and what each period did.

Reads only, each an aggregate the database computes: a constant number of queries whatever the
number of players or rows, and Python only ever walks the groups an aggregate returns (rating
bins, K inputs, periods), never the players. No rule lives here: thresholds, K and inactivity
come from ``ratings.rules.fide``.

Two sources, as the other pages use them: the pool now is read from the players' live ratings
(the ones the standings rank by); a period's mean rating from the list published for it (its
latest revision), and its newcomers, leavers and drift from its RatingChange rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import (
    Avg,
    Case,
    Count,
    DateField,
    ExpressionWrapper,
    F,
    IntegerField,
    Min,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.utils.translation import gettext

from ladder.records import LIST_FIELDS, Player, RatingPeriod
from ladder.records.translations import rules_text
from ratings.models import Publication, PublishedRating, RatingChange, Status
from ratings.recompute.states import rules
from ratings.rules import fide

BIN_WIDTH = 100  # the histogram's bins: 1400-1499, 1500-1599, ...
FIDE_KS = (40, 20, 10)  # 8.3.3; any other (a club K) is counted as "other"


@dataclass(frozen=True)
class Bar:
    """One bar of a chart: what it counts and how many."""

    label: str
    count: int


@dataclass(frozen=True)
class Pool:
    """The rated players of one list now (live ratings)."""

    rating_list: str
    rated: int
    unrated: int
    inactive: int
    mean: float | None
    bins: list[tuple[int, int]]  # (bin start, players), every bin from the lowest to the highest
    levels: list[Bar]  # highest level first, then the players below every level
    ks: list[Bar]  # K 40, 20, 10, then other


def pool(rating_list: str, *, year: int, on: date) -> Pool:
    """Read the pool of a list now: totals, the 100-point histogram, levels and K. Three
    queries. ``year`` is the year K is counted in (``selectors.current_year``), ``on`` the
    day inactivity is counted on."""
    fields = LIST_FIELDS[rating_list]
    rating = fields.rating
    rated = Q(**{f"{rating}__isnull": False})
    cutoff = fide.inactive_cutoff(on)
    bounds = [None, *(threshold for threshold, _ in fide.LEVELS)]  # upper bounds, highest first
    level_counts = {
        f"level_{i}": Count(
            "pk",
            filter=rated
            & Q(**{f"{rating}__gte": threshold})
            & (Q() if upper is None else Q(**{f"{rating}__lt": upper})),
        )
        for i, ((threshold, _), upper) in enumerate(zip(fide.LEVELS, bounds, strict=False))
    }
    lowest = fide.LEVELS[-1][0]
    totals = Player.objects.current().aggregate(
        rated=Count("pk", filter=rated),
        unrated=Count("pk", filter=~rated),
        inactive=Count("pk", filter=rated & Q(**{f"{fields.last_rated_on}__lte": cutoff})),
        mean=Avg(rating),
        below=Count("pk", filter=Q(**{f"{rating}__lt": lowest})),
        **level_counts,
    )
    levels = [
        Bar(rules_text(label), totals[f"level_{i}"]) for i, (_, label) in enumerate(fide.LEVELS)
    ]
    levels.append(Bar(gettext("Below %(rating)s") % {"rating": lowest}, totals["below"]))
    return Pool(
        rating_list=rating_list,
        rated=totals["rated"],
        unrated=totals["unrated"],
        inactive=totals["inactive"],
        mean=float(totals["mean"]) if totals["mean"] is not None else None,
        bins=_bins(rating_list),
        levels=levels,
        ks=_ks(rating_list, year=year),
    )


def _bins(rating_list: str) -> list[tuple[int, int]]:
    """Count rated players per 100-point bin, the empty bins between included. One query."""
    rating = LIST_FIELDS[rating_list].rating
    start = ExpressionWrapper(F(rating) / BIN_WIDTH * BIN_WIDTH, output_field=IntegerField())
    rows = (
        Player.objects.current()
        .rated(rating_list)
        .annotate(bin=start)
        .values("bin")
        .annotate(count=Count("pk"))
        .order_by("bin")
    )
    found = {row["bin"]: row["count"] for row in rows}
    if not found:
        return []
    return [(b, found.get(b, 0)) for b in range(min(found), max(found) + 1, BIN_WIDTH)]


def _ks(rating_list: str, *, year: int) -> list[Bar]:
    """Count rated players by the K they have now (as the standings give it). One query.

    The database groups the players by where each input of ``fide.k_factor`` falls against
    the rule's own thresholds, and the rule is asked once per group (at most 18): one home
    for the rule, and no walk over the players.
    """
    fields = LIST_FIELDS[rating_list]
    peak, games = fields.peak_rating, fields.rated_games
    junior_from = fide.junior_born_from(year)
    groups = (
        Player.objects.current()
        .rated(rating_list)
        .annotate(
            k_peak=Case(
                When(**{f"{peak}__gte": fide.K_FOR_GOOD_PEAK}, then=Value(fide.K_FOR_GOOD_PEAK)),
                When(
                    **{f"{peak}__gte": fide.K_JUNIOR_PEAK_BELOW},
                    then=Value(fide.K_JUNIOR_PEAK_BELOW),
                ),
                When(**{f"{peak}__isnull": False}, then=Value(0)),
                default=None,
                output_field=IntegerField(),
            ),
            k_born=Case(
                When(birth_year__gte=junior_from, then=Value(junior_from)),
                When(birth_year__isnull=False, then=Value(junior_from - 1)),
                default=None,
                output_field=IntegerField(),
            ),
            k_games=Case(
                When(**{f"{games}__lt": fide.K_NEW_PLAYER_GAMES}, then=Value(0)),
                default=Value(fide.K_NEW_PLAYER_GAMES),
                output_field=IntegerField(),
            ),
        )
        .values("k_peak", "k_born", "k_games")
        .annotate(count=Count("pk"))
        .order_by()
    )
    by_k: dict[int, int] = {}
    club_k = rules().club_k
    for group in groups:
        k = fide.k_factor(
            peak_rating=group["k_peak"],
            rated_games=group["k_games"],
            birth_year=group["k_born"],
            year=year,
            club_k=club_k,
        ).value
        by_k[k] = by_k.get(k, 0) + group["count"]
    other = sum(count for k, count in by_k.items() if k not in FIDE_KS)
    return [*(Bar(f"K {k}", by_k.get(k, 0)) for k in FIDE_KS), Bar(gettext("Other K"), other)]


# --- per period ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PeriodRow:
    """What one period did to a list."""

    period: RatingPeriod
    newcomers: int  # first ratings
    inactive: int  # rated players who became inactive at the list closing it
    below_floor: int  # fell below the floor (listed unrated)
    rated: int  # players with rated games in it (rated, or fell below the floor)
    drift: float | None  # mean change of those players
    mean: float | None  # mean rating of the list published for it (latest revision)
    published: int | None  # that list's revision, None when not published

    @property
    def leavers(self) -> int:
        return self.inactive + self.below_floor


def periods(rating_list: str) -> list[PeriodRow]:
    """What each period did to a list, oldest first. Four queries."""
    all_periods = list(RatingPeriod.objects.order_by("start"))
    if not all_periods:
        return []
    # Rated in the period: a rating before it and rated games in it, whether or not the
    # rating fell below the floor (its points left the pool too).
    rated = Q(status__in=[Status.RATED, Status.BELOW_FLOOR], games__gt=0)
    changes: dict[int, dict[str, Any]] = {
        row["period"]: dict(row)
        for row in RatingChange.objects.filter(rating_list=rating_list)
        .values("period")
        .annotate(
            newcomers=Count("pk", filter=Q(status=Status.FIRST_RATING)),
            below_floor=Count("pk", filter=Q(status=Status.BELOW_FLOOR)),
            rated=Count("pk", filter=rated),
            drift=Avg("change", filter=rated),
        )
        .order_by()
    }
    means = _published_means(rating_list)
    inactive = _became_inactive(rating_list, all_periods)
    rows = []
    for period in all_periods:
        c = changes.get(period.pk, {})
        mean, revision = means.get(period.pk, (None, None))
        drift = c.get("drift")
        rows.append(
            PeriodRow(
                period=period,
                newcomers=c.get("newcomers", 0),
                inactive=inactive.get(period.pk, 0),
                below_floor=c.get("below_floor", 0),
                rated=c.get("rated", 0),
                drift=float(drift) if drift is not None else None,
                mean=mean,
                published=revision,
            )
        )
    return rows


def _published_means(rating_list: str) -> dict[int, tuple[float | None, int]]:
    """The mean rating of each period's published list (its latest revision), by period id,
    with the revision. One query."""
    latest = (
        Publication.objects.filter(period=OuterRef("period"), rating_list=rating_list)
        .order_by("-revision")
        .values("revision")[:1]
    )
    current = Publication.objects.filter(rating_list=rating_list, revision=Subquery(latest))
    rows = (
        PublishedRating.objects.filter(publication__in=current)
        .values("publication__period", "publication__revision")
        .annotate(mean=Avg("rating"))
        .order_by()
    )
    return {
        row["publication__period"]: (
            float(row["mean"]) if row["mean"] is not None else None,
            row["publication__revision"],
        )
        for row in rows
    }


def _became_inactive(rating_list: str, all_periods: list[RatingPeriod]) -> dict[int, int]:
    """Count, per period id, the rated players who became inactive at the list closing it
    (FIDE.md 7.3: no rated game for 12 months). One query, grouped by period.

    A player's last rated game before a pause is a RatingChange row of the period the game was
    in. The player became inactive at the first period whose list finds that game's date 12
    months old (on or before ``fide.inactive_cutoff`` of its end, as ``inactive_players``
    reads it), unless their next rated game came by that period's end.
    """
    leaving = [(p, fide.inactive_cutoff(p.end)) for p in all_periods]  # cutoffs rise with ends
    back = (
        RatingChange.objects.filter(
            player=OuterRef("player"),
            rating_list=rating_list,
            last_rated_on__gt=OuterRef("last_rated_on"),
        )
        .order_by()
        .values("player")
        .annotate(first=Min("last_rated_on"))
        .values("first")
    )
    rows = (
        RatingChange.objects.filter(
            rating_list=rating_list,
            rating_after__isnull=False,
            last_rated_on__gte=F("period__start"),
            last_rated_on__lte=F("period__end"),
        )
        .annotate(
            back=Subquery(back),
            leave=Case(
                *(When(last_rated_on__lte=cut, then=Value(p.pk)) for p, cut in leaving),
                default=None,
                output_field=IntegerField(),
            ),
            leave_end=Case(
                *(When(last_rated_on__lte=cut, then=Value(p.end)) for p, cut in leaving),
                default=None,
                output_field=DateField(),
            ),
        )
        .filter(Q(back__isnull=True) | Q(back__gt=F("leave_end")), leave__isnull=False)
        .values("leave")
        .annotate(count=Count("pk"))
        .order_by()
    )
    return {row["leave"]: row["count"] for row in rows}


# --- one player ----------------------------------------------------------------------------


def percentiles(player: Player, rating_lists: list[str]) -> dict[str, int]:
    """The share (in whole per cent, rounded down) of the other rated players of each list
    whose live rating is below the player's, by list; lists where the player is unrated or
    alone are left out. One query for all the lists."""
    asked = {name: player.on_list(name).rating for name in rating_lists}
    asked = {name: rating for name, rating in asked.items() if rating is not None}
    if not asked:
        return {}
    counts = {}
    for name, rating in asked.items():
        field = LIST_FIELDS[name].rating
        counts[f"{name}_rated"] = Count("pk", filter=Q(**{f"{field}__isnull": False}))
        counts[f"{name}_below"] = Count("pk", filter=Q(**{f"{field}__lt": rating}))
    found = Player.objects.current().aggregate(**counts)
    shares = {}
    for name in asked:
        others = found[f"{name}_rated"] - 1
        if others > 0:
            shares[name] = found[f"{name}_below"] * 100 // others
    return shares
