"""Root URLs: the players' pages, the admin and the REST API v1."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("ladder.api.urls")),
    path("", include("ladder.page_urls")),
]
