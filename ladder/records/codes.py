"""Codes of refusals that the doors answer differently from the rest."""

# A refusal caused by what is recorded rather than by the request itself (a duplicate, games in
# the way, periods out of order): the API answers 409 Conflict, not 400.
CONFLICT = "conflict"
