"""The history records learn the request (and so the user) of every request that may write,
and of no read (``ladder.middleware.history_request_middleware``)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from simple_history.models import HistoricalRecords

from ladder.middleware import history_request_middleware


def seen_by_the_history(request) -> HttpResponse:
    seen = getattr(HistoricalRecords.context, "request", None)
    return HttpResponse("request" if seen is request else "none")


@pytest.mark.parametrize(
    ("method", "seen"),
    [("get", "none"), ("head", "none"), ("options", "none"), ("post", "request"),
     ("put", "request"), ("patch", "request"), ("delete", "request")],
)  # fmt: skip
def test_a_request_that_may_write_is_handed_to_the_history(method, seen):
    request = getattr(RequestFactory(), method)("/")

    response = history_request_middleware(seen_by_the_history)(request)

    assert response.content.decode() == seen
    assert getattr(HistoricalRecords.context, "request", None) is None  # taken back after


@pytest.mark.parametrize(("method", "seen"), [("get", "none"), ("post", "request")])
def test_the_same_under_asgi(method, seen):
    async def view(request):
        return seen_by_the_history(request)

    request = getattr(RequestFactory(), method)("/")

    # In a thread of its own: a browser test may leave this thread's event loop running.
    with ThreadPoolExecutor(1) as thread:
        response = thread.submit(asyncio.run, history_request_middleware(view)(request)).result()

    assert response.content.decode() == seen


@pytest.mark.django_db
def test_a_change_through_the_api_names_its_user(client, django_user_model):
    from rest_framework.test import APIClient

    from ladder.records import Player

    user = django_user_model.objects.create_superuser("recorder", password="x")
    api = APIClient()
    api.force_authenticate(user)

    response = api.post("/api/v1/players/", {"name": "Noted Player"}, format="json")

    assert response.status_code == 201, response.content
    record = Player.history.get(name="Noted Player")
    assert record.history_user == user
