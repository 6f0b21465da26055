"""API tokens in the admin: issued through the same code as ``manage.py issue_token``
(``ladder.writes.tokens``), hashed at rest, the key shown once; revoked by an action.

DRF's own "Auth Token" admin is taken away: it made plain-text tokens that the API refuses
(the API reads hashed ones only, ``ladder.api.authentication``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy, ngettext
from rest_framework.authtoken.models import TokenProxy

from ladder.records import ApiToken
from ladder.writes import tokens

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


class IssueTokenForm(forms.ModelForm):
    days = forms.IntegerField(
        min_value=1,
        max_value=tokens.MAX_DAYS,
        help_text="How many days the token is valid.",
    )

    class Meta:
        model = ApiToken
        fields = ("user", "name", "days")
        help_texts = {"name": "What the token is for (a script, an app), to know it later."}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["days"].initial = settings.LADDER_TOKEN_DAYS

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("user") is not None and data.get("days") is not None:
            problems = tokens.token_problems(
                user=data["user"], days=data["days"], name=data.get("name", "")
            )
            for field, reasons in problems.items():
                self.add_error(field if field in self.fields else None, reasons)
        return data


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix_shown", "user", "name", "created_at", "expires_at", "state")
    list_filter = ("revoked_at",)
    search_fields = ("user__username", "name", "prefix")
    list_select_related = ("user",)
    actions = ["revoke"]
    readonly_fields = ("user", "name", "prefix", "created_at", "expires_at", "revoked_at")

    @admin.display(description=gettext_lazy("key starts"))
    def prefix_shown(self, token: ApiToken) -> str:
        return f"{token.prefix}…"

    @admin.display(description=gettext_lazy("state"))
    def state(self, token: ApiToken) -> str:
        if token.revoked_at is not None:
            return gettext("revoked")
        return gettext("active") if token.active else gettext("expired")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):
        if obj is None:
            kwargs["form"] = IssueTokenForm
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and not request.user.is_superuser:  # only one's own token
            field = form.base_fields["user"]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = get_user_model().objects.filter(username=request.user.get_username())
            field.initial = request.user.pk
        return form

    def get_fields(self, request: HttpRequest, obj: Any = None):
        return ("user", "name", "days") if obj is None else self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return () if obj is None else self.readonly_fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a token is issued or revoked, never edited

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoke it instead: the record of who had access stays

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        token, key = tokens.issue_token(
            user=form.cleaned_data["user"],
            days=form.cleaned_data["days"],
            name=form.cleaned_data.get("name", ""),
        )
        obj.pk, obj.prefix, obj.digest = token.pk, token.prefix, token.digest
        obj.created_at, obj.expires_at = token.created_at, token.expires_at
        obj._state.adding, obj._state.db = False, token._state.db
        self.message_user(
            request,
            f"The new token's key is {key} — copy it now: only its hash is kept, so it is not "
            "shown again. Send it as 'Authorization: Token <key>'.",
            messages.WARNING,
        )

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("ladder.change_apitoken"))

    @admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = tokens.revoke_tokens(queryset)
        self.message_user(
            request,
            ngettext("Revoked %(count)s token.", "Revoked %(count)s tokens.", count)
            % {"count": count},
        )
