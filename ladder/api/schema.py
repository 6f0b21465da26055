"""OpenAPI helpers: the error responses every endpoint documents, and shared examples."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework.permissions import SAFE_METHODS, AllowAny, DjangoModelPermissionsOrAnonReadOnly

from ladder.api.serializers import ErrorSerializer, FieldErrorsSerializer

_ERRORS = {
    400: OpenApiResponse(
        FieldErrorsSerializer,
        "Bad input: messages by field name (non_field_errors for the rest).",
        examples=[
            OpenApiExample(
                "Field errors",
                {"black": ["A player cannot play themselves."]},
                response_only=True,
                status_codes=["400"],
            )
        ],
    ),
    401: OpenApiResponse(
        ErrorSerializer, "Not authenticated: log in (session) or send 'Authorization: Token ...'."
    ),
    403: OpenApiResponse(ErrorSerializer, "Authenticated, but without the model permission."),
    404: OpenApiResponse(ErrorSerializer, "No such object."),
    409: OpenApiResponse(
        FieldErrorsSerializer,
        "The write falls into a closed period; reopen the period first.",
        examples=[
            OpenApiExample(
                "Closed period",
                {
                    "date": [
                        "The period 2026-03 is closed; its games are frozen. Reopen it first "
                        "(admin action 'Reopen', or: manage.py reopen_period 2026-03 "
                        "--reason '...')."
                    ]
                },
                response_only=True,
                status_codes=["409"],
            )
        ],
    ),
}


def errors(*statuses: int) -> dict:
    """Return the documented error responses for these statuses."""
    return {status: _ERRORS[status] for status in statuses}


WRITE_ERRORS = (400, 401, 403)
OBJECT_WRITE_ERRORS = (400, 401, 403, 404)


class PublicReadsSchema(AutoSchema):
    """Mark reads as open to everyone (an empty security requirement), as the permission class
    answers them; drf-spectacular only knows AllowAny and IsAuthenticatedOrReadOnly."""

    def get_auth(self):
        auths = super().get_auth()
        permissions = self.view.get_permissions()
        public = not permissions or any(
            isinstance(permission, (DjangoModelPermissionsOrAnonReadOnly, AllowAny))
            for permission in permissions
        )
        if public and self.method in SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths
