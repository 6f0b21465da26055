"""Webhooks against a real receiving HTTP server (``http.server`` in a thread on 127.0.0.1):
signed events sent after the commit and never for a rolled-back change, retries with backoff
after a 500, a slow receiver that never holds up the change, and the background queue."""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from ladder.records import (
    DeliveryStatus,
    EventType,
    PeriodStatus,
    RatingPeriod,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    kept_lists,
)
from ladder.records import webhooks as records
from ladder.records.webhooks import URL_CREDENTIALS_MESSAGE, URL_SCHEME_MESSAGE
from ladder.writes import actions, webhooks
from ratings.models import RatingRun
from ratings.recompute import services
from ratings.runs import sweeper
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

SECRET = "whsec_test-secret-of-a-decent-length"
WAIT = 10.0  # the longest a test waits for a POST that must come (it comes in milliseconds)


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Receiver:
    """A receiving server: answers each POST with the next of ``answers`` (then 200), after
    ``release`` is set when ``hold`` is; every POST lands in ``received``."""

    url: str
    answers: list[int] = field(default_factory=list)
    hold: bool = False
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    received: queue.Queue[Received] = field(default_factory=queue.Queue)

    def next(self, timeout: float = WAIT) -> Received:
        return self.received.get(timeout=timeout)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            me = state["receiver"]
            length = int(self.headers["Content-Length"])
            body = self.rfile.read(length)
            me.arrived.set()
            if me.hold:
                me.release.wait(WAIT)
            status = me.answers.pop(0) if me.answers else 200
            me.received.put(Received(dict(self.headers.items()), body))
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["receiver"] = Receiver(url=f"http://127.0.0.1:{server.server_port}/hooks/ladder")
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state["receiver"]
    state["receiver"].release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def fast_retries(monkeypatch):
    monkeypatch.setattr(webhooks, "BACKOFF_SECONDS", 0.05)
    monkeypatch.setattr(webhooks, "TIMEOUT_SECONDS", 3.0)


def endpoint_for(receiver: Receiver, *events: str) -> WebhookEndpoint:
    endpoint = WebhookEndpoint(url=receiver.url, secret=SECRET, events=list(events))
    endpoint.full_clean()
    endpoint.save()
    return endpoint


def closed_march() -> RatingPeriod:
    march = PeriodFactory(start=date(2026, 3, 1), end=date(2026, 3, 31))
    return actions.close_period(period=march)


def verify(secret: str, header: str, body: bytes, tolerance: int = 300) -> bool:
    """What a receiver does: the function docs/webhooks.md shows, as it shows it."""
    parts = dict(item.split("=", 1) for item in header.split(","))
    timestamp = int(parts["t"])
    if abs(time.time() - timestamp) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(expected.hexdigest(), parts["v1"])


def delivered() -> None:
    """Wait for every delivery thread of this process to finish (immediate mode). Tests touch
    the database only after it: SQLite's shared in-memory test database refuses, rather than
    waits for, a table another thread is writing."""
    for thread in threading.enumerate():
        if thread.name.startswith("ladder-webhook-"):
            thread.join(WAIT)
            assert not thread.is_alive(), f"{thread.name} is still delivering"


@pytest.fixture(autouse=True)
def _no_thread_outlives_its_test(_django_db_helper):
    """Set up after the test database (so torn down before it is flushed)."""
    yield
    delivered()


# --- sent after the commit, signed ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_reopened_period_is_posted_signed_after_the_commit(receiver):
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    march = closed_march()

    actions.reopen_period(period=march, reason="A result was entered the wrong way round.")

    got = receiver.next()
    delivered()
    assert verify(SECRET, got.headers["Ladder-Signature"], got.body)
    assert not verify("whsec_another-secret-entirely", got.headers["Ladder-Signature"], got.body)
    assert not verify(SECRET, got.headers["Ladder-Signature"], got.body + b" ")
    event = WebhookEvent.objects.get()
    assert got.event == {
        "id": event.event_id,
        "type": "period.reopened",
        "created": got.event["created"],
        "data": {
            "period": "2026-03",
            "period_id": march.pk,
            "reason": "A result was entered the wrong way round.",
        },
    }
    assert got.event["created"].endswith("Z")
    assert got.event["id"].startswith("evt_")
    assert got.headers["Ladder-Event"] == "period.reopened"
    assert got.headers["Ladder-Event-Id"] == event.event_id
    assert got.headers["Content-Type"] == "application/json"
    delivered()
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.status == DeliveryStatus.DELIVERED
    (logged,) = delivery.log.all()
    assert (logged.number, logged.status_code, logged.error, logged.next_retry_at) == (
        1, 200, "", None
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_published_list_and_its_revision_are_sent_with_their_ids(receiver):
    endpoint_for(receiver, EventType.LIST_PUBLISHED, EventType.LIST_REVISED)
    white, black = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1700)
    game = GameFactory(date=date(2026, 3, 5), white=white, black=black, result="1-0")
    march = RatingPeriod.objects.get()

    actions.close_period(period=march)
    delivered()
    published = sorted((e["data"]["list"], e["type"], e["data"]["period"], e["data"]["revision"])
                       for e in drain(receiver))  # fmt: skip
    assert published == [(name, "list.published", "2026-03", 1) for name in sorted(kept_lists())]

    actions.reopen_period(period=march, reason="The result was the other way round.")
    actions.correct_game(game=game, changes={"result": "0-1"})
    actions.close_period(period=march)
    delivered()
    (revised,) = drain(receiver)  # only the list that changed is revised
    assert revised["type"] == "list.revised"
    assert {k: revised["data"][k] for k in ("period", "list", "revision", "players_changed")} == {
        "period": "2026-03", "list": "standard", "revision": 2, "players_changed": 2
    }  # fmt: skip
    assert revised["data"]["reason"] == "The result was the other way round."


@pytest.mark.django_db(transaction=True)
def test_a_run_that_finishes_and_one_that_gives_up_are_sent(receiver, monkeypatch):
    endpoint_for(receiver, EventType.RUN_FINISHED, EventType.RUN_FAILED)

    GameFactory(date=date(2026, 3, 5), result="1-0")  # its run executes after the commit
    delivered()
    (finished,) = drain(receiver)
    run = RatingRun.objects.get()
    assert finished["type"] == "run.finished"
    assert finished["data"] == {
        "run": run.pk, "list": "standard", "from_period": "2026-03",
        "from_period_id": run.from_period_id, "status": "done",
        "periods": "2026-03", "players_changed": 2, "error": "",
    }  # fmt: skip

    def fail(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(services, "recompute_from", fail)
    GameFactory(date=date(2026, 3, 6), result="0-1")
    delivered()
    (failed,) = drain(receiver)  # once, when it gives up: not for each attempt
    assert failed["type"] == "run.failed"
    assert failed["data"]["status"] == "failed"
    assert "RuntimeError: the disk is full" in failed["data"]["error"]


def drain(receiver: Receiver) -> list[dict[str, Any]]:
    found = []
    while not receiver.received.empty():
        found.append(receiver.next().event)
    return found


def test_events_nobody_asked_for_are_not_recorded(receiver):
    endpoint_for(receiver, EventType.RUN_FINISHED)
    WebhookEndpoint.objects.create(url=receiver.url, events=["period.reopened"], is_active=False)
    march = closed_march()
    actions.reopen_period(period=march, reason="Typo.")
    assert not WebhookEvent.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_change_sends_nothing(receiver):
    endpoint_for(receiver, EventType.PERIOD_REOPENED)
    march = closed_march()

    with transaction.atomic():
        actions.reopen_period(period=march, reason="Never happened.")
        assert WebhookEvent.objects.count() == 1  # recorded in the change's transaction
        transaction.set_rollback(True)  # the change fails after the event was recorded

    assert not WebhookEvent.objects.exists()
    assert RatingPeriod.objects.get().status == PeriodStatus.CLOSED
    actions.reopen_period(period=march, reason="This one happened.")
    assert receiver.next().event["data"]["reason"] == "This one happened."
    delivered()  # had the rolled-back one been sent, it would be here by now
    assert receiver.received.empty()


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_holds_the_post_never_holds_the_change(receiver, monkeypatch):
    monkeypatch.setattr(webhooks, "TIMEOUT_SECONDS", 3.0)
    receiver.hold = True  # answers only once the test says so
    endpoint_for(receiver, EventType.PERIOD_REOPENED)
    march = closed_march()

    actions.reopen_period(period=march, reason="Slow receiver.")

    # The change has returned; the receiver holds the POST until we let it answer, so the POST
    # was made outside the change. Had the change waited for it, it could not have returned
    # before the timeout, and the attempt would be logged as one without an answer.
    assert receiver.arrived.wait(WAIT)
    assert receiver.received.empty()
    receiver.release.set()
    assert receiver.next().event["type"] == "period.reopened"
    delivered()
    assert RatingPeriod.objects.get().status == PeriodStatus.OPEN
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.log.get().status_code == 200


# --- retries -------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_500_is_retried_with_backoff_and_logged(receiver, fast_retries):
    receiver.answers = [500, 503]
    endpoint_for(receiver, EventType.PERIOD_REOPENED)
    march = closed_march()

    actions.reopen_period(period=march, reason="Retry me.")

    bodies = [receiver.next().body for _ in range(3)]
    assert bodies[0] == bodies[1] == bodies[2]  # the same event, its id included, each time
    delivered()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.DELIVERED
    log = list(delivery.log.values_list("number", "status_code", "next_retry_at", "error"))
    assert [(n, code) for n, code, *_ in log] == [(1, 500), (2, 503), (3, 200)]
    assert log[0][3].startswith("The receiver answered 500 Internal Server Error")
    first, second = WebhookAttempt.objects.order_by("number")[:2]
    assert first.next_retry_at is not None
    assert second.next_retry_at is not None
    # Exponential: the second wait is BACKOFF_FACTOR times the first.
    assert (second.next_retry_at - second.at) > (first.next_retry_at - first.at) * 3
    assert delivery.attempts == 3
    assert delivery.next_attempt_at is None


def test_a_delivery_gives_up_after_its_attempts(receiver, monkeypatch):
    monkeypatch.setattr(webhooks, "MAX_ATTEMPTS", 2)
    receiver.answers = [500, 500]
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    event = records.record(EventType.PERIOD_REOPENED, {"period": "2026-03"}, [endpoint])
    delivery = event.deliveries.get()

    assert webhooks.attempt(delivery.pk) is not None
    assert webhooks.attempt(delivery.pk) is None  # the second failure was the last
    assert webhooks.attempt(delivery.pk) is None  # and nothing is POSTed again

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 2)
    assert receiver.received.qsize() == 2
    assert list(delivery.log.values_list("status_code", flat=True)) == [500, 500]


def test_a_receiver_slower_than_the_timeout_is_cut_off_and_retried(receiver, monkeypatch):
    monkeypatch.setattr(webhooks, "TIMEOUT_SECONDS", 0.3)
    receiver.hold = True  # never answers in time
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    event = records.record(EventType.PERIOD_REOPENED, {"period": "2026-03"}, [endpoint])

    retry_at = webhooks.attempt(event.deliveries.get().pk)

    logged = WebhookAttempt.objects.get()
    assert retry_at is not None
    assert logged.next_retry_at == retry_at
    assert logged.status_code is None
    assert "timed out" in logged.error
    assert logged.duration_ms < 2000  # bounded by the timeout, not by the receiver


def test_a_log_the_database_refused_once_is_written_once_after_its_id_went_elsewhere(
    receiver, monkeypatch
):
    # SQLite refuses a writer while another thread holds the table; the refused try is rolled
    # back, and another delivery's log takes the id its insert had. The retry must not reuse it.
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    ours = records.record(EventType.PERIOD_REOPENED, {"period": "2026-03"}, [endpoint])
    other = records.record(EventType.PERIOD_REOPENED, {"period": "2026-04"}, [endpoint])
    other = other.deliveries.get()
    refused: list[str] = []
    taken: list[WebhookAttempt] = []

    def busy_once(execute, sql, params, many, context):
        if not refused and sql.startswith('UPDATE "ladder_webhookdelivery"'):
            refused.append(sql)
            raise OperationalError("database table is locked: ladder_webhookdelivery")
        if refused and not taken and sql.startswith('INSERT INTO "ladder_webhookattempt"'):
            # Between the refused try and the retry, another thread logs (its own transaction
            # in real life; the order of the inserts is what matters).
            taken.append(WebhookAttempt(delivery=other, number=1, status_code=200, duration_ms=1))
            taken[0].save()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(busy_once):
        assert webhooks.attempt(ours.deliveries.get().pk) is None

    assert refused
    delivery = ours.deliveries.get()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 1)
    assert list(delivery.log.values_list("number", "status_code")) == [(1, 200)]
    assert list(other.log.values_list("number", flat=True)) == [1]
    assert receiver.received.qsize() == 1  # the POST was made once; only the log was retried


def test_an_address_nobody_listens_on_is_logged_as_no_answer(receiver):
    endpoint = WebhookEndpoint.objects.create(url="http://127.0.0.1:9/", events=["test"])
    event = records.record(EventType.TEST, {}, [endpoint])
    assert webhooks.attempt(event.deliveries.get().pk) is not None
    assert WebhookAttempt.objects.get().error.startswith("No answer:")


@pytest.mark.django_db(transaction=True)
def test_the_sweep_takes_up_what_a_stopped_process_left_pending(receiver):
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    long_ago = timezone.now() - timedelta(minutes=5)
    # As a process leaves them when it stops: one never attempted, one whose retry was due
    # (its thread slept through the backoff and died), one failed a moment ago (its thread
    # sleeps: not taken), one delivered.
    event = WebhookEvent.objects.create(type=EventType.PERIOD_REOPENED, data={"period": "x"})
    left = [
        WebhookDelivery.objects.create(event=event, endpoint=endpoint, created_at=long_ago),
        WebhookDelivery.objects.create(
            event=WebhookEvent.objects.create(type=EventType.TEST), endpoint=endpoint,
            created_at=long_ago, attempts=1, next_attempt_at=long_ago + timedelta(minutes=1),
        ),
    ]  # fmt: skip
    WebhookDelivery.objects.create(
        event=WebhookEvent.objects.create(type=EventType.TEST), endpoint=endpoint,
        created_at=long_ago, attempts=1, next_attempt_at=timezone.now() + timedelta(seconds=30),
    )  # fmt: skip
    WebhookDelivery.objects.create(
        event=WebhookEvent.objects.create(type=EventType.TEST), endpoint=endpoint,
        created_at=long_ago, status=DeliveryStatus.DELIVERED,
    )  # fmt: skip

    sweeper.tick()  # each serving process's sweep, every LADDER_RUN_SWEEP_SECONDS

    delivered()
    assert sorted(e["id"] for e in drain(receiver)) == sorted(d.event.event_id for d in left)
    assert set(WebhookDelivery.objects.filter(pk__in=[d.pk for d in left]).values_list(
        "status", flat=True)) == {DeliveryStatus.DELIVERED}  # fmt: skip
    assert webhooks.sweep() == []  # nothing is left to take up


@pytest.mark.django_db(transaction=True)
def test_a_delivery_claimed_by_one_sweep_is_not_taken_by_another(receiver, settings):
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    event = WebhookEvent.objects.create(type=EventType.TEST)
    long_ago = timezone.now() - timedelta(minutes=5)
    delivery = WebhookDelivery.objects.create(event=event, endpoint=endpoint, created_at=long_ago)
    settings.LADDER_RECOMPUTE = "background"
    assert webhooks.sweep() == []  # the queue keeps every delivery's task there
    settings.LADDER_RECOMPUTE = "immediate"
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=now)  # claimed
    assert webhooks.sweep(now=now) == []
    assert webhooks.sweep(now=now + webhooks.LATE * 2) == [delivery.pk]  # that one stopped too
    assert receiver.next().event["id"] == event.event_id
    delivered()


# --- the background queue ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the worker closes its connection between tasks
def test_in_background_mode_the_workers_deliver_and_retry(
    receiver, settings, fast_retries, monkeypatch
):
    from django_tasks_db.models import DBTaskResult

    settings.LADDER_RECOMPUTE = "background"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    receiver.answers = [500]
    endpoint = endpoint_for(receiver, EventType.PERIOD_REOPENED)
    march = closed_march()

    actions.reopen_period(period=march, reason="Queued.")
    queued = DBTaskResult.objects.filter(task_path=webhooks.deliver.module_path)
    assert queued.count() == 1  # on the queue, in the change's transaction
    assert receiver.received.empty()

    # A backoff the first batch cannot reach: with a short one, a slow batch found the retry
    # due and ran it too (a flaky test on a loaded machine).
    monkeypatch.setattr(webhooks, "BACKOFF_SECONDS", 60.0)
    call_command("rating_worker", "--batch", verbosity=0)
    assert receiver.next().event["type"] == "period.reopened"
    retry = queued.filter(status="READY").get()  # the retry, after its backoff
    assert retry.run_after is not None
    assert retry.run_after > timezone.now()
    queued.filter(pk=retry.pk).update(run_after=timezone.now())  # the backoff has passed
    call_command("rating_worker", "--batch", verbosity=0)
    receiver.next()
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 2)


# --- endpoints -----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.org/hooks", URL_SCHEME_MESSAGE),
        ("file:///etc/passwd", URL_SCHEME_MESSAGE),
        ("javascript:alert(1)", URL_SCHEME_MESSAGE),
        ("example.org/hooks", URL_SCHEME_MESSAGE),
        ("https://user:pw@example.org/hooks", URL_CREDENTIALS_MESSAGE),
        ("https://token@example.org/hooks", URL_CREDENTIALS_MESSAGE),
    ],
)
def test_bad_addresses_are_refused_on_the_field(url, message):
    endpoint = WebhookEndpoint(url=url, events=["list.published"])
    with pytest.raises(ValidationError) as refused:
        endpoint.full_clean()
    assert refused.value.message_dict == {"url": [message]}


@pytest.mark.django_db
def test_an_endpoint_needs_events_ladder_sends():
    for events in ([], ["list.deleted"], ["test"], "list.published"):
        with pytest.raises(ValidationError) as refused:
            WebhookEndpoint(url="https://example.org/h", events=events).full_clean()
        assert list(refused.value.message_dict) == ["events"]


@pytest.mark.django_db
def test_a_new_endpoint_gets_a_long_secret_and_shows_only_its_end():
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["test"])
    other = WebhookEndpoint.objects.create(url="https://example.org/h", events=["test"])
    assert endpoint.secret.startswith("whsec_")
    assert len(endpoint.secret) > 40
    assert endpoint.secret != other.secret
    assert endpoint.masked_secret() == f"whsec_…{endpoint.secret[-4:]}"


def test_the_signature_is_hmac_sha256_of_timestamp_dot_body():
    body = b'{"id":"evt_1"}'
    expected = hmac.new(b"s3cret", b"1767225600." + body, hashlib.sha256).hexdigest()
    assert webhooks.sign("s3cret", 1767225600, body) == f"t=1767225600,v1={expected}"
