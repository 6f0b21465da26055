"""Webhooks in the admin: endpoints (their secret never shown back in full), a "send test
event" button and action, and the delivery log, read-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from ladder.records import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ladder.records.webhooks import SUBSCRIBABLE
from ladder.writes import webhooks


class EndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=SUBSCRIBABLE,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("The events to send."),
    )
    new_secret = forms.CharField(
        label=gettext_lazy("Secret"),
        required=False,
        strip=True,
        max_length=WebhookEndpoint._meta.get_field("secret").max_length,
        widget=forms.PasswordInput(render_value=False),
        help_text="Leave blank to keep the secret (a new endpoint gets one made for it, shown "
        "once). Type one to replace it: at least 24 characters.",
    )

    class Meta:
        model = WebhookEndpoint
        fields = ("url", "description", "events", "is_active")

    def clean_new_secret(self) -> str:
        secret = self.cleaned_data["new_secret"]
        if secret and len(secret) < 24:
            raise forms.ValidationError(gettext("Use a secret of at least 24 characters."))
        return str(secret)

    def save(self, commit: bool = True) -> WebhookEndpoint:
        endpoint = super().save(commit=False)
        if self.cleaned_data.get("new_secret"):
            endpoint.secret = self.cleaned_data["new_secret"]
        if commit:
            endpoint.save()
        return endpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ("url", "description", "event_list", "is_active", "secret_shown")
    fields = ("url", "description", "events", "is_active", "new_secret", "secret_shown")
    readonly_fields = ("secret_shown",)
    actions = ["send_test_events"]
    change_form_template = "admin/ladder/webhookendpoint/change_form.html"

    @admin.display(description=gettext_lazy("secret"))
    def secret_shown(self, endpoint: WebhookEndpoint) -> str:
        return endpoint.masked_secret() if endpoint.pk else "made when you save"

    @admin.display(description=gettext_lazy("events"))
    def event_list(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.events)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change and not form.cleaned_data.get("new_secret"):
            self.message_user(
                request,
                gettext(
                    "The endpoint's secret is %(secret)s — copy it into the receiver now: it "
                    "is not shown again in full."
                )
                % {"secret": obj.secret},
                messages.WARNING,
            )

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(require_POST(self.send_test_view))
        return [
            path("<int:object_id>/send-test/", view, name="ladder_webhookendpoint_send_test"),
            *super().get_urls(),
        ]

    def send_test_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        endpoint = get_object_or_404(WebhookEndpoint, pk=object_id)
        if not self.has_change_permission(request, endpoint):
            return HttpResponseRedirect(reverse("admin:index"))
        self._send_test(request, endpoint)
        return HttpResponseRedirect(
            reverse("admin:ladder_webhookendpoint_change", args=[object_id])
        )

    @admin.action(
        description=gettext_lazy("Send a test event to the selected endpoints"),
        permissions=["change"],
    )
    def send_test_events(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            self._send_test(request, endpoint)

    def _send_test(self, request: HttpRequest, endpoint: WebhookEndpoint) -> None:
        event = webhooks.send_test_event(endpoint=endpoint)
        log = reverse("admin:ladder_webhookdelivery_changelist") + f"?event__id__exact={event.pk}"
        self.message_user(
            request,
            format_html(
                gettext(
                    'A test event ({}) is on its way to {}. <a href="{}">See the delivery.</a>'
                ),
                event.event_id,
                endpoint.url,
                log,
            ),
        )


class AttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = ("number", "at", "status_code", "duration_ms", "error", "next_retry_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: written by the delivery only, so read-only here."""

    list_display = ("event_type", "event_id", "endpoint", "status", "attempts", "next_attempt_at")
    list_filter = ("status", "event__type", "endpoint")
    list_select_related = ("event", "endpoint")
    fields = ("event_id", "event_type", "endpoint", "status", "attempts", "next_attempt_at",
              "created_at", "payload")  # fmt: skip
    readonly_fields = fields
    inlines = [AttemptInline]

    @admin.display(description=gettext_lazy("event"), ordering="event__type")
    def event_type(self, delivery: WebhookDelivery) -> str:
        return delivery.event.type

    @admin.display(description=gettext_lazy("event id"))
    def event_id(self, delivery: WebhookDelivery) -> str:
        return delivery.event.event_id

    @admin.display(description=gettext_lazy("what was sent"))
    def payload(self, delivery: WebhookDelivery) -> str:
        return format_html("<pre>{}</pre>", webhooks.body(delivery.event).decode())

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookDelivery]:
        return super().get_queryset(request).select_related("event", "endpoint")

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
