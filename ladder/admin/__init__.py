"""The administrators' door: Django's admin, its round entry, previews and file imports."""

from ladder.admin import ratings, registry, tournament_records  # noqa: F401  (each registers its ModelAdmins)
