"""The Schemathesis run's own setup (scripts/schemathesis_data.py): what fails CI."""

from __future__ import annotations

import sys
from pathlib import Path

from schemathesis.config import SchemathesisWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import schemathesis_data  # noqa: E402  (a script's module; it sets Django up, as pytest did)


def test_every_schemathesis_warning_fails_ci_or_is_printed_by_choice():
    fail_on, printed = set(schemathesis_data.FAIL_ON), set(schemathesis_data.PRINTED)

    assert not fail_on & printed
    assert fail_on | printed == {warning.value for warning in SchemathesisWarning}
