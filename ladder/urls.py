"""Root URLs: the players' pages, the admin, the REST API v1, the language switcher and the
health check."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from ladder.web.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # The footer's language switcher (Django's view: it sets the language cookie and goes back).
    # Without a CSRF token: the form is on every page, and a token would set the CSRF cookie on
    # each, which keeps every page out of the read cache; all a forged post could do is choose a
    # visitor's language.
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("api/v1/", include("ladder.api.urls")),
    path("", include("ladder.web.urls")),
]
