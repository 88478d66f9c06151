"""Names other people read: a seat's name at an online table, a display name on the daily
boards (docs/daily.md, "Display names"; docs/online.md).

`check_polite` refuses a name shown to strangers (the daily boards, quick play) that holds a
word of the short list in core/rude_words.py (docs/online.md, "Names").

Each feature normalises a name its own way (NFKC, trimmed; the daily drops control and format
characters, a table refuses them), then `check_seen` refuses a name that would show nothing a
reader can see (only spaces, combining marks and characters that draw blank, such as U+3164
HANGUL FILLER), that stacks more than `MAX_MARKS` combining marks on one letter (the "Zalgo"
pile that spills over the rows around it), or that holds a character drawn many times wider
than a letter (`WIDE`: the Arabic ligatures U+FDFA, U+FDFB and U+FDFD, the two- and three-em
dashes, the Javanese pada U+A9C5, and the cuneiform signs).
"""

from __future__ import annotations

import unicodedata

from cardtable.server.core.rude_words import holds_rude_word

MAX_MARKS = 3
"""Combining marks one letter may carry (Devanagari and others put two or three on a
consonant; a Zalgo name puts dozens)."""
ZWJ = "\u200d"
"""Joins emoji sequences: the one format character a name keeps."""
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (the Hangul fillers, the blank Braille pattern)."""
WIDE = frozenset("\ufdfa\ufdfb\ufdfd\u2e3a\u2e3b\ua9c5")
CUNEIFORM = (0x12000, 0x1254F)


class NameRefused(ValueError):
    """A name no one should have to read; the message says why."""


class NotPolite(NameRefused):
    """A name holding a word of the list no one should see (`check_polite`)."""


def check_polite(name: str) -> None:
    """Raise `NotPolite` (a `NameRefused`) when ``name``, a name shown to strangers, holds a
    word of core/rude_words.py, through the disguises listed there (docs/online.md "Names")."""
    if holds_rude_word(name):
        raise NotPolite("it holds a word no one should have to read: choose another name")


def check_seen(name: str) -> None:
    """Raise `NameRefused` unless ``name`` shows something, at the width of its letters."""
    if not any(_seen(ch) for ch in name):
        raise NameRefused("nothing in it can be seen: use letters, digits or symbols")
    if any(ch in WIDE or CUNEIFORM[0] <= ord(ch) <= CUNEIFORM[1] for ch in name):
        raise NameRefused("it holds a character drawn far wider than a letter")
    run = 0
    for ch in name:
        run = run + 1 if _mark(ch) else 0
        if run > MAX_MARKS:
            raise NameRefused(f"more than {MAX_MARKS} accents are stacked on one letter")


def _seen(ch: str) -> bool:
    category = unicodedata.category(ch)
    return not (ch.isspace() or ch in BLANK or category.startswith(("M", "C", "Z")))


def _mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")
