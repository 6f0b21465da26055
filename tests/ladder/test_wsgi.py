"""The WSGI entry point gunicorn serves: the application, and the process's start-up heap
kept out of the cyclic collector's full collections."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_served_process_freezes_what_it_keeps_for_its_life():
    # In a process of its own: freezing the test run's heap would keep its garbage forever.
    script = (
        "import gc, json, ladder.wsgi; from django.urls import get_resolver; "
        "print(json.dumps({'frozen': gc.get_freeze_count(), "
        "'urlconf': len(get_resolver().url_patterns), "
        "'app': callable(ladder.wsgi.application)}))"
    )
    env = {**os.environ, "DJANGO_SECRET_KEY": "x", "DJANGO_SETTINGS_MODULE": "ladder.settings"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, check=True, capture_output=True,
        text=True,
    ).stdout  # fmt: skip

    found = json.loads(out.splitlines()[-1])
    assert found["app"] is True
    assert found["urlconf"] > 0
    # Django, the apps and the URLconf: tens of thousands of objects, none left to scan.
    assert found["frozen"] > 20_000
