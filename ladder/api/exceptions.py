"""Errors as JSON with field-level messages and the right status.

DRF already answers its own exceptions; this handler adds the club's services: a Django
``ValidationError`` becomes 400 with the same field messages, and ``PeriodClosedError`` (a write
into a closed period) becomes 409 Conflict, ``ReopenRefused`` (a reopen beyond the correction
window without the permission) 403 with the message that says who holds it.
"""

from __future__ import annotations

from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ObjectDoesNotExist, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from ladder.exceptions import ReopenRefused, is_conflict
from ladder.records.codes import CONFLICT


def field_errors(error: DjangoValidationError) -> dict:
    """Return a Django ``ValidationError`` as DRF's ``{field: [message, ...]}``."""
    detail = as_serializer_error(error)
    if NON_FIELD_ERRORS in detail:
        detail[api_settings.NON_FIELD_ERRORS_KEY] = detail.pop(NON_FIELD_ERRORS)
    return detail


class PlayerMerged(exceptions.APIException):
    """A merged player's id (``ladder.api.merged_ids``): 301 for a read (``location``), 410
    for a write, each with the kept player's id."""

    def __init__(self, merged_id: int, kept_id: int, location: str | None) -> None:
        self.kept_id, self.location = kept_id, location
        self.status_code = HTTPStatus.MOVED_PERMANENTLY if location else HTTPStatus.GONE
        super().__init__(f"Player #{merged_id} was merged into player #{kept_id}.")


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """Answer service errors like DRF's own: JSON, field messages, the right status."""
    if isinstance(exc, PlayerMerged):
        headers = {"Location": exc.location} if exc.location else {}
        data = {"detail": str(exc.detail), "merged_into": exc.kept_id}
        return Response(data, status=exc.status_code, headers=headers)
    if isinstance(exc, RequestDataTooBig):  # Django's own limit (DATA_UPLOAD_MAX_MEMORY_SIZE)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        exc = exceptions.ParseError(
            gettext("The request body is larger than %(limit)s bytes.") % {"limit": f"{limit:,}"}
        )
    if isinstance(exc, ObjectDoesNotExist):  # the row went away meanwhile (a race): 404
        exc = exceptions.NotFound(str(exc) or None)
    if isinstance(exc, ReopenRefused):
        exc = exceptions.PermissionDenied(" ".join(exc.messages))
    if isinstance(exc, DjangoValidationError) and is_conflict(exc):
        return Response(field_errors(exc), status=HTTPStatus.CONFLICT)
    if isinstance(exc, DjangoValidationError):  # its codes kept, for the rule below
        exc = exceptions.ValidationError(field_errors(exc))
    # A value another record holds, whether the serializer found it or the database did (the
    # loser of a race to the same FIDE id): a conflict, one rule for both.
    if isinstance(exc, exceptions.ValidationError) and _only_duplicates(exc.get_codes()):
        exc.status_code = HTTPStatus.CONFLICT
    return drf_exception_handler(exc, context)


def _only_duplicates(codes: object) -> bool:
    """Whether every code of a DRF error is a uniqueness one (a value another record holds)."""
    if isinstance(codes, dict):
        return bool(codes) and all(_only_duplicates(found) for found in codes.values())
    if isinstance(codes, list):
        return bool(codes) and all(_only_duplicates(found) for found in codes)
    return codes in ("unique", "unique_together", CONFLICT)
