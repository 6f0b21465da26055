"""The anonymous API throttle, counted per client in the shared cache (see settings CACHES)."""

from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle

from ladder.clients import client_ip


class AnonThrottle(AnonRateThrottle):
    """DRF's anonymous throttle, with the client read by ``ladder.clients`` (DRF's own reading
    trusts any ``X-Forwarded-For``)."""

    def get_ident(self, request) -> str:
        return client_ip(request)
