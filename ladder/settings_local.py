"""Settings for local tools that run without a deployment's environment: the tests, the type
checker and the ``make`` targets. Everything as in ``ladder.settings`` (which fails closed:
debug off and a secret key required), with a throwaway key when none is set. Never deploy it.
"""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "ladder-local-tools-only-not-a-deployment-key")

from ladder.settings import *  # noqa: E402, F403
