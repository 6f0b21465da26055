"""WSGI entry point (gunicorn ladder.wsgi)."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
application = get_wsgi_application()

# What a serving process keeps for its life (the apps, the models, the URLconf: about 140,000
# objects) moved out of the cyclic collector's reach, as large Django deployments do: its
# full collections scanned all of it again every few requests (docs/benchmarks.md). Garbage
# made later is collected as before.
get_resolver().url_patterns  # noqa: B018  (the URLconf imported now, not at the first request)
gc.freeze()
