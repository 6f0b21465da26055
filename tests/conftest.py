"""Shared fixtures.

Tests run inside a transaction that is never committed, so ``transaction.on_commit`` callbacks
(the signal-driven recomputes) do not fire by themselves: wrap writes in ``committed()`` to run
them as a real commit would.
"""

import pytest


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Return a context manager that runs on-commit callbacks when its block ends."""

    def block():
        return django_capture_on_commit_callbacks(execute=True)

    return block
