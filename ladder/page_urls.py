"""The players' pages."""

from django.urls import path

from . import views, views_csv

app_name = "ladder"
urlpatterns = [
    path("", views.standings, name="standings"),
    path("players/<int:pk>/", views.player, name="player"),
    path("periods/", views.periods, name="periods"),
    path("players/<int:pk>/history.csv", views_csv.player_history_csv, name="player-csv"),
    path("periods/<str:label>/", views.period, name="period"),
    path("periods/<str:label>/list.csv", views_csv.period_list_csv, name="period-list-csv"),
    path("periods/<str:label>/games.csv", views_csv.period_games_csv, name="period-games-csv"),
    path("calculator/", views.calculator, name="calculator"),
]
