"""The players' pages; the reads among them are kept under the data version (read_cache)."""

from django.urls import path

from ladder.caching.read_cache import cached_page
from ladder.web import csv_views as views_csv
from ladder.web import head_to_head, rules_page, statistics, views

app_name = "ladder"
urlpatterns = [
    path("", cached_page(views.standings), name="standings"),
    path("players/<int:pk>/", cached_page(views.player), name="player"),
    path("players/<int:pk>/vs/", cached_page(head_to_head.compare), name="compare"),
    path(
        "players/<int:pk>/vs/<int:other>/",
        cached_page(head_to_head.head_to_head),
        name="head-to-head",
    ),
    path("periods/", cached_page(views.periods), name="periods"),
    path(
        "players/<int:pk>/history.csv",
        cached_page(views_csv.player_history_csv),
        name="player-csv",
    ),
    path("periods/<str:label>/", cached_page(views.period), name="period"),
    path(
        "periods/<str:label>/list.csv",
        cached_page(views_csv.period_list_csv),
        name="period-list-csv",
    ),
    path(
        "periods/<str:label>/games.csv",
        cached_page(views_csv.period_games_csv),
        name="period-games-csv",
    ),
    path("statistics/", cached_page(statistics.statistics), name="statistics"),
    path("calculator/", views.calculator, name="calculator"),
    # Not kept in the read cache: it reads no record, and its default day is today's.
    path("rules/", rules_page.rules, name="rules"),
]
