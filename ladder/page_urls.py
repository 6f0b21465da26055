"""The players' pages."""

from django.urls import path

from . import views

app_name = "ladder"
urlpatterns = [
    path("", views.standings, name="standings"),
    path("players/<int:pk>/", views.player, name="player"),
    path("periods/", views.periods, name="periods"),
    path("periods/<str:label>/", views.period, name="period"),
    path("calculator/", views.calculator, name="calculator"),
]
