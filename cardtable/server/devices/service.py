"""The pieces of one record on several devices (docs/devices.md) that hold no state: transfer
codes (make, normalise, show), recovery keys, device names (given, or from the User-Agent,
numbered when the record already has one of that name), and the clock the device routes read
(tests inject one as ``app.state.devices_clock``)."""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""31 symbols: no 0/O, 1/I/L look-alikes."""
CODE_LENGTH = 8
CODE_SPACE = len(CODE_ALPHABET) ** CODE_LENGTH
"""How many transfer codes there are: 31^8 = 852,891,037,441. Guessing is bounded per client
address and by one ceiling for the whole site (`Settings.site_claim_rate`; docs/devices.md,
"Limits")."""
CODE_SECONDS = 600
"""How long a transfer code stays valid."""
CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
TOUCH_AFTER = timedelta(minutes=5)
"""`last_used_at` is written only when it is older than this (reads stay reads)."""
NAME_MAX = 40
DEVICE = re.compile(r"[a-z2-7]{12}")


def iso(at: datetime) -> str:
    """How the store writes a time: ISO-8601 UTC with microseconds (compares as text)."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def now_of(state: Any) -> datetime:
    """Now in UTC: ``state.devices_clock()`` (an app's ``state``) when a test injected one."""
    injected = getattr(state, "devices_clock", None)
    return injected() if injected is not None else datetime.now(UTC)


def new_code() -> str:
    """8 random characters of `CODE_ALPHABET` (about 39.6 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """The code as typed (any case, full-width, spaces or hyphens), or None when it is then
    not 8 characters of the alphabet."""
    code = unicodedata.normalize("NFKC", text).upper().replace(" ", "").replace("-", "")
    return code if CODE.fullmatch(code) else None


def shown(code: str) -> str:
    """``ABCD-EFGH``."""
    return f"{code[:4]}-{code[4:]}"


def new_recovery_key() -> str:
    """32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def device_name(text: str | None, user_agent: str | None) -> str:
    """A name as given (NFKC, control and format characters dropped, spaces collapsed, cut
    to 40 characters), or the User-Agent's default when nothing is left."""
    if text is not None:
        text = unicodedata.normalize("NFKC", text)
        kept = "".join(c for c in text if unicodedata.category(c)[0] != "C" or c == "\u200d")
        name = " ".join(kept.split())[:NAME_MAX].strip()
        if name:
            return name
    return default_name(user_agent or "")


def distinct_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or when another device of the record already has it, ``name (2)``,
    ``name (3)``... the first that none has (cut to stay within 40 characters): two browsers
    of one kind ("Chrome on Linux") get names the player can tell apart."""
    names = set(taken)
    if name not in names:
        return name
    n = 2
    while True:
        tail = f" ({n})"
        candidate = name[: NAME_MAX - len(tail)].rstrip() + tail
        if candidate not in names:
            return candidate
        n += 1


_BROWSERS = (
    ("Edge", re.compile(r"Edg(e|A|iOS)?/")),
    ("Opera", re.compile(r"OPR/|Opera")),
    ("Samsung Internet", re.compile(r"SamsungBrowser/")),
    ("Firefox", re.compile(r"Firefox/|FxiOS/")),
    ("Chrome", re.compile(r"Chrome/|CriOS/|Chromium/")),
    ("Safari", re.compile(r"Safari/")),
)
_SYSTEMS = (
    ("iPhone", re.compile(r"iPhone")),
    ("iPad", re.compile(r"iPad")),
    ("Android", re.compile(r"Android")),
    ("Windows", re.compile(r"Windows")),
    ("ChromeOS", re.compile(r"CrOS")),
    ("Mac", re.compile(r"Macintosh|Mac OS X")),
    ("Linux", re.compile(r"Linux|X11")),
)


def default_name(user_agent: str) -> str:
    """ "Chrome on Android", "Safari on iPhone", "Firefox on Windows"... else "Browser"."""
    ua = user_agent[:512]
    browser = next((name for name, pattern in _BROWSERS if pattern.search(ua)), None)
    system = next((name for name, pattern in _SYSTEMS if pattern.search(ua)), None)
    if browser is None:
        return "Browser"
    return browser if system is None else f"{browser} on {system}"
