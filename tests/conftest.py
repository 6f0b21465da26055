"""Shared fixtures.

Tests run inside a transaction that is never committed, so ``transaction.on_commit`` callbacks
(the signal-driven recomputes) do not fire by themselves: wrap writes in ``committed()`` to run
them as a real commit would.
"""

import pytest

# The real-browser fixtures, defined once for every folder: two definitions of the
# session-scoped browser would start Playwright twice in one thread, which it refuses.
from tests.browser.support import browser, page, screenshot  # noqa: F401


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Return a context manager that runs on-commit callbacks when its block ends."""

    def block():
        return django_capture_on_commit_callbacks(execute=True)

    return block


@pytest.fixture(autouse=True)
def _local_cache(settings):
    """Keep the cache in memory: the query budgets count the application's own queries, and the
    shared cache of a deployment (the database, or Redis) is tested in tests/api/test_abuse.py."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
