"""The admin's previews: what saving a game's form, or deleting games, would do to the ratings.

The game form's "Preview" button re-renders the form as posted with the preview above it; the
delete confirmations (one game, and the "delete selected" action) show what the deletion would
do. The numbers are ``ladder.writes.previews``' (the real action, rated and rolled back): nothing is
saved.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse

from ladder.records import Game
from ladder.writes import previews
from ladder.writes.actions import GAME_FIELDS
from ladder.writes.validation import GameEntry

PREVIEW = "_preview"  # the name of the game form's Preview button


def wants_preview(request: HttpRequest) -> bool:
    """Whether the game form was posted with its Preview button."""
    return request.method == "POST" and PREVIEW in request.POST


def preview_change_view(
    model_admin: Any, request: HttpRequest, object_id: str | None, form_url: str = ""
) -> HttpResponse:
    """Validate the posted game form and render it again, as posted, with what saving it
    would do (or the write path's errors); save nothing."""
    obj = model_admin.get_object(request, unquote(object_id)) if object_id else None
    allowed = (
        model_admin.has_change_permission(request, obj)
        if obj is not None
        else model_admin.has_add_permission(request)
    )
    if not allowed or (object_id and obj is None):
        raise PermissionDenied
    form = model_admin.get_form(request, obj, change=obj is not None)(
        request.POST, request.FILES, instance=obj
    )
    preview = None
    if form.is_valid():
        data = {name: form.cleaned_data.get(name, "") for name in GAME_FIELDS}
        try:
            if obj is not None:
                preview = previews.correction(game=obj, changes=data, user=request.user)
            else:
                preview = previews.entry(games=[GameEntry(**data)], user=request.user)
        except ValidationError as error:
            _add_errors(form, error)
    admin_form = helpers.AdminForm(
        form,
        list(model_admin.get_fieldsets(request, obj)),
        {},
        model_admin.get_readonly_fields(request, obj),
        model_admin=model_admin,
    )
    verb = "Change" if obj is not None else "Add"
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"{verb} {model_admin.opts.verbose_name}",
        "subtitle": str(obj) if obj else None,
        "adminform": admin_form,
        "object_id": object_id,
        "original": obj,
        "is_popup": False,
        "to_field": None,
        "media": model_admin.media + admin_form.media,
        "inline_admin_formsets": [],
        "errors": helpers.AdminErrorList(form, []),
        "preserved_filters": model_admin.get_preserved_filters(request),
        "preview": preview,
    }
    return model_admin.render_change_form(
        request, context, add=obj is None, change=obj is not None, obj=obj, form_url=form_url
    )


def deletion_context(request: HttpRequest, games: list[Game]) -> dict[str, Any]:
    """The delete confirmation's preview: what deleting ``games`` would do, or why it cannot."""
    try:
        return {"preview": previews.deletion(games=games, user=request.user)}
    except ValidationError as error:
        return {"preview_problems": error.messages}


def _add_errors(form: Any, error: ValidationError) -> None:
    """Show the write path's refusal on the form, by field where the form has the field."""
    found = error.message_dict if hasattr(error, "error_dict") else {None: error.messages}
    for name, messages in found.items():
        form.add_error(name if name in form.fields else None, messages)
