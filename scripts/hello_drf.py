"""A Django REST framework "hello", the yardstick of ``scripts/bench_web.py``.

One view answering ``{"hello": "world"}`` as JSON, in a project of its own with the middleware
a deployed Django project keeps, served by gunicorn the way the bench serves Ladder:

    gunicorn --chdir scripts hello_drf:application --workers 2

A read of Ladder is held against it as a share of its requests per second, measured in the same
run on the same machine (absolute figures on a shared machine mean little).
"""

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="bench-hello-not-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "rest_framework",
    ],
    MIDDLEWARE=[
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.common.CommonMiddleware",
    ],
    DATABASES={},
    REST_FRAMEWORK={
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework.decorators import api_view  # noqa: E402
from rest_framework.response import Response  # noqa: E402


@api_view(["GET"])
def hello(request):
    return Response({"hello": "world"})


urlpatterns = [path("hello/", hello)]
application = get_wsgi_application()
