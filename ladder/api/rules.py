"""The rules in force on a day, as JSON: ``GET /api/v1/rules/?date=YYYY-MM-DD&list=standard``.

The same as the page "Rules in force on ..." (``ladder.web.rules_page``), from the same pure
reader, ``ratings.rules.in_force``: the rule set for a tournament starting on that day, the
neighbouring rule sets and FIDE's one-off adjustments near the day. Reads no record.

The field names and the schema are English; the sentences (``about``, ``text``, ``since``,
``since_text``, a change's ``text``, an adjustment's ``reason``) and the refusals follow
``Accept-Language``, as every message of the API does (docs/translations.md).
"""

from __future__ import annotations

import builtins
from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from ladder.api.schema import errors
from ladder.api.serializers import RulesTextField
from ladder.api.views import ApiMixin
from ladder.records.translations import rules_text
from ratings.rules import fide, in_force


class RuleLineSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The rule's key: k, seven_hundred, cap, ...")
    about = serializers.CharField(help_text="What the rule is about, e.g. 'K factor'.")
    text = serializers.CharField(help_text="What the rule says.")
    article = serializers.CharField(help_text="The article that holds it (today's numbering).")
    since = serializers.CharField(help_text="From when it applies: '1 Jul 2009', 'before ...'.")
    established = serializers.BooleanField(
        help_text="False: FIDE's texts do not establish the value or the date; Ladder's choice."
    )


class ChangeSerializer(serializers.Serializer):
    date = serializers.DateField(source="on", help_text="A day that rule set is in force.")
    text = RulesTextField(help_text="When it began: '1 Jan 2022', 'before 1 Jul 2009'.")


class AdjustmentSerializer(serializers.Serializer):
    date = serializers.DateField(source="on")
    lists = serializers.ListField(child=serializers.CharField())
    reason = RulesTextField()
    article = serializers.CharField()


class RulesInForceSerializer(serializers.Serializer):
    date = serializers.DateField(source="on", help_text="The tournament's start date asked.")
    list = serializers.CharField(source="rating_list")
    since = serializers.DateField(
        allow_null=True, help_text="The day this rule set began (null: before 1 July 2009)."
    )
    since_text = RulesTextField()
    rules = serializers.SerializerMethodField()
    previous = ChangeSerializer(allow_null=True, help_text="The rule set before (null: none).")
    next = ChangeSerializer(allow_null=True, help_text="The next rule set (null: none yet).")
    adjustments = AdjustmentSerializer(
        many=True, help_text="FIDE's one-off adjustments of this list within two years."
    )

    @extend_schema_field(RuleLineSerializer(many=True))
    def get_rules(self, found: in_force.RulesInForce) -> builtins.list[dict[str, object]]:
        """Each rule as ``RuleLineSerializer`` documents it (``list`` is a field here)."""
        return [
            {
                "name": line.name,
                "about": rules_text(found.label(line)),
                "text": rules_text(line.text),
                "article": line.article,
                "since": rules_text(line.since),
                "established": line.established,
            }
            for line in found.lines
        ]


class RulesInForceView(ApiMixin, GenericAPIView):
    permission_classes = [AllowAny]
    serializer_class = RulesInForceSerializer
    filter_backends: list = []
    pagination_class = None

    @extend_schema(
        summary="Rules in force on a day",
        description="FIDE's rating rules for a tournament starting on `date` on `list`: each "
        "rule's text, article, since when it applies and whether FIDE's texts establish it "
        "(`established: false` is Ladder's choice), the rule sets just before and after, and "
        "the one-off adjustments of that list within two years. Open to everyone; reads no "
        "record. A date that is not YYYY-MM-DD, a list that is not one of FIDE's, or a day "
        "before that list's first rules answers 400 naming the field.",
        parameters=[
            OpenApiParameter(
                "date",
                {"type": "string", "format": "date", "example": "2026-04-15"},
                description="YYYY-MM-DD (default: today).",
            ),
            OpenApiParameter(
                "list",
                OpenApiTypes.STR,
                enum=list(fide.LISTS),
                description="The rating list (default: standard).",
            ),
        ],
        responses={200: RulesInForceSerializer, **errors(400)},
    )
    def get(self, request: Any) -> Response:
        params = request.query_params
        try:
            on = in_force.parse_day(params.get("date"), today=timezone.localdate())
            rating_list = in_force.parse_list(params.get("list"))
            found = in_force.rules_in_force(on, rating_list)
        except in_force.NotInForce as error:
            raise ValidationError({error.field: [rules_text(error)]}) from error
        return Response(RulesInForceSerializer(found).data)
