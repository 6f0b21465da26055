"""The players' pages; the reads among them are kept under the data version (read_cache)."""

from django.urls import path

from . import views
from .read_cache import cached_page

app_name = "ladder"
urlpatterns = [
    path("", cached_page(views.standings), name="standings"),
    path("players/<int:pk>/", cached_page(views.player), name="player"),
    path("periods/", cached_page(views.periods), name="periods"),
    path("periods/<str:label>/", cached_page(views.period), name="period"),
    path("calculator/", views.calculator, name="calculator"),
]
