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
        "status": "ok", "database": "ok", "migrations": "ok", "cache": "ok",
        "oldest_pending_run": None,
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


def test_a_run_waiting_too_long_is_degraded_and_strict_monitors_get_503(client, settings):
    settings.LADDER_HEALTH_RUN_SECONDS = 60
    RatingRun.objects.create(
        status=RunStatus.RUNNING, rating_list="standard", reason="test",
        requested_at=timezone.now() - timedelta(minutes=3),
    )  # fmt: skip
    response = client.get("/healthz")
    assert response.status_code == 200  # a load balancer keeps a process that can serve
    assert response.json()["status"] == "degraded"
    assert client.get("/healthz?strict=1").status_code == 503


def test_a_missing_cache_table_is_degraded(client, settings):
    settings.CACHES = {
        "default": {"BACKEND": "ladder.caching.backends.DatabaseCache", "LOCATION": "no_such"}
    }
    body = client.get("/healthz").json()
    assert body["status"] == "degraded"
    assert body["cache"].startswith("unreachable: ")


def test_the_cache_table_exists_whatever_cache_migrate_ran_with(django_db_setup):
    from django.db import connection

    assert "ladder_cache" in connection.introspection.table_names()
