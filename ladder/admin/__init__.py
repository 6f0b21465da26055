"""The administrators' door: Django's admin, its round entry, previews and file imports."""

from ladder.admin import ratings, registry, webhooks  # noqa: F401  (each registers its ModelAdmins)
