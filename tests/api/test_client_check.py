"""A client generated from the live schema does what a tool does (scripts/client_check.py):
the script starts its own server and database, so this test needs none of pytest-django's."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_generated_client_reads_writes_corrects_deletes_and_pages():
    done = subprocess.run(
        [sys.executable, "scripts/client_check.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    for step in (
        "every module of the client imports",
        "an ETag round trip (If-None-Match -> 304)",
        "read every resource",
        "preview a correction (dry_run)",
        "delete the game",
        "page through the games",
    ):
        assert f"ok   {step}" in done.stdout
    assert "FAIL" not in done.stderr
