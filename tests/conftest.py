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
    """Each test gets an empty per-process cache, so that the queries a test counts are those
    of the code under test, not of the database cache the throttle and the read cache share
    in production; tests of those caches (tests/ladder/test_read_cache.py) choose their own."""
    from django.core.cache import cache

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
