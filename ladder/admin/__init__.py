"""The administrators' door: Django's admin, its round entry, previews and file imports."""

from ladder.admin import (  # noqa: F401  (each registers its ModelAdmins)
    ratings,
    registry,
    tokens,
    tournament_records,
    webhooks,
)
