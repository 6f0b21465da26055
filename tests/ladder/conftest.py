"""Fixtures shared by the write path's door tests: an administrator and their API client."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient


@pytest.fixture
def boss():
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.fixture
def api(boss):
    client = APIClient()
    client.force_authenticate(boss)
    return client
