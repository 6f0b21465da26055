"""Redoc's bundle served from this site without its one outside request.

drf-spectacular-sidecar ships Redoc's standalone bundle (``REDOC_DIST = "SIDECAR"``); the bundle
draws its "API docs by Redocly" logo from cdn.redoc.ly, which the Content Security Policy
refuses (images from this site only). This view serves the sidecar's file with that one address
pointed at the site's own icon, read once per process."""

from __future__ import annotations

from functools import cache

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.templatetags.static import static
from django.views.decorators.http import require_safe

BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
OUTSIDE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@cache
def _bundle() -> bytes:
    path = finders.find(BUNDLE)
    if not isinstance(path, str):
        raise FileNotFoundError(f"{BUNDLE} is missing: install drf-spectacular-sidecar.")
    with open(path, "rb") as source:
        text = source.read()
    return text.replace(OUTSIDE_LOGO.encode(), static("ladder/favicon.svg").encode())


@require_safe
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    """Redoc's standalone bundle, with its logo from this site (cached by browsers a day)."""
    response = HttpResponse(_bundle(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response
