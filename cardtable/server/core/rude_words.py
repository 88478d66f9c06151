"""The short list of words no one should have to read in a name shown to strangers, English and
Japanese, and `holds_rude_word`, which finds them through the usual disguises (docs/online.md
"Names"; `core.names.check_polite` refuses such a name).

A name is first brought to a plain form (`plain`): NFKC (full-width and half-width letters and
kana become ordinary ones), case-folded, Latin accents dropped, katakana as hiragana. What is
left is read as runs: letters, digits and the symbols that stand for letters (``@`` for a,
``$`` for s, ``!`` and ``|`` for i or l, ``+`` for t) are kept, anything else (spaces,
punctuation, emoji) only marks where a run ends; a change of script (Latin, kana, kanji) ends
a run too. A word of the list then matches the kept letters with the separators taken out
(``f.u.c.k``, ``f u c k``), each letter as itself or its stand-ins (``4`` or ``@`` for a,
``0`` for o, ``3`` for e, ``1`` for i or l, ``5`` or ``$`` for s, ``7`` for t...), repeated
any number of times (``fuuuck``).

Where it may match: a word of `ANYWHERE` is refused wherever it stands; the others only as a
whole run, or as runs spelt apart, from the start of one to the end of another, optionally
followed by a plural ending (`ENDINGS`) or, for Japanese, a sentence ending (`JA_ENDINGS`).
So "Scunthorpe", "Matsushita", "Shitara", "Spicer" and "コロ助" (ころすけ) pass, while
"c u n t", "Shit" and "死ね" do not.

What it does not catch, on purpose: words that ordinary names hold (a name is not refused for
"Dick" or "Cock"), mild swearing, and spellings past these disguises (letters swapped for
look-alikes of other scripts, sounds spelt another way: "phuck"). A person can always find a
rude name the list misses; it keeps the worst words off a stranger's screen, nothing more.
"""

from __future__ import annotations

import re
import unicodedata

ANYWHERE = ("fuck", "cocksucker", "きちがい", "気違い", "死ね", "殺す", "れいぷ")
"""Refused wherever they stand: no ordinary name holds them."""
WHOLE = (
    # English: slurs and the strongest swearing.
    "cunt", "nigger", "nigga", "faggot", "tranny", "spic", "chink", "wetback", "retard",
    "retarded", "shit", "shitty", "bullshit", "asshole", "arsehole", "bitch", "whore",
    "slut", "wanker", "dickhead", "rape", "rapist",
    # Japanese (in hiragana: katakana is folded to it).
    "しね", "ころす", "まんこ", "おまんこ", "ちんこ", "ちんぽ", "かたわ",
)  # fmt: skip
"""Refused only as a whole run (or runs spelt apart), with an ending of `ENDINGS`."""
ENDINGS = ("", "s", "es", "z")
JA_ENDINGS = ("", "ー", "っ", "ぞ", "よ", "や", "え", "ぇ", "ね")
STAND_INS = {
    "a": "4@",
    "b": "8",
    "e": "3",
    "g": "9",
    "i": "1!|",
    "l": "1|",
    "o": "0",
    "s": "5$",
    "t": "7+",
}
"""The digits and symbols that stand for a letter."""
SYMBOLS = frozenset("".join(STAND_INS.values()))
_KATAKANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)}


def plain(name: str) -> str:
    """``name`` NFKC-normalised, case-folded, without Latin accents, katakana as hiragana."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not "\u0300" <= ch <= "\u036f")
    return unicodedata.normalize("NFC", text).translate(_KATAKANA)


def _script(ch: str) -> str | None:
    """The run a kept character belongs to (None: a separator)."""
    if "\u3041" <= ch <= "\u309f" or ch == "ー":
        return "kana"
    if ch in SYMBOLS or (ch.isascii() and ch.isalnum()):
        return "latin"
    if not ch.isalnum():
        return None
    named = unicodedata.name(ch, "")
    if named.startswith("LATIN"):
        return "latin"
    if named.startswith("CJK") or ch == "々":
        return "kanji"
    return "other"


def _runs(name: str) -> tuple[str, list[bool]]:
    """The kept letters of ``plain(name)``, and for each whether a run starts there."""
    letters: list[str] = []
    starts: list[bool] = []
    before: str | None = None
    for ch in plain(name):
        script = _script(ch)
        if script is not None:
            letters.append(ch)
            starts.append(script != before)
        before = script
    return "".join(letters), starts


def _pattern(word: str) -> re.Pattern[str]:
    parts = []
    for ch in word:
        choices = re.escape(ch) + "".join(re.escape(c) for c in STAND_INS.get(ch, ""))
        parts.append(f"[{choices}]+")
    return re.compile("".join(parts))


_ANYWHERE = [_pattern(w) for w in ANYWHERE]
_WHOLE = [(_pattern(w), JA_ENDINGS if not w.isascii() else ENDINGS) for w in WHOLE]


def holds_rude_word(name: str) -> bool:
    """Whether ``name`` holds a word of the list (see the module's docstring)."""
    letters, starts = _runs(name)
    if any(p.search(letters) for p in _ANYWHERE):
        return True
    ends = [i for i in range(1, len(letters)) if starts[i]] + [len(letters)]
    for i, start in enumerate(starts):
        if not start:
            continue
        for pattern, endings in _WHOLE:
            found = pattern.match(letters, i)
            if found is None:
                continue
            stop = next(e for e in ends if e >= found.end())
            if letters[found.end() : stop] in endings:
                return True
    return False
