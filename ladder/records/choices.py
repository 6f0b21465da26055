"""The codes stored for results, sexes and titles."""

from __future__ import annotations

from django.db import models


class Result(models.TextChoices):
    WHITE_WIN = "1-0", "1-0"
    BLACK_WIN = "0-1", "0-1"
    DRAW = "1/2-1/2", "½-½"
    WHITE_FORFEIT_WIN = "+/-", "+/− (White wins by forfeit, unrated)"
    BLACK_FORFEIT_WIN = "-/+", "−/+ (Black wins by forfeit, unrated)"
    DOUBLE_FORFEIT = "0-0", "0-0 (double forfeit, unrated)"

    @classmethod
    def parse(cls, text: str) -> str:
        """Return the stored code for a result as people type it, or raise ``ValueError``."""
        cleaned = text.strip().replace(" ", "").replace("½", "1/2").replace("–", "-")
        cleaned = cleaned.replace("−", "-").replace("0.5", "1/2")
        aliases = {"=": cls.DRAW, "1/2": cls.DRAW, "draw": cls.DRAW, "+-": "+/-", "-+": "-/+"}
        code = aliases.get(cleaned.lower(), cleaned)
        if code in cls.values:
            return code
        raise ValueError(f"'{text}' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0.")


class Sex(models.TextChoices):
    MALE = "M", "Male"
    FEMALE = "F", "Female"


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
