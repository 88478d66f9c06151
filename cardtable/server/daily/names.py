"""Display names on the daily boards (docs/daily.md, "Display names"): `clean` normalises a
name (NFKC), drops control, format and blank characters (except the emoji joiner ZWJ),
collapses spaces and keeps 24 characters; then it must pass `core.names.check_seen` and
`core.names.check_polite` (no word of the short list in core/rude_words.py). A text of
spaces only, like null, makes the player anonymous."""

from __future__ import annotations

import unicodedata

from cardtable.server.core.names import BLANK, ZWJ, NameRefused, NotPolite, check_polite, check_seen

NAME_MAX = 24

__all__ = ["NAME_MAX", "NameRefused", "NotPolite", "clean"]


def _dropped(ch: str) -> bool:
    if ch == ZWJ:
        return False
    category = unicodedata.category(ch)
    return category.startswith("C") or category in ("Zl", "Zp") or ch in BLANK


def clean(text: str) -> str | None:
    """The name as the boards show it; None for a text of spaces (anonymous); `NameRefused`
    when it would show nothing a reader can see, or show it far too wide."""
    if not text.strip():
        return None
    name = unicodedata.normalize("NFKC", text)
    kept = "".join(ch for ch in name if not _dropped(ch))
    kept = " ".join(kept.split())[:NAME_MAX].strip()
    check_seen(kept)
    check_polite(kept)
    return kept
