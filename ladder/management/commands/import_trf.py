"""manage.py import_trf FILE: import a FIDE Tournament Report File (TRF-16 or TRF-2026)."""

from django.utils.translation import gettext_noop

from ladder.files import trf
from ladder.management.commands._tournament import ImportCommand
from ladder.records.translations import Help


class Command(ImportCommand):
    help = Help(
        gettext_noop(
            "Import a FIDE Tournament Report File (TRF-16 or TRF-2026): players matched by FIDE "
            "id, then by name (new ones created), played games rated, forfeits recorded unrated, "
            "byes and games of less than one move reported. All or nothing, then one rating run. "
            "Exit code 1 with the line, column and reason of every problem when refused."
        )
    )
    reader = staticmethod(trf.parse)
