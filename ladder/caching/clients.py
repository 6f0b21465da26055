"""Who is asking: the client's address, trusting ``X-Forwarded-For`` only from our proxies.

Without ``LADDER_TRUSTED_PROXIES`` the client is the connection's peer (``REMOTE_ADDR``), and
any ``X-Forwarded-For`` header is ignored: a client cannot pick its own address. Behind proxies,
the header is read from the right (the address our proxy saw) and the first address that is
not one of our proxies is the client.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest


@lru_cache(maxsize=8)
def _networks(
    proxies: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _trusted(address: str) -> bool:
    proxies = settings.LADDER_TRUSTED_PROXIES
    if not proxies:  # the usual case: nothing to parse (a twentieth of the cheapest API read)
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(tuple(proxies)))


def client_ip(request: HttpRequest) -> str:
    """The address of the client that sent ``request``."""
    peer = request.META.get("REMOTE_ADDR", "") or ""
    if not _trusted(peer):
        return peer
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a forged or garbled hop: the last proxy we trust is all we know
        if not _trusted(hop):
            return hop
    return hops[0] if hops else peer
