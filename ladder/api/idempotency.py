"""``Idempotency-Key`` on API POSTs: a retry with the same key gets the first answer again and
writes nothing more (a client that timed out cannot tell whether its write was stored).

The key is claimed in the write's own transaction: a retry arriving while the first request
still runs waits on the claim's unique index (PostgreSQL) or on the database's write lock
(SQLite), then finds the stored answer. Only a success is stored; a refused request wrote
nothing, so its retry is simply checked again. Keys are kept ``KEPT`` and are per user.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta
from http import HTTPStatus

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ladder.records import IdempotentRequest

HEADER = "Idempotency-Key"
KEPT = timedelta(hours=24)
_MAX_KEY = IdempotentRequest._meta.get_field("key").max_length or 200


def idempotent(request: Request, write: Callable[[], Response]) -> Response:
    """Answer ``write()``, or the stored answer to the same key's first request."""
    key = request.headers.get(HEADER)
    if key is None or not request.user.is_authenticated:
        return write()
    if not key.strip() or len(key) > _MAX_KEY or not key.isprintable():
        raise ValidationError(
            {
                HEADER: [
                    gettext("Give a key of 1 to %(most)s printable characters.")
                    % {"most": _MAX_KEY}
                ]
            }
        )
    user_id = int(request.user.pk)
    fingerprint = hashlib.sha256(request.body).hexdigest()
    with transaction.atomic():
        try:
            with transaction.atomic():
                claim = IdempotentRequest.objects.create(
                    user_id=user_id, key=key, method=request.method or "POST",
                    path=request.path, fingerprint=fingerprint, status=0,
                )  # fmt: skip
        except IntegrityError:
            return _replay(request, user_id, key, fingerprint)
        response = write()
        if not 200 <= response.status_code < 300:
            transaction.set_rollback(True)  # nothing was written: a retry is checked again
            return response
        claim.status, claim.response = response.status_code, response.data
        claim.save(update_fields=["status", "response"])
        IdempotentRequest.objects.filter(
            user_id=user_id, created__lt=timezone.now() - KEPT
        ).delete()
    return response


def _replay(request: Request, user_id: int, key: str, fingerprint: str) -> Response:
    first = IdempotentRequest.objects.get(user_id=user_id, key=key)
    if (first.method, first.path, first.fingerprint) != (request.method, request.path,
                                                        fingerprint):  # fmt: skip
        return Response(
            {
                HEADER: [
                    gettext(
                        "This key was used for another request (%(method)s %(path)s); "
                        "use a new key for a new request."
                    )
                    % {"method": first.method, "path": first.path}
                ]
            },  # fmt: skip
            status=HTTPStatus.UNPROCESSABLE_ENTITY,
        )
    response = Response(first.response, status=first.status)
    response["Idempotent-Replayed"] = "true"
    return response
