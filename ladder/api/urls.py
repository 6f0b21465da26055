"""REST API v1 routes (see ladder/api/views.py), the OpenAPI schema and its docs."""

from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from ladder.api import (
    base_corrections,
    bulk,
    docs,
    head_to_head,
    merges,
    ratings_on_date,
    rules,
    tournament_records,
    tournaments,
    views,
)

app_name = "api"

router = DefaultRouter()
router.include_format_suffixes = False
router.register("players", views.PlayerViewSet, basename="player")
router.register("games", views.GameViewSet, basename="game")
router.register("periods", views.PeriodViewSet, basename="period")
router.register("rating-runs", views.RatingRunViewSet, basename="rating-run")
router.register("tournaments", tournament_records.TournamentViewSet, basename="tournament")
router.register(
    "base-corrections", base_corrections.BaseCorrectionViewSet, basename="base-correction"
)

# Swagger UI and Redoc start from an inline script and inject their styles (Redoc also runs a
# worker from a blob): the Content Security Policy allows that on these two pages only.
_DOCS_CSP = csp_update(
    {
        "script-src": ["'unsafe-inline'"],
        "style-src": ["'unsafe-inline'"],
        "worker-src": ["'self'", "blob:"],
    }
)

urlpatterns = [
    path("rating-list/", views.RatingListView.as_view(), name="rating-list"),
    path("calculator/", views.CalculatorView.as_view(), name="calculator"),
    path(
        "players/<int:id>/head-to-head/<int:other>/",
        head_to_head.HeadToHeadView.as_view(),
        name="head-to-head",
    ),
    path("players/<int:id>/merge/", merges.MergeView.as_view(), name="player-merge"),
    path("players/<int:id>/unmerge/", merges.UnmergeView.as_view(), name="player-unmerge"),
    path("players/<int:id>/rating/", ratings_on_date.RatingOnDateView.as_view(), name="rating-on"),
    path("freshness/", views.FreshnessView.as_view(), name="freshness"),
    path("rules/", rules.RulesInForceView.as_view(), name="rules"),
    path(
        "tournaments/import/",
        tournaments.TournamentImportView.as_view(),
        name="tournament-import",
    ),
    path(
        "tournaments/export/",
        tournaments.TournamentExportView.as_view(),
        name="tournament-export",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", _DOCS_CSP(SpectacularSwaggerView.as_view(url_name="api:schema")), name="docs"),
    path("redoc/", _DOCS_CSP(SpectacularRedocView.as_view(url_name="api:schema")), name="redoc"),
    path("redoc/redoc.standalone.js", docs.redoc_bundle, name="redoc-bundle"),
    path("", include(router.urls)),
]


def _kept(patterns: list) -> None:
    """Answer the reads of these routes from the read cache (``views.cached_api``)."""
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            _kept(pattern.url_patterns)
        elif pattern.name not in {"schema", "docs", "redoc", "redoc-bundle", "rules"}:
            pattern.callback = views.cached_api(pattern.callback)


_kept(urlpatterns)

# Bulk data is streamed, never kept whole: it answers its own conditional requests.
urlpatterns += [
    path("bulk/rating-list/", bulk.RatingListStreamView.as_view(), name="bulk-rating-list"),
    path(
        "bulk/players/<int:pk>/history/",
        bulk.HistoryStreamView.as_view(),
        name="bulk-player-history",
    ),
]
