"""Django loads an app's models from ``ladder.models``: the club's records live in
``ladder.records`` (one module per record), and this module only hands them on."""

from ladder.records import *  # noqa: F403
