"""The codes stored for results, sexes and titles."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext, gettext_lazy

from ratings.rules import engine


class Result(models.TextChoices):
    """The results a game may have; the codes are the rules' (``ratings.rules.engine``), which
    cannot import Django, so this reads them rather than writing them again."""

    WHITE_WIN = engine.RESULT_WHITE_WIN, "1-0"
    BLACK_WIN = engine.RESULT_BLACK_WIN, "0-1"
    DRAW = engine.RESULT_DRAW, "½-½"
    WHITE_FORFEIT_WIN = (
        engine.RESULT_WHITE_FORFEIT_WIN,
        gettext_lazy("+/− (White wins by forfeit, unrated)"),
    )
    BLACK_FORFEIT_WIN = (
        engine.RESULT_BLACK_FORFEIT_WIN,
        gettext_lazy("−/+ (Black wins by forfeit, unrated)"),
    )
    DOUBLE_FORFEIT = engine.RESULT_DOUBLE_FORFEIT, gettext_lazy("0-0 (double forfeit, unrated)")

    @classmethod
    def parse(cls, text: str) -> str:
        """Return the stored code for a result as people type it, or raise ``ValueError``."""
        cleaned = text.strip().replace(" ", "").replace("½", "1/2").replace("–", "-")
        cleaned = cleaned.replace("−", "-").replace("0.5", "1/2")
        aliases = {"=": cls.DRAW, "1/2": cls.DRAW, "draw": cls.DRAW, "+-": cls.WHITE_FORFEIT_WIN,
                   "-+": cls.BLACK_FORFEIT_WIN}  # fmt: skip
        code = aliases.get(cleaned.lower(), cleaned)
        if code in cls.values:
            return code
        *most, last = cls.values
        raise ValueError(
            gettext("'%(text)s' is not a result; use %(most)s or %(last)s.")
            % {"text": text, "most": ", ".join(most), "last": last}
        )


class Sex(models.TextChoices):
    MALE = "M", gettext_lazy("Male")
    FEMALE = "F", gettext_lazy("Female")


class Title(models.TextChoices):
    """Real FIDE titles, labelled as FIDE writes them (not "Gm", "Wgm")."""

    GM = "GM", "GM"
    IM = "IM", "IM"
    FM = "FM", "FM"
    CM = "CM", "CM"
    WGM = "WGM", "WGM"
    WIM = "WIM", "WIM"
    WFM = "WFM", "WFM"
    WCM = "WCM", "WCM"
