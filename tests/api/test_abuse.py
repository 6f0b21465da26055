"""Abuse: the throttle counts per client in the shared cache and believes X-Forwarded-For only
from trusted proxies; the admin login locks out a guesser; the settings fail closed and pass
`check --deploy`; every page carries a Content Security Policy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.test import APIClient

from ladder.caching.throttling import AnonThrottle
from tests import caches

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
URL = "/api/v1/players/"


@pytest.fixture
def shared_cache(settings, monkeypatch):
    """The deployment's cache (the database; Redis when REDIS_URL is set) and 3 requests an
    hour for anonymous clients."""
    redis_url = os.environ.get("REDIS_URL")
    caches.use(
        settings, caches.redis(caches.for_worker(redis_url)) if redis_url else caches.DATABASE
    )
    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "3/hour"})
    yield
    cache.clear()


def statuses(count: int, **headers) -> list[int]:
    client = APIClient()
    return [client.get(URL, headers=headers).status_code for _ in range(count)]


def test_the_throttle_counts_in_the_shared_cache(shared_cache):
    assert statuses(4) == [200, 200, 200, 429]
    # Another worker (a fresh client, same cache) sees the same count.
    assert statuses(1) == [429]


def test_a_rotating_forwarded_for_does_not_reset_the_count(shared_cache):
    seen = [
        APIClient().get(URL, headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
        for i in range(5)
    ]
    assert seen == [200, 200, 200, 429, 429]


def test_behind_a_trusted_proxy_each_client_counts_alone(shared_cache, settings):
    settings.LADDER_TRUSTED_PROXIES = ["127.0.0.1/32"]  # the test client's peer address
    assert statuses(4, **{"X-Forwarded-For": "203.0.113.9"}) == [200, 200, 200, 429]
    assert statuses(1, **{"X-Forwarded-For": "203.0.113.10"}) == [200]
    # A client cannot forge its way past: the proxy appends what it saw, read from the right.
    assert statuses(1, **{"X-Forwarded-For": "1.2.3.4, 203.0.113.9"}) == [429]


def test_the_admin_login_locks_out_a_guesser(client, settings):
    get_user_model().objects.create_superuser("boss", "boss@example.org", "right-password")
    data = {"username": "boss", "password": "wrong", "next": "/admin/"}
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert client.post("/admin/login/", data).status_code == 200  # the form again
    locked = client.post("/admin/login/", data)
    assert locked.status_code == 429
    right = client.post("/admin/login/", {**data, "password": "right-password"})
    assert right.status_code == 429  # even the right password, until the cool-off ends
    assert "_auth_user_id" not in client.session


def test_a_right_password_before_the_limit_logs_in(client, settings):
    get_user_model().objects.create_superuser("boss", "boss@example.org", "right-password")
    client.post("/admin/login/", {"username": "boss", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "boss", "password": "right-password"})
    assert response.status_code == 302


def test_pages_and_admin_carry_a_content_security_policy(client):
    for url in ("/", "/admin/login/", "/calculator/"):
        policy = client.get(url)["Content-Security-Policy"]
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LADDER_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "ladder.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_debug_explicitly_on_a_secret_key_is_required():
    result = manage("check")
    assert result.returncode != 0
    assert "Set DJANGO_SECRET_KEY, or DJANGO_DEBUG=1 for development." in result.stderr


def test_check_deploy_is_clean_behind_the_documented_settings():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_SECRET_KEY="k" * 20 + "-a-long-random-production-key-" + "x" * 20,
        DJANGO_ALLOWED_HOSTS="ladder.example.org",
        LADDER_HTTPS="1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout
