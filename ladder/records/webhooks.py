"""Webhooks: the endpoints administrators register, the events Ladder sends them, and the log of
every delivery attempt.

``emit`` is called where an event happens (a list published or revised, a rating run finished
or given up, a period reopened), inside that change's transaction: it records the event and
one delivery per endpoint that wants it, so they commit or roll back with the change. It then
sends ``recorded``; the delivery, above this layer (``ladder.writes.webhooks``, connected in
``LadderConfig.ready``), has the deliveries sent after the commit, outside the change.
"""

from __future__ import annotations

import datetime as dt
import secrets
import uuid
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import URLValidator
from django.db import models
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

URL_LENGTH = 500
SECRET_PREFIX = "whsec_"
URL_SCHEME_MESSAGE = gettext_lazy(
    "Enter an http:// or https:// address that Ladder can send events to."
)
URL_CREDENTIALS_MESSAGE = gettext_lazy(
    "Leave the user name and password out of the address: the endpoint's secret signs every "
    "event, and an address is shown in the delivery log."
)


class EventType(models.TextChoices):
    LIST_PUBLISHED = "list.published", gettext_lazy("A list is published (a period closes)")
    LIST_REVISED = (
        "list.revised",
        gettext_lazy("A published list is revised (a period closes again)"),
    )
    RUN_FINISHED = "run.finished", gettext_lazy("A rating run finished")
    RUN_FAILED = "run.failed", gettext_lazy("A rating run failed (gave up after its attempts)")
    PERIOD_REOPENED = "period.reopened", gettext_lazy("A period is reopened")
    TEST = "test", gettext_lazy("A test event (sent from the admin)")


SUBSCRIBABLE = [choice for choice in EventType.choices if choice[0] != EventType.TEST]


def validate_endpoint_url(value: str) -> None:
    """Refuse an address that is not http(s) or that carries a user name or password."""
    try:
        URLValidator(schemes=["http", "https"])(value)
    except ValidationError as error:
        raise ValidationError(URL_SCHEME_MESSAGE, code="invalid_url") from error
    parts = urlsplit(value)
    if parts.username is not None or parts.password is not None:
        raise ValidationError(URL_CREDENTIALS_MESSAGE, code="credentials_in_url")


def validate_event_types(value: Any) -> None:
    allowed = {choice for choice, _ in SUBSCRIBABLE}
    if not isinstance(value, list) or not value or not set(value) <= allowed:
        raise ValidationError(
            gettext("Choose at least one of the events Ladder sends."), code="events"
        )


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def new_event_id() -> str:
    return f"evt_{uuid.uuid4().hex}"


class WebhookEndpoint(models.Model):
    """An address Ladder POSTs events to, signed with its secret."""

    url = models.CharField(
        "address", max_length=URL_LENGTH, validators=[validate_endpoint_url],
        help_text=gettext_lazy(
            "Where Ladder POSTs the events (http:// or https://, no user name or password)."
        ),
    )  # fmt: skip
    description = models.CharField(max_length=200, blank=True)
    secret = models.CharField(
        max_length=100, default=new_secret, editable=False,
        help_text=gettext_lazy(
            "Signs every event (HMAC-SHA256); shown in full once, when the endpoint is made."
        ),
    )  # fmt: skip
    events = models.JSONField(
        default=list,
        validators=[validate_event_types],
        help_text=gettext_lazy("The events to send."),
    )
    is_active = models.BooleanField("active", default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("webhook endpoint")

    def __str__(self) -> str:
        return self.description or self.url

    def masked_secret(self) -> str:
        """The secret as the admin shows it after the first time: its last four characters."""
        return f"{SECRET_PREFIX}…{self.secret[-4:]}"

    def wants(self, event_type: str) -> bool:
        return self.is_active and (event_type == EventType.TEST or event_type in self.events)


class WebhookEvent(models.Model):
    """Something that happened, as it is sent: a stable id, a type and its data."""

    event_id = models.CharField(max_length=40, unique=True, default=new_event_id, editable=False)
    type = models.CharField(max_length=30, choices=EventType.choices)
    created_at = models.DateTimeField(default=timezone.now)
    data = models.JSONField(encoder=DjangoJSONEncoder, default=dict)

    class Meta:
        verbose_name = gettext_lazy("webhook event")

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"

    def payload(self) -> dict[str, Any]:
        """The JSON object POSTed to every endpoint (the same for every attempt)."""
        created = self.created_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
        return {"id": self.event_id, "type": self.type, "created": created, "data": self.data}


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", gettext_lazy("pending")
    DELIVERED = "delivered", gettext_lazy("delivered")
    FAILED = "failed", gettext_lazy("failed (gave up)")


class WebhookDelivery(models.Model):
    """One event to one endpoint: pending until a 2xx answer, failed after the last attempt."""

    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("webhook delivery")
        verbose_name_plural = gettext_lazy("webhook deliveries")
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="one_delivery_per_endpoint")
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint}"


class WebhookAttempt(models.Model):
    """One POST of a delivery: what the receiver answered, how long it took, what comes next."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="log")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField("duration (ms)")
    error = models.CharField(max_length=500, blank=True)
    next_retry_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("delivery attempt")
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery #{self.delivery_id}"


# Sent by ``emit`` (and for a test event) with ``event`` and ``deliveries`` (ids), inside the
# change's transaction, for whoever delivers them (``ladder.writes.webhooks``).
recorded = Signal()


def emit(event_type: str, data: dict[str, Any]) -> WebhookEvent | None:
    """Record an event and its deliveries in the caller's transaction, to be sent after the
    commit to every active endpoint that wants it; return it (None when nobody does: one query).
    """
    endpoints = [e for e in WebhookEndpoint.objects.filter(is_active=True) if e.wants(event_type)]
    return record(event_type, data, endpoints)


def record(
    event_type: str, data: dict[str, Any], endpoints: list[WebhookEndpoint]
) -> WebhookEvent | None:
    """Record an event for ``endpoints`` and send ``recorded`` (nothing for no endpoint)."""
    if not endpoints:
        return None
    event = WebhookEvent.objects.create(type=event_type, data=data)
    # Bulk: the delivery log is no read of the doors, so it moves no data version.
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(event=event, endpoint=endpoint) for endpoint in endpoints
    )
    recorded.send(sender=WebhookEvent, event=event, deliveries=[d.pk for d in deliveries])
    return event
