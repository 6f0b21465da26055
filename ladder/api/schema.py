"""OpenAPI helpers: the error responses every endpoint documents, shared examples, and the
schema class that states the validators' constraints (``schema_constraints``)."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, PolymorphicProxySerializer
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS, AllowAny, DjangoModelPermissionsOrAnonReadOnly

from ladder.api.schema_constraints import text_pattern_of
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
        "The request is well formed but conflicts with what is recorded: a closed period "
        "(reopen it first), a duplicate (the game, tournament, correction, file, FIDE id or "
        "national id is recorded already), a merged player, a recorded tournament's dates or "
        "list, games in the way, or periods out of order. Messages by field, as for 400.",
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


def distinct(*pairs: tuple[str, str]) -> dict:
    """An operation's ``x-distinct`` extension: pairs of its values that must differ, each
    named ``path.NAME``, ``query.NAME`` or ``body.NAME`` (White and Black; the player kept and
    the one merged). OpenAPI cannot state a rule between two values; the API refuses the pair
    with a 400 naming the second, and the description says so in words. Generators read it:
    Schemathesis's hooks (scripts/schemathesis_hooks.py) send no such pair as valid data."""
    return {"x-distinct": [list(pair) for pair in pairs]}


def ordered(*pairs: tuple[str, str]) -> dict:
    """An operation's ``x-ordered`` extension: pairs of dates or numbers whose first is not
    after or above the second (a tournament's start and end, an entry rating and its peak),
    both given, named as for ``distinct``, refused alike."""
    return {"x-ordered": [list(pair) for pair in pairs]}


def requires(*pairs: tuple[str, str]) -> dict:
    """An operation's ``x-requires`` extension: pairs whose first value, given (not null nor
    blank), needs the second given too (a peak rating needs the rating), named as for
    ``distinct``, refused alike; a second written ``body.a|body.b`` needs either (a national
    id needs its federation or the player's). In a partial change the second may be the one
    recorded already."""
    return {"x-requires": [list(pair) for pair in pairs]}


def combined(*extensions: dict) -> dict:
    """Several operations' extensions in one, their pairs put together."""
    found: dict[str, list] = {}
    for extension in extensions:
        for name, pairs in extension.items():
            found.setdefault(name, []).extend(pairs)
    return found


WRITE_ERRORS = (400, 401, 403)
OBJECT_WRITE_ERRORS = (400, 401, 403, 404)


def query_schema(
    serializer_class: type[serializers.Serializer], name: str, example: object = None
) -> dict:
    """The schema of a query parameter read by a field of ``serializer_class``: its type and
    bounds from the field itself (for ``OpenApiParameter``, which takes no field), and an
    example when given."""
    field = serializer_class().fields[name]
    found: dict = {"type": "integer" if isinstance(field, serializers.IntegerField) else "string"}
    if example is not None:
        found["example"] = example
    for bound, key in (("min_value", "minimum"), ("max_value", "maximum")):
        if getattr(field, bound, None) is not None:
            found[key] = getattr(field, bound)
    return found


class ValidatorsSchema(AutoSchema):
    """drf-spectacular's schema, plus in requests what the fields' own validators enforce and
    drf-spectacular does not read: the characters a text validator refuses (as a pattern),
    that a record's id is 1 or more, the bounds of a list of objects (``min_length``,
    ``max_length``, ``allow_empty``, or named in the serializer's ``non_empty``)."""

    def _resolve_path_parameters(self, variables):
        """Ids in paths count from 1; the example is the first record (``other``: the
        second, another player than ``id``)."""
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            schema = parameter["schema"]
            if schema.get("type") == "integer":
                schema.setdefault("minimum", 1)
                schema.setdefault("example", 2 if parameter["name"] == "other" else 1)
        return parameters

    def _get_request_for_media_type(self, serializer, direction="request"):
        """A body of one shape or another (the calculator's game or event) is required when
        each shape has a required field, as a plain serializer's is: drf-spectacular cannot
        tell for a one-of, and a generator would send no body at all."""
        schema, required = super()._get_request_for_media_type(serializer, direction)
        if isinstance(serializer, PolymorphicProxySerializer) and self.method != "PATCH":
            shapes = serializer.serializers
            shapes = shapes.values() if isinstance(shapes, dict) else shapes
            required = all(
                any(field.required for field in force_instance(shape).fields.values())
                for shape in shapes
            )
        return schema, required

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        properties = schema.get("properties", {})
        # Examples of single fields (a serializer's ``field_examples``): what the docs show, and
        # what generators (Schemathesis's examples and coverage phases) start from.
        for name, example in getattr(serializer, "field_examples", {}).items():
            if name in properties:
                properties[name]["example"] = example
        if direction != "request":
            return schema
        # Bounds that move with the date (a birth year up to this one), read when the schema is.
        for name, bounds in getattr(serializer, "field_bounds", {}).items():
            if name in properties:
                properties[name].update({key: bound() for key, bound in bounds.items()})
        for field in serializer.fields.values():
            found = properties.get(field.field_name)
            if found is None or field.read_only:
                continue
            if found.get("type") == "string" and "pattern" not in found:
                pattern = text_pattern_of(field.validators)
                if pattern is not None:
                    found["pattern"] = pattern
            if (
                isinstance(field, serializers.PrimaryKeyRelatedField)
                and found.get("type") == "integer"
            ):
                found.setdefault("minimum", 1)  # ids count from 1: no record has a smaller one
            if isinstance(field, serializers.ListSerializer) and found.get("type") == "array":
                _items_bounds(
                    field, found, field.field_name in getattr(serializer, "non_empty", ())
                )
        return schema


def _items_bounds(field: serializers.ListSerializer, schema: dict, non_empty: bool) -> None:
    minimum = getattr(field, "min_length", None)
    if non_empty or not field.allow_empty:
        minimum = max(minimum or 0, 1)
    if minimum:
        schema["minItems"] = minimum
    maximum = getattr(field, "max_length", None)
    if maximum is not None:
        schema["maxItems"] = maximum


class PublicReadsSchema(ValidatorsSchema):
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
