"""HTML pages for players: the ladder, a player, the periods and the calculator.

Adapters only: they read through ``ratings.selectors`` and the models' QuerySets, take every
number from ``ratings.rules.fide``, and render. Each page reads in a fixed number of queries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db.models import Count, Q, QuerySet
from django.dispatch import receiver
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template import engines
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, pgettext

from ladder.records import (
    LIST_FIELDS,
    FideListEntry,
    PeriodStatus,
    Player,
    PlayerQuerySet,
    RatingList,
    RatingPeriod,
    default_list,
    kept_lists,
    parse_list,
    rated_on,
)
from ladder.records.compiled import Compiled, CompiledPages, CountWhere
from ladder.records.paging import Paginator
from ladder.web import context_processors, jinja, merged
from ladder.web.forms import OTHER, CalculatorForm, KHelperForm, WhatIfForm
from ratings import publication, selectors, statistics
from ratings.models import RatingChange
from ratings.publication import official
from ratings.rules import calculator as calc
from ratings.rules import fide
from ratings.selectors import REPORT_PER_PAGE

PER_PAGE = 50
LIST_PER_PAGE = 100


def chosen_list(request) -> str:
    """The list a page shows: ``?list=`` read as every door reads it (``parse_list``).

    Where the API answers a list the club does not keep with 400 and ``parse_list``'s
    sentence, a page shows the club's default list instead, and says which list it shows: a
    stale link (a list the club has stopped keeping) still leads to a page.
    """
    try:
        return parse_list(request.GET.get("list"))
    except ValueError:
        return default_list()


def list_choices(current: str) -> list[dict]:
    """The lists a page can switch between; empty when the club keeps one (no selector)."""
    kept = kept_lists()
    if len(kept) < 2:
        return []
    # The labels as text in the request's language, not lazy: a page writes each as a
    # text, where a lazy one took Jinja2's way of any other object (localized, then escaped).
    return [
        {"value": name, "label": str(RatingList(name).label), "current": name == current}
        for name in kept
    ]


def _list_context(current: str) -> dict:
    return {
        "list": current,
        "list_label": str(RatingList(current).label),
        "list_choices": list_choices(current),
    }


def standings(request):
    """Show the ladder of one list: rated players by rating, the unrated apart, with search
    and pages."""
    rating_list = chosen_list(request)
    query = request.GET.get("q", "").strip()[:100]
    show_inactive = request.GET.get("inactive") == "1"
    today = timezone.localdate()
    cutoff = () if show_inactive else (fide.inactive_cutoff(today),)
    if query:  # a search: built for its text
        visible = _visible(rating_list, show_inactive, *cutoff)
        ordered: Any = visible.search(query).standings(rating_list)
        unrated_players: Any = _unrated(rating_list, query)
        counts = lambda lowest: list(_rank_counts(visible, rating_list, lowest))  # noqa: E731
        sizes: _Sizes | None = None
    else:  # the standings everyone reads: their queries compiled once (``_compiled_reads``)
        compiled_ordered, compiled_counts, compiled_unrated, compiled_sizes = _compiled_reads(
            rating_list, show_inactive
        )
        sizes = _Sizes(compiled_sizes, cutoff)
        ordered = compiled_ordered.of(*cutoff, count=sizes.shown)
        unrated_players = compiled_unrated.of(count=sizes.unrated)
        counts = lambda lowest: compiled_counts.rows(lowest, *cutoff)  # noqa: E731
    page = Paginator(ordered, PER_PAGE).get_page(request.GET.get("page"))
    if query or page.number > 1:
        ranks = _ranks(counts, page.object_list, rating_list)
    else:  # the top of the ladder: everyone above a player is on this page
        ranks = _ranks_at_the_top(page.object_list, rating_list)
    official_list = official.official_list(rating_list, page.object_list)
    live_periods = official.live_periods(official_list.publication)
    still_open = [p for p in live_periods if p.status == PeriodStatus.OPEN]
    # The year K is counted in (selectors.current_year), read from the periods already here.
    year = still_open[-1].start.year if still_open else selectors.current_year()
    url = _player_urls()
    club_k = selectors.current_club_k()
    rows = []
    for p in page.object_list:
        state = p.on_list(rating_list)  # read once a row: the K, the standing, inactivity
        rows.append(
            {
                "player": p,
                "url": url(p.pk),
                "state": state,
                "standing": official_list.standing(p, live=state.rating),
                "rank": ranks.get(state.rating) if state.rating is not None else None,
                "level": fide.level(p.title, state.rating),
                "is_title": bool(p.title),
                "k": selectors.k_on_list(state, birth_year=p.birth_year, year=year, club_k=club_k),
                "inactive": selectors.inactive_on_list(state, on=today),
            }
        )
    language = get_language()
    for row in rows:
        row["level_html"] = _level_badge(row["level"], row["is_title"], language)
    # The rated counted before the unrated are paged (the page shows the count whatever
    # happens): a ladder longer than a page counts the unrated with them (``_Sizes``), and
    # when there are none, no page of them is read.
    page.paginator.count  # noqa: B018
    known = sizes.known_unrated() if sizes is not None else None
    unrated_page = Paginator(unrated_players, PER_PAGE, count=known).get_page(
        request.GET.get("upage")
    )
    latest = live_periods[-1] if live_periods else None
    if latest is None and official_list.publication is not None:
        latest = official_list.publication.period
    context = {
        **_list_context(rating_list),
        "query": query,
        "show_inactive": show_inactive,
        "page": page,
        "rows": rows,
        "unrated": unrated_page,
        "unrated_rows": [(p, url(p.pk)) for p in unrated_page.object_list],
        "as_of": today,
        "latest_period": latest,
        "official": official_list.publication,
        "live_periods": live_periods,
        "movers": selectors.top_movers(rating_list),
        "player_url": url,
    }
    # The whole page by Jinja2 (ladder/jinja2/ladder/standings.html): with the read cache
    # off, Django's engine was half of its time, its rows rendered apart already.
    return jinja_page(request, "ladder/standings.html", context)


@functools.lru_cache(maxsize=512)
def _level_badge(level: str, is_title: bool, language: str | None) -> str:
    """A title's or a rating level's badge (``ladder/_level.html``) in ``language``, rendered
    once per process: the same few on every page (an include a row was half of the
    standings' time with the read cache off, a render per level on a page still a
    twentieth)."""
    return render_to_string("ladder/_level.html", {"level": level, "is_title": is_title})


@receiver(setting_changed)
def _forget_badges(*, setting: str, **kwargs: object) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "TEMPLATES"}:
        _level_badge.cache_clear()


def jinja_page(request, template: str, context: dict[str, Any]) -> HttpResponse:
    """A page rendered whole by Jinja2 on ``ladder/jinja2/ladder/base.html``, which is given
    what ``templates/base.html`` reads through the context processors (``context`` first, as
    Django's engine reads a view's context before theirs)."""
    with jinja.rendering():
        page = (
            engines["jinja2"]
            .get_template(template)
            .render(
                {
                    **context_processors.site_urls(request),
                    **context_processors.freshness(request),
                    "language": get_language(),
                    "languages": [(code, gettext(name)) for code, name in settings.LANGUAGES],
                    "club_name": settings.LADDER_CLUB_NAME,
                    "gettext": jinja.texts(),
                    **context,
                },
                request,
            )
        )
    return HttpResponse(page)


def jinja_rows(template: str, context: dict[str, Any]) -> SafeString:
    """A page's loop rendered by Jinja2 (``ladder/jinja2/``, ``ladder/web/jinja.py``), for the
    Django page to write as it is: every value in it is already escaped."""
    loop = engines["jinja2"].get_template(template)
    with jinja.rendering():
        rendered = loop.render({"gettext": jinja.texts(), **context})
    return mark_safe(rendered)


def _player_urls(name: str = "ladder:player", *first: int) -> Callable[[int], str]:
    """A URL by its last id (by default a player's page, ``Player.get_absolute_url``),
    reversed once a process and script prefix (``context_processors.reversed_once``) rather
    than once a row (a tenth of the standings' time) or once a request (50 µs): the URL of an
    id that no page shows, either side of its id. ``first``: the arguments before it."""
    marker = "9876543210"
    whole = context_processors.reversed_once(name, *first, int(marker))
    before, _, after = whole.rpartition(marker)
    return lambda pk: f"{before}{pk}{after}"


def _link_opponents(player: Player, lines: dict[int, list[selectors.Line]]) -> None:
    """Give each opponent of ``lines`` their page's URL (``page_url``), the head-to-head's
    (``versus_url``) and its link text (``versus``), once an opponent rather than once a game
    (reversing and translating in each game's row was a fifth of a player page's time)."""
    page, versus = _player_urls(), _player_urls("ladder:head-to-head", player.pk)
    wording = gettext("vs %(name)s")  # the template's {% blocktranslate %} of this text
    done: set[int] = set()
    for period_lines in lines.values():
        for line in period_lines:
            opponent = line.opponent
            if id(opponent) in done:
                continue
            done.add(id(opponent))
            vars(opponent).update(  # read by the template as the opponent's own attributes
                page_url=page(opponent.pk),
                versus_url=versus(opponent.pk),
                versus=mark_safe(wording % {"name": conditional_escape(opponent.name)}),
            )


def _visible(rating_list: str, show_inactive: bool, *cutoff: date) -> PlayerQuerySet:
    """The players the standings show: rated, current, and unless asked, active since the
    cutoff (``fide.inactive_cutoff``)."""
    return Player.objects.current().filter(_shown(rating_list, show_inactive, *cutoff))


def _shown(rating_list: str, show_inactive: bool, *cutoff: date) -> Q:
    """``_visible`` as a condition on the current players."""
    shown = rated_on(rating_list)
    if show_inactive:
        return shown
    return shown & selectors.active_since_condition(cutoff=cutoff[0], rating_list=rating_list)


def _sizes(rating_list: str, show_inactive: bool, *cutoff: date) -> QuerySet[Player, Any]:
    """The players the standings show (``_visible``) and the unrated (``_unrated``) counted
    in one row, one scan of the players: a count each, and the unrated's page when there are
    none, were two scans more of a club of 5,000 players (0.9 and 1.0 ms of the server's time
    a request)."""
    shown = _shown(rating_list, show_inactive, *cutoff)
    unrated = rated_on(rating_list, rated=False)
    return Player.objects.current().order_by().values_list(CountWhere(shown), CountWhere(unrated))


class _Sizes:
    """The standings' two counts (``_sizes``), read once a request, when the first is asked:
    a ladder of one page is counted by its rows (``Paginator``), and asks none."""

    def __init__(self, compiled: Compiled[Any], cutoff: tuple[date, ...]) -> None:
        self._compiled, self._cutoff = compiled, cutoff
        self._found: tuple[int, int] | None = None

    def _read(self) -> tuple[int, int]:
        if self._found is None:
            shown, unrated = self._compiled.rows(*self._cutoff)[0]
            self._found = (int(shown), int(unrated))
        return self._found

    def shown(self) -> int:
        return self._read()[0]

    def unrated(self) -> int:
        return self._read()[1]

    def known_unrated(self) -> int | None:
        """The unrated's count if read already (with the rated's), else None."""
        return None if self._found is None else self._found[1]


def _unrated(rating_list: str, query: str) -> PlayerQuerySet:
    return Player.objects.current().unrated(rating_list).search(query).order_by("name", "pk")


def _rank_counts(visible: PlayerQuerySet, rating_list: str, lowest: int) -> QuerySet[Any, Any]:
    """The visible players counted by rating, for the ratings above ``lowest``."""
    field = LIST_FIELDS[rating_list].rating
    return (
        visible.filter(**{f"{field}__gt": lowest})
        .order_by()
        .values_list(field)
        .annotate(players=Count("pk"))
    )


@functools.lru_cache(maxsize=16)
def _compiled_reads(
    rating_list: str, show_inactive: bool
) -> tuple[CompiledPages, Compiled[Any], CompiledPages, Compiled[Any]]:
    """The standings' queries without a search, compiled once per process, list and choice
    of the inactive (``ladder.records.compiled``): the rated players' pages (by the inactive
    cutoff), the counts that rank a page (``_rank_counts``), the unrated players' pages, and
    the two lists' sizes (``_sizes``)."""
    return (
        CompiledPages(
            lambda *cutoff: (
                _visible(rating_list, show_inactive, *cutoff).search("").standings(rating_list)
            ),
            keys_first=True,
        ),
        Compiled(
            lambda lowest, *cutoff: _rank_counts(
                _visible(rating_list, show_inactive, *cutoff), rating_list, lowest
            )
        ),
        CompiledPages(lambda: _unrated(rating_list, "")),
        Compiled(lambda *cutoff: _sizes(rating_list, show_inactive, *cutoff)),
    )


def _ranks(counts: Callable[[int], Any], players, rating_list: str) -> dict[int, int]:
    """Rank each rating shown on the page among the visible players (ties share a rank).

    One query for the whole page, so a search keeps each player's place on the ladder: the
    visible players counted by rating (``counts``: ``_rank_counts``' rows), for the ratings
    above the lowest one shown (a count a rating shown, each over every visible player, cost
    20 ms at 5,000 players).
    """
    field = LIST_FIELDS[rating_list].rating
    ratings = {getattr(p, field) for p in players} - {None}
    if not ratings:
        return {}
    above, ranks = 0, {}
    pending = sorted(ratings, reverse=True)
    for rating, players_at in sorted(counts(min(ratings)), reverse=True):
        while pending and pending[0] >= rating:
            ranks[pending.pop(0)] = above + 1
        above += players_at
    for rating in pending:
        ranks[rating] = above + 1
    return ranks


def _ranks_at_the_top(players, rating_list: str) -> dict[int, int]:
    """``_ranks`` of the first page of the ladder, without a query: the page holds every
    visible player above each of its own, in order, so a rating's rank is one more than the
    players before its first row (the count was half a millisecond of the standings' server
    time at 5,000 players)."""
    field = LIST_FIELDS[rating_list].rating
    ranks: dict[int, int] = {}
    for above, player in enumerate(players):
        ranks.setdefault(getattr(player, field), above + 1)
    return ranks


def player(request, pk: int):
    """Show a player: every kept list's rating, then per list the chart and the periods with
    their games explained, and the next game on a chosen list."""
    player = get_object_or_404(Player, pk=pk)
    if (moved := merged.moved(request, pk=player)) is not None:
        return moved
    today = timezone.localdate()
    year = selectors.current_year()
    kept = kept_lists()
    officials = official.official_lists(kept, [player])
    fide_row = FideListEntry.objects.latest_for([player.fide_id]).get(player.fide_id or 0)
    summary, sections, histories = [], [], {}
    for rating_list in kept:
        histories[rating_list] = list(selectors.player_history(player, rating_list))
        summary.append(
            {
                "list": rating_list,
                "fide": fide_row.on_list(rating_list) if fide_row else None,
                "state": player.on_list(rating_list),
                "official_peak": _official_peak(player, histories[rating_list], rating_list),
                "standing": officials[rating_list].standing(player),
                "official": officials[rating_list].publication,
                "k": selectors.current_k(player, year=year, rating_list=rating_list),
                "inactive": selectors.is_inactive(player, on=today, rating_list=rating_list),
            }
        )
    period_ids = {rc.period_id for history in histories.values() for rc in history}
    revised = publication.player_revisions(player, kept, period_ids) if period_ids else {}
    bases = selectors.base_corrections(player) if period_ids else {}
    # The loops of the lists' sections by Jinja2 (ladder/web/jinja.py): Django's engine
    # resolving their variables was three quarters of the page's time. A card's game lines
    # first, one render a period.
    unrated_text = gettext("unrated")
    for rating_list, history in histories.items():
        if not history:
            continue  # no games on this list: no chart, no table, no query for its games
        lines = selectors.game_lines(player, [rc.period for rc in history], rating_list)
        _link_opponents(player, lines)
        sections.append(
            {
                "list": rating_list,
                "label": RatingList(rating_list).label,
                "chart": rating_chart(history, today=today),
                "periods": [
                    {
                        "change": rc,
                        "lines": lines.get(rc.period_id, []),
                        "lines_html": jinja_rows(
                            "ladder/game_lines.html",
                            {"lines": lines.get(rc.period_id, []), "unrated_text": unrated_text},
                        ),
                        "delta": rc.delta,
                        "revisions": revised.get((rating_list, rc.period_id), []),
                        "rules": selectors.rules_used(rc.period, rating_list),
                        "base": bases.get((rating_list, rc.period_id)),
                        "tournaments": selectors.tournament_sums(
                            lines.get(rc.period_id, []), rc.k_applied
                        ),
                    }
                    for rc in history
                ],
            }
        )
    # The period table's rows and the cards by Jinja2 as well, once a list.
    calc_head = mark_safe(render_to_string("ladder/_calc_head.html").rstrip("\n"))
    rules_url = reverse("ladder:rules")
    for section in sections:
        section["table_html"] = jinja_rows(
            "ladder/history_rows.html", {"periods": section["periods"]}
        )
        section["cards_html"] = jinja_rows(
            "ladder/period_cards.html",
            {
                "periods": section["periods"],
                "section": section,
                "player": player,
                "calc_head": calc_head,
                "rules_url": rules_url,
            },
        )
    preview_list = chosen_list(request)
    data = None
    if "opponent" in request.GET:
        data = request.GET.copy()
        data["list"] = preview_list
    form = WhatIfForm(data, lists=kept, initial={"list": preview_list})
    preview = None
    if form.is_valid():
        preview = selectors.next_game(player, form.cleaned_data["opponent"], preview_list)
    default = default_list()
    context = {
        "player": player,
        "fide_row": fide_row,
        "level": "" if player.title else fide.rating_level(player.on_list(default).rating),
        "summary": summary,
        "any_official": any(row["official"] is not None for row in summary),
        "sections": sections,
        "many_lists": len(kept) > 1,
        "sub": 3 if len(kept) > 1 else 2,  # a list's own headings sit under its name
        "form": form,
        "preview": preview,
        "preview_list": RatingList(preview_list).label,
        "preview_rated": player.on_list(preview_list).rating is not None,
        "any_rated": any(player.on_list(name).rating is not None for name in kept),
        "percentiles": [
            {"list": name, "label": RatingList(name).label, "share": share}
            for name, share in statistics.percentiles(player, kept).items()
        ],
    }
    return render(request, "ladder/player.html", context)


def _official_peak(player: Player, history: list[RatingChange], rating_list: str) -> int | None:
    """The highest official rating on a list: the peak after the newest closed (published)
    period of the history (newest first), else the peak the player entered with. The live
    peak, ``ListState.peak_rating``, also counts the open period's provisional ratings."""
    for rc in history:
        if rc.period.status == PeriodStatus.CLOSED:
            return rc.peak_after
    return player.entry_peak_on(LIST_FIELDS[rating_list])


def periods(request):
    """List every rating period, newest first, with its games and players counted."""
    rows = selectors.periods_with_counts().order_by("-start")
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "ladder/periods.html", {"page": page})


def period(request, label: str):
    """Show a period's full rating report and the list that closes it (as published, once the
    period is closed)."""
    if "\x00" in label:  # PostgreSQL refuses a NUL in a query parameter; no label holds one.
        raise Http404(gettext("No such period."))
    period = get_object_or_404(RatingPeriod, label=label)
    chosen = chosen_list(request)
    # The report a page at a time: a federation's month is tens of thousands of rows (5,000
    # rows were 3 MB of HTML and 2 s a request); its CSV and the API's bulk data give it whole.
    report = Paginator(selectors.period_report(period, chosen), REPORT_PER_PAGE)
    rows, k_reduced = selectors.report_size(period, chosen)
    report.count = rows  # read with the K check: the paginator asks no count of its own
    report_page = report.get_page(request.GET.get("rpage"))
    # The list that closes it: as published once the period is closed, a page at a time.
    published, list_page = official.period_list_page(
        period, chosen, request.GET.get("page"), LIST_PER_PAGE
    )
    context = {
        **_list_context(chosen),
        "period": period,
        "report": report_page,
        # The "K used" column on every page of the report if any row of it needs one.
        "k_reduced": k_reduced,
        "list_page": list_page,
        "list_publication": published,
        "publications": publication.revisions(period, chosen),
        "previous": RatingPeriod.objects.filter(start__lt=period.start).order_by("-start").first(),
        "next": RatingPeriod.objects.filter(start__gt=period.start).order_by("start").first(),
    }
    return render(request, "ladder/period.html", context)


CALCULATOR_DEFAULTS = {
    "mode": "single",
    "own": "1500",
    "opponent": "1600",
    "result": "win",
    "k_preset": "20",
    "method": fide.METHOD_FIDE,
}


def calculator(request):
    """Rate one game or an event, by the FIDE table or classic Elo, from a plain GET form."""
    if request.GET:
        data = {**CALCULATOR_DEFAULTS, **request.GET.dict()}
    else:
        data = {**CALCULATOR_DEFAULTS, "apply_cap": "on", "apply_700": "on"}
    form = CalculatorForm(data)
    context = {
        "form": form,
        "table": fide.expectation_bands(),
        "k_helper": _k_helper(request.GET),
        "gaps": calc.gap_table(None),
    }
    if form.is_valid():
        own, options = form.cleaned_data["own"], form.options()
        context["classic"] = options["method"] != fide.METHOD_FIDE
        if form.cleaned_data["mode"] == "event":
            context["event"] = fide.event_calculation(own, form.cleaned_data["games"], **options)
        else:
            context.update(_one_game(own, form.cleaned_data, options))
    return render(request, "ladder/calculator.html", context)


def _one_game(own: int, data: dict, options: dict) -> dict:
    opponent, chosen = data["opponent"], data["result"]
    results = fide.outcomes(own, opponent, **options)
    mine = results[chosen]
    return {
        "outcomes": [(name, results[name]) for name in ("win", "draw", "loss")],
        "chosen": chosen,
        "mine": mine,
        "theirs": calc.mirrored(own, opponent, chosen, **options),
        "levels": calc.levels(own, mine.rating_after),
        "line": results["win"].lines[0],
        "score": {"win": "1", "draw": "½", "loss": "0"}[chosen],
        "exact_after": own + mine.change_exact,
        "expected_percent": results["win"].expected * 100,
        "gaps": calc.gap_table(own - opponent),
    }


def _k_helper(query) -> dict:
    """The K helper's form and, when filled in and valid, the K it gives with a link to use it."""
    form = KHelperForm(query if KHelperForm(query).has_input() else None)
    advice = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        advice = calc.k_advice(
            rated_games=data["rated_games"] or 0,
            birth_year=data["birth_year"],
            peak_rating=data["peak_rating"],
            year=selectors.current_year(),
        )
    use = None
    if advice is not None:
        params = query.copy()
        params["k_preset"], params["k_other"] = OTHER, str(advice.value)
        if str(advice.value) in dict(CalculatorForm.K_CHOICES):
            params["k_preset"], params["k_other"] = str(advice.value), ""
        use = params.urlencode()
    return {"form": form, "advice": advice, "use": use}


# --- the rating chart: inline SVG on a real time axis ---------------------------------------

CHART = {"width": 640, "height": 256, "left": 56, "right": 16, "top": 12, "bottom": 46}


def rating_chart(history: list[RatingChange], *, today: date) -> dict | None:
    """Lay out a player's ratings over time: the opening rating, then each closing list.

    Dates map to x so that a gap between periods shows as a long flat line; the current rating
    is carried on to today, dashed. None when the player has never been rated.
    """
    points: list[tuple[date, int, str]] = []
    for rc in reversed(history):  # oldest first
        if rc.rating_before is not None and not points:
            opening = gettext("opening %(period)s") % {"period": rc.period.label}
            points.append((rc.period.start, rc.rating_before, opening))
        if rc.rating_after is not None:
            after = gettext("after %(period)s") % {"period": rc.period.label}
            points.append((rc.period.end, rc.rating_after, after))
    if not points:
        return None
    first, last = points[0][0], max(points[-1][0], today)
    low = min(r for _, r, _ in points) // 50 * 50 - 50
    high = -(-max(r for _, r, _ in points) // 50) * 50 + 50
    c = CHART
    span_days = max((last - first).days, 1)

    def x(day: date) -> float:
        return round(c["left"] + (day - first).days / span_days * _plot_width(), 1)

    def y(rating: int) -> float:
        plot_height = c["height"] - c["top"] - c["bottom"]
        return round(c["top"] + (high - rating) / (high - low) * plot_height, 1)

    step = next(s for s in (50, 100, 200, 250, 500, 1000) if (high - low) / s <= 6)
    y_ticks = [{"y": y(r), "label": r} for r in range(-(-low // step) * step, high + 1, step)]
    x_ticks = [{"x": x(day), "label": text} for day, text in _date_ticks(first, last)]
    dots = [{"x": x(d), "y": y(r), "label": f"{r} ({why}, {_day(d)})"} for d, r, why in points]
    carry = points[-1][0] < today
    return {
        **c,
        "bottom_y": c["height"] - c["bottom"],
        "right_x": c["width"] - c["right"],
        "polyline": " ".join(f"{d['x']},{d['y']}" for d in dots),
        "carry": {"x1": dots[-1]["x"], "x2": x(today), "y": dots[-1]["y"]} if carry else None,
        "dots": dots,
        "x_ticks": x_ticks,
        "y_ticks": y_ticks,
        "summary": gettext(
            "Rating from %(first)s on %(first_day)s to %(last)s on %(last_day)s, between "
            "%(low)s and %(high)s."
        )
        % {
            "first": points[0][1],
            "first_day": _day(first),
            "last": points[-1][1],
            "last_day": _day(points[-1][0]),
            "low": min(r for _, r, _ in points),
            "high": max(r for _, r, _ in points),
        },
    }


def _day(on: date) -> str:
    """A day as the page's language writes it short (the ``day`` filter's format)."""
    return date_format(on, pgettext("date format (Django's date filter): 2 Mar 2026", "j M Y"))


def _plot_width() -> int:
    return CHART["width"] - CHART["left"] - CHART["right"]


def _date_ticks(first: date, last: date) -> list[tuple[date, str]]:
    """Return at most about eight month or year starts between two dates, labelled."""
    months = (last.year - first.year) * 12 + last.month - first.month
    if months > 36:
        step = max(1, (last.year - first.year) // 8 + 1)
        years = range(first.year + 1, last.year + 1, step)
        return [(date(year, 1, 1), str(year)) for year in years]
    step = next(s for s in (1, 2, 3, 6, 12) if months / s <= 8)
    ticks = []
    day = date(first.year, first.month, 1)
    while day <= last:
        if day >= first and (day.month - 1) % step == 0:
            ticks.append((day, date_format(day, "M Y")))
        day = fide.add_months(day, 1)
    return ticks
