"""Reads are public; writes need an authenticated user holding the model permission."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, DjangoModelPermissionsOrAnonReadOnly


class ModelPermissions(DjangoModelPermissionsOrAnonReadOnly):
    """Model permissions, with actions that name their own (``view.action_permissions``).

    ``POST /periods/{id}/close/`` changes a period rather than adding one, so it asks for
    ``change_ratingperiod`` instead of the ``add`` permission a POST maps to by default.
    """

    def has_permission(self, request, view) -> bool:
        required = getattr(view, "action_permissions", {}).get(getattr(view, "action", None))
        if required is None:
            if request.method in SAFE_METHODS and not self.perms_map.get(request.method):
                # A read asks no permission: DRF's check would build the view's queryset
                # (``get_queryset``) only to name its model, on every read.
                return bool(request.user)
            return super().has_permission(request, view)
        user = request.user
        return bool(user and user.is_authenticated and user.has_perms(required))
