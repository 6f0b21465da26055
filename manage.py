#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    # Commands in a checkout (makemigrations, migrate, shell) run without a deployment's
    # environment: the local settings add a throwaway key when none is set, and change nothing
    # when one is. What serves requests (ladder.wsgi, ladder.asgi) uses ladder.settings, which
    # fails closed; so does any command run with DJANGO_SETTINGS_MODULE=ladder.settings.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings_local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
