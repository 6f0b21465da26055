"""The admin's side doors, closed: History revert and deletes go through the write path.

A revert is the change form filled with an old version's values: it is bound to the row as
stored now (so status, closing time and derived ratings stay as they are), checked by the same
form and validator and saved by the same action as a change; a model admin may switch it off
with a sentence. Deletes (the object's page and the bulk "Delete selected") go through an
action that refuses with a sentence, said before any confirmation page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import router, transaction
from django.db.models import Model
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy
from simple_history.admin import SimpleHistoryAdmin

NOTHING_DELETED = gettext_lazy("Nothing was deleted.")
NOTHING_REVERTED = gettext_lazy("Nothing was reverted.")


def _url(model_admin: Any, view: str, *args: Any) -> str:
    opts = model_admin.model._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=args)


class RevertThroughChangeAdmin(SimpleHistoryAdmin):
    """simple-history's admin whose revert saves through this admin's form and ``save_model``."""

    def revert_refusal(self, obj: Model) -> str | None:
        """Say why ``obj`` (as stored now) cannot be reverted, or None when it can."""
        return None

    def _refusal(self, pk: Any) -> str | None:
        stored = self.model._default_manager.filter(pk=pk).first()
        return self.revert_refusal(stored) if stored is not None else None

    def revert_disabled(self, request: HttpRequest, obj: Any = None) -> bool:
        refused = obj is not None and self._refusal(obj.pk) is not None
        return refused or bool(super().revert_disabled(request, obj))

    def history_form_view(
        self, request: HttpRequest, object_id: str, version_id: str, extra_context: Any = None
    ) -> HttpResponse:
        history = self.model.history.model
        get_object_or_404(history, **{self.model._meta.pk.attname: object_id,
                                      "history_id": version_id})  # fmt: skip
        refusal = self._refusal(unquote(object_id))
        if request.method != "POST":
            if refusal is not None:
                self.message_user(request, refusal, messages.WARNING)
            return super().history_form_view(request, object_id, version_id, extra_context)
        if refusal is not None:
            self.message_user(request, f"{NOTHING_REVERTED} " + refusal, messages.ERROR)
            return HttpResponseRedirect(_url(self, "history", object_id))
        return self._revert(request, object_id, version_id)

    def _revert(self, request: HttpRequest, object_id: str, version_id: str) -> HttpResponse:
        obj = self.get_object(request, unquote(object_id))
        if obj is None or not self.has_change_permission(request, obj):
            raise PermissionDenied
        form = self.get_form(request, obj, change=True)(request.POST, request.FILES, instance=obj)
        back = HttpResponseRedirect(request.path)
        if not form.is_valid():
            found = [m for errors in form.errors.values() for m in errors]
            self.message_user(request, f"{NOTHING_REVERTED} " + " ".join(found), messages.ERROR)
            return back
        try:
            with transaction.atomic(using=router.db_for_write(self.model)):
                new_object = self.save_form(request, form, change=True)
                self.save_model(request, new_object, form, change=True)
                self.log_change(request, new_object, f"Reverted to version {version_id}.")
        except ValidationError as error:
            self.message_user(request, f"{NOTHING_REVERTED} " + " ".join(error.messages),
                              messages.ERROR)  # fmt: skip
            return back
        return self.response_change(request, new_object)


class DeleteThroughActionAdmin:
    """Deletes through ``delete_objects`` (an action), refused first with ``delete_refusal``."""

    def delete_refusal(self, objects: list[Any]) -> str | None:
        raise NotImplementedError

    def delete_objects(self, request: HttpRequest, objects: list[Any]) -> None:
        raise NotImplementedError

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: Any = None
    ) -> HttpResponse:
        obj = self.get_object(request, unquote(object_id))  # type: ignore[attr-defined]
        if obj is not None and self.has_delete_permission(request, obj):  # type: ignore[attr-defined]
            refusal = self.delete_refusal([obj])
            if refusal is not None:
                self.message_user(request, f"{NOTHING_DELETED} " + refusal, messages.ERROR)  # type: ignore[attr-defined]
                return HttpResponseRedirect(_url(self, "change", obj.pk))
        try:
            return super().delete_view(request, object_id, extra_context)  # type: ignore[misc]
        except ValidationError as error:  # a game or a list arrived since the check: rolled back
            self.message_user(request, f"{NOTHING_DELETED} " + " ".join(error.messages),  # type: ignore[attr-defined]
                              messages.ERROR)  # fmt: skip
            return HttpResponseRedirect(_url(self, "changelist"))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self.delete_objects(request, [obj])

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        with transaction.atomic():  # the delete_selected action runs outside one
            self.delete_objects(request, list(queryset))

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        found = super().get_actions(request)  # type: ignore[misc]
        if "delete_selected" in found:
            _, name, description = found["delete_selected"]
            found["delete_selected"] = (delete_selected_through_action, name, description)
        return found


def delete_selected_through_action(model_admin: Any, request: HttpRequest, queryset: Any) -> Any:
    """Django's "Delete selected", refused before its confirmation page when the action would
    refuse; the deletion itself is ``delete_queryset`` (the action)."""
    refusal = model_admin.delete_refusal(list(queryset))
    if refusal is not None:
        model_admin.message_user(request, f"{NOTHING_DELETED} " + refusal, messages.ERROR)
        return None
    try:
        return delete_selected(model_admin, request, queryset)
    except ValidationError as error:  # a game or a list arrived since the check: rolled back
        model_admin.message_user(request, f"{NOTHING_DELETED} " + " ".join(error.messages),
                                 messages.ERROR)  # fmt: skip
        return None


def refusal_of(check: Any, objects: list[Any]) -> str | None:
    """Run a validator's deletion check; return its sentences, or None when it passes."""
    try:
        check(objects)
    except ValidationError as error:
        return " ".join(error.messages)
    return None
