"""Real-browser fixtures: Playwright driving Debian's headless Chromium against live_server.

Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make around
it are plain synchronous code, so Django's async-safety guard is relaxed for these tests only.
"""

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("LADDER_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        missing = (
            f"Chromium is not installed at {CHROMIUM}: the browser tests need it "
            "(apt-get install chromium, or LADDER_CHROMIUM=/path/to/chromium)."
        )
        if os.environ.get("CI"):  # CI installs it: a missing browser there is a failure
            pytest.fail(missing)
        pytest.skip(missing)
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A page that fails the test when the Content Security Policy refuses anything on it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield page
    context.close()
    assert not refused, f"The Content Security Policy refused: {refused}"


@pytest.fixture
def screenshot(page):
    """Save a screenshot of the current page under test-artifacts/NAME.png."""

    def take(name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
