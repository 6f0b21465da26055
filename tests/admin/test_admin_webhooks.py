"""Webhooks in the admin: endpoints registered with field errors for bad addresses, a secret
shown in full once and never again, the "send test event" button and action, and the delivery
log, read-only and in a fixed number of queries."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.urls import reverse

from ladder.records import EventType, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from ladder.records import webhooks as records
from ladder.records.webhooks import URL_CREDENTIALS_MESSAGE, URL_SCHEME_MESSAGE

pytestmark = pytest.mark.django_db

ADD = reverse("admin:ladder_webhookendpoint_add")
LOG = reverse("admin:ladder_webhookdelivery_changelist")


@pytest.fixture
def boss_client(client):
    client.force_login(User.objects.create_superuser("boss", "boss@example.org", "pw"))
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def form(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "url": "https://receiver.example.org/hooks/ladder",
        "description": "The club's website",
        "events": ["list.published", "period.reopened"],
        "is_active": "on",
        "new_secret": "",
    }
    data.update(changes)
    return data


def test_an_endpoint_is_added_and_its_secret_shown_in_full_only_once(boss_client):
    response = boss_client.post(ADD, form(), follow=True)

    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.events == ["list.published", "period.reopened"]
    (said,) = [m for m in messages_of(response) if "secret" in m]
    assert endpoint.secret in said
    assert "not shown again in full" in said
    change = reverse("admin:ladder_webhookendpoint_change", args=[endpoint.pk])
    for page in (boss_client.get(change), boss_client.get(reverse(
        "admin:ladder_webhookendpoint_changelist"
    ))):  # fmt: skip
        text = page.content.decode()
        assert endpoint.secret not in text
        assert endpoint.masked_secret() in text


def test_a_typed_secret_replaces_it_and_is_never_rendered_back(boss_client):
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["test"])
    kept = endpoint.secret
    change = reverse("admin:ladder_webhookendpoint_change", args=[endpoint.pk])

    short = boss_client.post(change, form(new_secret="too-short"))
    assert short.status_code == HTTPStatus.OK
    assert "Use a secret of at least 24 characters." in short.content.decode()
    endpoint.refresh_from_db()
    assert endpoint.secret == kept

    boss_client.post(change, form(new_secret="x" * 30))
    endpoint.refresh_from_db()
    assert endpoint.secret == "x" * 30
    assert "x" * 30 not in boss_client.get(change).content.decode()

    boss_client.post(change, form())  # left blank: kept
    endpoint.refresh_from_db()
    assert endpoint.secret == "x" * 30


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://receiver.example.org/hooks", URL_SCHEME_MESSAGE),
        ("receiver.example.org/hooks", URL_SCHEME_MESSAGE),
        ("https://user:secret@receiver.example.org/hooks", URL_CREDENTIALS_MESSAGE),
    ],
)
def test_a_bad_address_is_a_field_error_and_nothing_is_saved(boss_client, url, message):
    response = boss_client.post(ADD, form(url=url))

    assert response.status_code == HTTPStatus.OK
    assert response.context["adminform"].form.errors == {"url": [message]}
    assert not WebhookEndpoint.objects.exists()


def test_an_endpoint_without_events_is_a_field_error(boss_client):
    response = boss_client.post(ADD, form(events=[]))
    assert list(response.context["adminform"].form.errors) == ["events"]
    assert not WebhookEndpoint.objects.exists()


def test_the_send_test_event_button_records_a_test_event_for_the_endpoint(boss_client):
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["run.failed"])
    change = reverse("admin:ladder_webhookendpoint_change", args=[endpoint.pk])
    send = reverse("admin:ladder_webhookendpoint_send_test", args=[endpoint.pk])
    assert send in boss_client.get(change).content.decode()

    assert boss_client.get(send).status_code == HTTPStatus.METHOD_NOT_ALLOWED
    assert not WebhookEvent.objects.exists()
    response = boss_client.post(send, follow=True)

    event = WebhookEvent.objects.get()
    assert (event.type, event.data) == ("test", {"endpoint": endpoint.pk})
    assert event.deliveries.get().endpoint == endpoint
    assert any(f"A test event ({event.event_id}) is on its way" in m for m in messages_of(response))


def test_the_action_sends_a_test_event_to_each_selected_endpoint(boss_client):
    endpoints = [
        WebhookEndpoint.objects.create(url=f"https://example.org/{n}", events=["test"])
        for n in range(2)
    ]
    boss_client.post(
        reverse("admin:ladder_webhookendpoint_changelist"),
        {"action": "send_test_events", "_selected_action": [e.pk for e in endpoints]},
    )
    assert sorted(WebhookDelivery.objects.values_list("endpoint_id", flat=True)) == [
        e.pk for e in endpoints
    ]
    assert set(WebhookEvent.objects.values_list("type", flat=True)) == {EventType.TEST}


def test_a_staff_member_without_the_permission_cannot_send_or_see(client):
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["test"])
    client.force_login(User.objects.create_user("staff", is_staff=True))
    send = reverse("admin:ladder_webhookendpoint_send_test", args=[endpoint.pk])
    client.post(send)
    assert not WebhookEvent.objects.exists()
    assert client.get(LOG).status_code == HTTPStatus.FORBIDDEN


def logged_deliveries(count: int) -> list[WebhookDelivery]:
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["test"])
    made = []
    for n in range(count):
        event = records.record(EventType.TEST, {"n": n}, [endpoint])
        assert event is not None
        delivery = event.deliveries.get()
        for number, code in enumerate((500, 200), start=1):
            WebhookAttempt.objects.create(
                delivery=delivery, number=number, status_code=code, duration_ms=12,
                error="The receiver answered 500 Internal Server Error." if code == 500 else "",
            )  # fmt: skip
        made.append(delivery)
    return made


@pytest.mark.parametrize("count", [1, 12])
def test_the_delivery_log_reads_in_a_fixed_number_of_queries(
    boss_client, django_assert_max_num_queries, count
):
    deliveries = logged_deliveries(count)
    with django_assert_max_num_queries(8):
        listing = boss_client.get(LOG)
    assert listing.status_code == HTTPStatus.OK
    assert deliveries[0].event.event_id in listing.content.decode()
    change = reverse("admin:ladder_webhookdelivery_change", args=[deliveries[-1].pk])
    with django_assert_max_num_queries(10):
        page = boss_client.get(change)
    text = page.content.decode()
    assert "The receiver answered 500 Internal Server Error." in text
    assert deliveries[-1].event.event_id in text
    assert "Save" not in text  # the log is read-only


@pytest.mark.parametrize("count", [1, 12])
def test_the_endpoints_list_reads_in_a_fixed_number_of_queries(
    boss_client, django_assert_max_num_queries, count
):
    for n in range(count):
        WebhookEndpoint.objects.create(url=f"https://example.org/{n}", events=["test"])
    with django_assert_max_num_queries(7):
        assert (
            boss_client.get(reverse("admin:ladder_webhookendpoint_changelist")).status_code
            == HTTPStatus.OK
        )
