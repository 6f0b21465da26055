"""/healthz for load balancers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ratings.models import RatingRun, RunStatus

pytestmark = pytest.mark.django_db


def test_healthy(client, django_assert_max_num_queries):
    client.get("/healthz")  # the first probe also reads the migrations table
    with django_assert_max_num_queries(2):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok", "database": "ok", "migrations": "ok", "oldest_pending_run": None,
    }  # fmt: skip
    assert "no-cache" in response["Cache-Control"]


def test_says_how_long_the_oldest_pending_run_has_waited(client):
    RatingRun.objects.create(
        status=RunStatus.QUEUED, rating_list="standard", reason="test",
        requested_at=timezone.now() - timedelta(minutes=5),
    )  # fmt: skip
    body = client.get("/healthz").json()
    assert body["status"] == "ok"
    assert 299 <= body["oldest_pending_run"] <= 400


def test_unapplied_migrations_fail_the_check(client, monkeypatch):
    from ladder.web import health

    monkeypatch.setattr(health, "_migrated", False)
    monkeypatch.setattr(health, "_unapplied", lambda: 2)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["migrations"] == "2 not applied"


def test_only_get(client):
    assert client.post("/healthz").status_code == 405
