"""Shared fixtures.

Tests run inside a transaction that is never committed, so ``transaction.on_commit`` callbacks
(the signal-driven recomputes) do not fire by themselves: wrap writes in ``committed()`` to run
them as a real commit would.
"""

import os

import pytest
from hypothesis import settings as hypothesis_settings

# The real-browser fixtures, defined once for every folder: two definitions of the
# session-scoped browser would start Playwright twice in one thread, which it refuses.
from tests.browser.support import browser, page, screenshot  # noqa: F401

# Hypothesis profiles, chosen by HYPOTHESIS_PROFILE. Their max_examples reaches only the
# property tests that run through the database (services, incremental recompute, lists), the
# slow ones; the pure ones pin their own counts. "ci" (.ci/run) runs at least as many examples
# as before; "dev" (the default, for make test) fewer, each still a whole sequence of edits
# checked against a full replay.
hypothesis_settings.register_profile("ci", max_examples=25, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", max_examples=10, deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Return a context manager that runs on-commit callbacks when its block ends."""

    def block():
        return django_capture_on_commit_callbacks(execute=True)

    return block


@pytest.fixture(autouse=True)
def _club_language():
    """Each test ends in the club's language: a request's ``Accept-Language`` activates its
    language in the thread (``LocaleMiddleware``) and would leak into the next test's
    messages."""
    from django.utils import translation

    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _local_cache(settings):
    """Each test gets an empty per-process cache, so that the queries a test counts are those
    of the code under test, not of the database cache the throttle and the read cache share
    in production; tests of those caches (tests/ladder/test_read_cache.py) choose their own."""
    from django.core.cache import cache

    from ladder.caching import throttling

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    throttling.forget()  # the throttle's reservations in this process: no test sees another's


@pytest.fixture(autouse=True, scope="session")
def _no_sweeper():
    """No test process starts the run sweeper's thread on its first request (a thread of its
    own would read the test database outside the test's transaction, or in a test that may
    not touch it); tests/ratings/test_sweeper.py drives it by hand. For the whole session, not
    each test: a live server's thread may take a request between two tests (a browser's late
    fetch), when a test's own settings are gone."""
    from django.test import override_settings

    with override_settings(LADDER_RUN_SWEEP_SECONDS=0):
        yield


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    """Tests make users with throwaway passwords: a fast hasher, as Django's testing docs
    advise (PBKDF2's million rounds cost about a second for each user a fixture makes)."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def orm_only(monkeypatch):
    """Every read compiled once (``ladder.records.compiled``) run by its QuerySet instead, and
    read as before: pages by Django's paginator over the QuerySet, the list through DRF's
    filter backends."""

    from ladder.api import views as api_views
    from ladder.records.compiled import Compiled, CompiledPages

    def as_the_orm():
        monkeypatch.setattr(Compiled, "_run", lambda self, values: None)
        # Pages as Django pages a QuerySet; the list through DRF's filter backends.
        monkeypatch.setattr(CompiledPages, "of", _the_orm_s_pages)
        monkeypatch.setattr(api_views, "_PLAIN_LIST", set())

    return as_the_orm


def _the_orm_s_pages(pages, *values, count=None):
    """``CompiledPages.of`` as the QuerySet itself; a count given (read with another, by
    ``Compiled``, here the ORM's) is its ``count()``, so the same queries run."""
    found = pages._build(*values)
    if count is not None:
        found.count = count
    return found
