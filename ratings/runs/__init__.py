"""Rating runs: durable recompute requests, their execution, the task workers drain."""

from ratings.runs.queue import *  # noqa: F403
