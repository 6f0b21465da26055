"""Pagination: page numbers from 1 everywhere; the rating list adds the period whose list it is."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination

from ladder.records.paging import Paginator


class PageNumbers(PageNumberPagination):
    """DRF's page numbers, with the schema saying that pages count from 1; a short first page
    counted by its rows (``ladder.records.paging``)."""

    django_paginator_class = Paginator

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters


class RatingListPagination(PageNumbers):
    """Page numbers, plus the period whose list this is."""

    period: dict | None = None
    rating_list: str | None = None
    publication: dict | None = None  # the publication read (``as_published``)

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["period"] = self.period
        response.data["rating_list"] = self.rating_list
        response.data["publication"] = self.publication
        return response

    def get_paginated_response_schema(self, schema: dict) -> dict:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["period"] = {
            "type": "object",
            "nullable": True,
            "description": "The period whose closing list this is (null: no periods yet).",
            "properties": {
                "id": {"type": "integer"},
                "label": {"type": "string"},
                "start": {"type": "string", "format": "date"},
                "end": {"type": "string", "format": "date"},
                "status": {"type": "string", "enum": ["open", "closed"]},
            },
        }
        paginated["properties"]["rating_list"] = {
            "type": "string",
            "description": "The list these lines are on: standard, rapid or blitz.",
        }
        paginated["properties"]["publication"] = {
            "type": "object",
            "nullable": True,
            "description": "With `as_published`: the publication these lines are (revision 1: "
            "as first published); null for a list read as it is now.",
            "properties": {
                "revision": {"type": "integer"},
                "published_at": {"type": "string", "format": "date-time"},
                "published_by": {"type": "string", "nullable": True},
                "reason": {"type": "string"},
                "corrected_in": {"type": "string", "nullable": True},
                "players_changed": {"type": "integer"},
            },
        }
        return paginated
