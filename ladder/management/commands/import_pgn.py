"""manage.py import_pgn FILE: import the games of a PGN file from their tag pairs."""

from django.utils.translation import gettext_noop

from ladder.files import pgn
from ladder.management.commands._tournament import ImportCommand
from ladder.records.translations import Help


class Command(ImportCommand):
    help = Help(
        gettext_noop(
            "Import the games of a PGN file from their tags (Event, Date, Round, White, Black, "
            "Result, WhiteFideId/BlackFideId, WhiteElo/BlackElo, TimeControl; the moves are not "
            "read): players matched by FIDE id, then by name (new ones created). All or nothing, "
            "then one rating run. Exit code 1 with the line and reason of every problem."
        )
    )
    reader = staticmethod(pgn.parse)
