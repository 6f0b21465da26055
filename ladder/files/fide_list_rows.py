"""What FIDE's list readers share: the fields each number or text may hold, the check of one
row's values (which names the field of a problem), and COPY's escapes."""

from __future__ import annotations

from django.utils.translation import gettext

from ladder.records.fide_list import LIST_COLUMNS, ROW_FIELDS

MAX_PROBLEMS = 50  # a file this wrong is reported at its first 50 problems

# The most digits each number may have (FIDE's 0 for "none" is kept as 0).
NUMBERS = {
    "fide_id": 12,
    "birth_year": 4,
    **{name: 4 for names in LIST_COLUMNS.values() for name in names},
}
TEXT_LENGTHS = {
    "name": 100,
    "federation": 3,
    "sex": 1,
    "title": 5,
    "women_title": 5,
    "other_titles": 40,
    "foa_title": 5,
    "flag": 3,
}

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def escaped(value: str) -> str:
    return value.translate(_ESCAPES)


def is_list(name: str) -> bool:
    return any(name in names for names in LIST_COLUMNS.values())


def columns_of(given: set[str]) -> tuple[str, ...]:
    """The row fields a file fills: every identity field (blank when the file has no such
    column, as older lists have no FOA), and the lists the file carries."""
    return tuple(f for f in ROW_FIELDS if f in given or not is_list(f))


def check(values: dict[str, str]) -> tuple[str, str] | None:
    """The first problem of a row's values (the field and the reason), else None; a blank
    number is FIDE's 0 (none)."""
    if not values.get("fide_id"):
        return "fide_id", gettext("The FIDE id is missing.")
    for name, digits in NUMBERS.items():
        if name not in values:
            continue
        value = values[name]
        if not value:
            values[name] = "0"
        elif not (value.isdigit() and value.isascii() and len(value) <= digits):
            what = name.replace("_", " ")
            return name, gettext(
                "'%(value)s' is not a %(what)s (a whole number of up to %(digits)s digits)."
            ) % {"value": value, "what": what, "digits": digits}
    if values["fide_id"].strip("0") == "":
        return "fide_id", gettext("The FIDE id is 0.")
    if not values.get("name"):
        return "name", gettext("The name is missing.")
    for name, most in TEXT_LENGTHS.items():
        value = values.get(name, "")
        if len(value) > most:
            return name, gettext("The %(what)s '%(value)s' is longer than %(most)s characters.") % {
                "what": name.replace("_", " "),
                "value": value,
                "most": most,
            }
        if any(c < " " for c in value):
            return name, gettext("The %(what)s holds a control character (a tab?).") % {
                "what": name.replace("_", " ")
            }
    federation = values.get("federation", "")
    if federation and not (federation.isalpha() and federation.isascii()):
        return "federation", gettext("'%(federation)s' is not a federation (three letters).") % {
            "federation": federation
        }
    sex = values.get("sex", "")
    if sex and sex not in ("M", "F"):
        return "sex", gettext("'%(sex)s' is not a sex (M or F).") % {"sex": sex}
    return None
