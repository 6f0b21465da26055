"""Pagination of the rating list: page numbers, plus the period whose list it is."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class RatingListPagination(PageNumberPagination):
    """Page numbers, plus the period whose list this is."""

    period: dict | None = None
    rating_list: str | None = None

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["period"] = self.period
        response.data["rating_list"] = self.rating_list
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
        return paginated
