"""Lists as published: publications, revisions and the official lists read from them."""

from ratings.publication.revisions import *  # noqa: F403
