"""The README's quick start (issue 23's walk-through): ``make run`` takes ``PORT=``, and the
browser tests are skipped, with a line saying how to install Chromium, where it is missing."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_takes_another_port():
    # -n prints what make would run and runs nothing (no install, no server).
    printed = subprocess.run(
        ["make", "-n", "run", "PORT=8123"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "runserver 127.0.0.1:8123" in printed
    default = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "runserver 127.0.0.1:8000" in default


def test_without_chromium_the_browser_tests_are_skipped_saying_how_to_install_it(tmp_path):
    env = {**os.environ, "LADDER_CHROMIUM": str(tmp_path / "no-chromium")}
    env.pop("CI", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-rs",
         "-q", "tests/pages/test_browser.py::test_calculator_updates_as_you_type"],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # skipped, not an error
    assert "1 skipped" in done.stdout
    assert "SKIPPED" in done.stdout
    assert f"Chromium is not installed at {tmp_path / 'no-chromium'}" in done.stdout
    assert "apt-get install chromium" in done.stdout
