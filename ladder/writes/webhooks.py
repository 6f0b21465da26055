"""Webhook delivery: each recorded delivery POSTed, signed, after the change's commit and outside
it, retried with exponential backoff, every attempt logged.

Where it runs follows ``LADDER_RECOMPUTE``, as the rating runs do:

- ``background``: the ``deliver`` task goes on the database queue in the change's transaction
  (they commit together) and the workers (``manage.py rating_worker``) POST; a retry is the
  same task enqueued to run after its backoff.
- ``immediate``: after the commit, a daemon thread per delivery POSTs and sleeps through the
  backoffs, so the request that made the change never waits for a receiver (the immediate
  task backend would run the task, and its timeouts, on the request's own thread). A delivery
  left pending by a process that stopped is taken up by the next sweep of any serving process
  (``sweep``, on the rating runs' sweeper).

A receiver that is slow, down or answering 500 therefore never slows or fails the change: it
has committed before the first POST, and each POST gives up after ``TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task

from ladder.records.webhooks import (
    DeliveryStatus,
    EventType,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    record,
    recorded,
)
from ratings.runs import sweeper

logger = logging.getLogger(__name__)
T = TypeVar("T")

SIGNATURE_HEADER = "Ladder-Signature"
TIMEOUT_SECONDS = 5.0  # connect and read, each: a receiver should answer at once and work later
MAX_ATTEMPTS = 6  # the first POST and five retries
BACKOFF_SECONDS = 30.0  # before retry n: 30 s * 4^(n-1): 30 s, 2 min, 8 min, 32 min, 2 h 8 min
BACKOFF_FACTOR = 4
USER_AGENT = "Ladder-Webhooks/1"
LATE = timedelta(minutes=1)  # a delivery this far past due has no live thread on it
SWEEP_BATCH = 100  # deliveries taken up by one sweep (the next sweep takes more)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Ladder-Signature`` header: HMAC-SHA256 of ``"<timestamp>.<body>"`` with the secret."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def backoff(attempts: int) -> timedelta | None:
    """How long to wait after the ``attempts``-th failed POST (None: give up)."""
    if attempts >= MAX_ATTEMPTS:
        return None
    return timedelta(seconds=BACKOFF_SECONDS * BACKOFF_FACTOR ** (attempts - 1))


def send_test_event(*, endpoint: WebhookEndpoint) -> WebhookEvent:
    """Record a ``test`` event for ``endpoint`` (active or not), sent after the commit."""
    with transaction.atomic():  # the receiver is told nothing of who pressed the button
        event = record(EventType.TEST, {"endpoint": endpoint.pk}, [endpoint])
    assert event is not None
    return event


def schedule(sender: Any, *, event: WebhookEvent, deliveries: list[int], **kwargs: Any) -> None:
    """``recorded`` receiver: have the deliveries sent once the change commits."""
    if settings.LADDER_RECOMPUTE == "background":
        for delivery in deliveries:  # on the database queue, in the change's transaction
            deliver.enqueue(delivery)
        return
    transaction.on_commit(lambda: _start_threads(deliveries), robust=True)


def connect() -> None:
    recorded.connect(schedule, sender=WebhookEvent, dispatch_uid="ladder.writes.webhooks")
    sweeper.swept.connect(sweep, dispatch_uid="ladder.writes.webhooks.sweep")


def sweep(sender: Any = None, *, now: datetime | None = None, **kwargs: Any) -> list[int]:
    """Immediate mode: take up the pending deliveries nobody is on (their process stopped
    before an attempt: more than ``LATE`` past due); return their ids. A ``swept`` receiver:
    each serving process's sweeper calls it (``ratings.runs.sweeper``).

    Each is claimed by moving its next attempt to now (one UPDATE), so that two processes
    sweeping at once do not both take it.
    """
    if settings.LADDER_RECOMPUTE == "background":
        return []  # the database queue keeps every delivery's task
    now = now or timezone.now()
    late = now - LATE
    abandoned = Q(next_attempt_at__lt=late) | Q(next_attempt_at__isnull=True, created_at__lt=late)
    pending = WebhookDelivery.objects.filter(abandoned, status=DeliveryStatus.PENDING)
    claimed = [
        pk for pk in pending.order_by("pk").values_list("pk", flat=True)[:SWEEP_BATCH]
        if pending.filter(pk=pk).update(next_attempt_at=now)
    ]  # fmt: skip
    _start_threads(claimed)
    return claimed


@task()
def deliver(delivery_id: int) -> str:
    """POST a delivery once; when it failed with attempts left, enqueue the retry after its
    backoff. Return the delivery's status."""
    retry_at = attempt(delivery_id)
    if retry_at is not None:
        deliver.using(run_after=retry_at).enqueue(delivery_id)
    return str(WebhookDelivery.objects.values_list("status", flat=True).get(pk=delivery_id))


def _start_threads(deliveries: list[int]) -> None:
    for delivery in deliveries:
        thread = threading.Thread(
            target=_deliver_in_thread, args=(delivery,), name=f"ladder-webhook-{delivery}"
        )
        thread.daemon = True
        thread.start()


def _deliver_in_thread(delivery_id: int) -> None:
    """Attempt a delivery until it is done, sleeping through the backoffs."""
    try:
        while (retry_at := _busy_retried(lambda: attempt(delivery_id))) is not None:
            connection.close()  # no connection is held through a backoff
            time.sleep(max(0.0, (retry_at - timezone.now()).total_seconds()))
    except Exception:  # a daemon thread has nobody to raise to
        logger.exception("Webhook delivery #%s could not be attempted.", delivery_id)
    finally:
        connection.close()


_BUSY_PAUSES = (0.05, 0.2, 0.5, 1.0, 2.0)  # seconds


def _busy_retried(write: Callable[[], T]) -> T:
    """``write``, tried again after a pause while the database answers that it is busy (SQLite
    refuses a second writer once its timeout is over, its shared test database at once)."""
    for pause in _BUSY_PAUSES:
        try:
            return write()
        except OperationalError:
            logger.warning("The webhook log waits for the database.", exc_info=True)
            time.sleep(pause)
    return write()


def attempt(delivery_id: int, *, now: datetime | None = None) -> datetime | None:
    """POST a pending delivery once and log the attempt; return when to retry (None: delivered,
    given up, or not pending)."""
    delivery = (
        WebhookDelivery.objects.select_related("event", "endpoint")
        .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
        .first()
    )
    if delivery is None:
        return None
    number = delivery.attempts + 1
    started = time.monotonic()
    status_code, error = _post(delivery)
    duration_ms = round((time.monotonic() - started) * 1000)
    ok = status_code is not None and 200 <= status_code < 300
    wait = None if ok else backoff(number)
    retry_at = (now or timezone.now()) + wait if wait is not None else None
    status = (
        DeliveryStatus.DELIVERED if ok
        else DeliveryStatus.PENDING if retry_at is not None
        else DeliveryStatus.FAILED
    )  # fmt: skip
    logged = WebhookAttempt(
        delivery=delivery, number=number, status_code=status_code, duration_ms=duration_ms,
        error=error, next_retry_at=retry_at,
    )  # fmt: skip
    _busy_retried(lambda: _log(logged, status))  # the POST is made: a busy database re-POSTs not
    return retry_at


def _log(attempt: WebhookAttempt, status: str) -> None:
    # Bulk and update: the delivery log is no read of the doors, so it moves no data version.
    # A try the database refused was rolled back, but its insert left the id on ``attempt``;
    # SQLite gives that freed id to the next insert, so a retry carrying it would collide.
    attempt.pk = None
    with transaction.atomic():
        WebhookAttempt.objects.bulk_create([attempt])
        WebhookDelivery.objects.filter(pk=attempt.delivery_id).update(
            attempts=F("attempts") + 1, status=status, next_attempt_at=attempt.next_retry_at
        )


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is an answer to log, never a second address to POST to


_opener = urllib.request.build_opener(_NoRedirects)
_ERROR_LENGTH = WebhookAttempt._meta.get_field("error").max_length or 500


def body(event: WebhookEvent) -> bytes:
    """The bytes POSTed (and signed) for ``event``: its payload as compact JSON."""
    return json.dumps(event.payload(), cls=DjangoJSONEncoder, separators=(",", ":")).encode()


def _post(delivery: WebhookDelivery) -> tuple[int | None, str]:
    """POST the event to the endpoint; return the status code (None: no answer) and an error."""
    data = body(delivery.event)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: sign(delivery.endpoint.secret, int(time.time()), data),
        "Ladder-Event": delivery.event.type,
        "Ladder-Event-Id": delivery.event.event_id,
        "Ladder-Delivery": str(delivery.pk),
    }
    request = urllib.request.Request(delivery.endpoint.url, data=data, headers=headers)
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            return response.status, ""
    except urllib.error.HTTPError as answer:
        text = answer.read(200).decode(errors="replace").strip()
        reason = f"The receiver answered {answer.code} {answer.reason}"
        return answer.code, (f"{reason}: {text}" if text else f"{reason}.")[:_ERROR_LENGTH]
    except (OSError, ValueError) as failure:  # refused, unreachable, timed out, bad address
        why = getattr(failure, "reason", None) or failure
        return None, f"No answer: {type(failure).__name__}: {why}"[:_ERROR_LENGTH]
