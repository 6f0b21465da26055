"""API tokens, hashed at rest: ``Authorization: Token <key>`` is checked against the SHA-256
of the key (``ladder.records.ApiToken``), with an expiry and a revocation."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from ladder.records import ApiToken


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's ``Token`` scheme (header parsing, ``WWW-Authenticate``, the OpenAPI security
    scheme), against hashed, expiring, revocable tokens instead of plain-text keys."""

    def authenticate_credentials(self, key):
        token = ApiToken.objects.select_related("user").filter(digest=ApiToken.hash(key)).first()
        if token is None or not token.user.is_active:
            raise AuthenticationFailed(gettext("Invalid token."))
        if token.revoked_at is not None:
            raise AuthenticationFailed(gettext("This token was revoked; ask for a new one."))
        if token.expires_at <= timezone.now():
            raise AuthenticationFailed(gettext("This token has expired; ask for a new one."))
        return (token.user, token)
