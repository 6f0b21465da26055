# ruff: noqa: E501  (TRF lines are fixed-width and longer than our code lines)
"""Tournament report files written from FIDE's specification (TRF-16, TRF-2026), by hand.

Columns (1-based): rank 5-8, sex 10, title 11-13, name 15-47, rating 49-52, federation 54-56,
FIDE id 58-68, birth date 70-79, points 81-84, rank 86-89, then from 92 one 10-column block per
round: opponent (4), colour (6th), result (8th).
"""

ROUND_ROBIN = """\
012 Spring Round Robin
022 Riverton
032 ENG
042 2026/03/07
052 2026/03/21
062 4
072 3
092 Round robin
102 IA Arbiter, Alice
122 90 min + 30 sec
001    1 m GM Mirzoev, Azer                     2527 AZE    13400304 1978/05/12  2.5    1     4 w 1     3 b 1     2 w =
001    2 m IM Argandona Riveiro, Inigo          2408 ESP     2212072 1981/01/30  1.5    2     3 w =     4 b =     1 b =
001    3 m FM Hernandez, Elvis                  2282 DOM     6400353 1981/07/04  1.5    3     2 b =     1 w 0     4 b 1
001    4 w    Doe, Jane                            0 ENG                         0.5    4     1 b 0     2 w =     3 w 0
132                                                                                        26/03/07  26/03/14  26/03/21
"""

# A Swiss of 4 rounds with every kind of round: played games (one with an unrated player),
# forfeits (one double), games of less than one move (W/L, D/D), byes H, F, U, Z and blank,
# and a last round saved before every result was in (Beta - Gamma has no result yet, New has
# no block at all). TRF-2026: a comment line and an encoded time control (222).
SWISS = """\
### Exported by a pairing program
012 Club Swiss
042 2026/03/07
052 2026/03/28
222 5400+30
001    1 m    Alpha, Anna                       1850 ENG        1001             3.0    1     4 w 1     2 w W     3 w 0     5 w 1
001    2 m    Beta, Ben                         1600 GER        1002             1.0    4     5 w +     1 b L  0000 - Z     3 w
001    3 m    Gamma, Cem                        1700 TUR                         2.5    2     6 w =  0000 - H     1 b 1     2 b
001    4 w    Delta, Dora                       1550 FRA        1004             1.0    5     1 b 0     5 w -     6 w D  0000 - U
001    5 m    Epsilon, Emil                     1500 ENG        1005             0.0    6     2 b -     4 b -  0000 -       1 b 0
001    6 w    New, Nora                              ENG                         2.0    3     3 b =  0000 - F     4 b D
132                                                                                        26/03/07  26/03/14  26/03/21  26/03/28
"""


def replace_line(text: str, start: str, new: str) -> str:
    """Return ``text`` with the line starting ``start`` replaced by ``new``."""
    return "\n".join(new if line.startswith(start) else line for line in text.split("\n"))


def put(text: str, line_start: str, column: int, value: str) -> str:
    """Overwrite columns of one line from ``column`` (1-based)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(line_start):
            line = line.ljust(column - 1 + len(value))
            lines[i] = line[: column - 1] + value + line[column - 1 + len(value) :]
    return "\n".join(lines)
