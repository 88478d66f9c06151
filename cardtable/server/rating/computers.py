"""The computers' fixed ratings (docs/rating.md, "Computers"), measured by play between
them and never updated by a match with people.

Measured with ``.venv/bin/python -m bench.computer_ratings`` (see that file for the matches
it plays); the figures below are its output. Ratings are relative: normal is put at a new
person's ``mu`` (25), so a newcomer is taken to play like the normal computer. Each is
(``mu``, ``sigma``) on the library's scale; a person's update treats the computer as a
player of exactly that rating.
"""

from __future__ import annotations

STRENGTHS = ("easy", "normal", "strong")

COMPUTERS: dict[str, tuple[float, float]] = {
    # .venv/bin/python -m bench.computer_ratings --matches 2000 (2026-12-04, one-round
    # matches of the standard rules, 2-4 seats, seed 1; 68 s CPU): the mean place share
    # (0 first, 1 last) was easy 0.795, normal 0.412, strong 0.294.
    "easy": (13.44, 1.73),
    "normal": (25.00, 1.62),
    "strong": (27.57, 1.63),
}
