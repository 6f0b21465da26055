"""Root URLs: the players' pages, the admin, the REST API v1 and the health check."""

from django.contrib import admin
from django.urls import include, path

from ladder.web.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("ladder.api.urls")),
    path("", include("ladder.web.urls")),
]
