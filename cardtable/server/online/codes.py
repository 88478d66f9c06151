"""The secrets and names of an online table (docs/online.md "Words").

- the invite token: 144 random bits, URL-safe (`new_token`); the store keeps only its SHA-256
  (`table_key`), so a database leak hands out no table;
- the room code: 6 characters without look-alikes (`new_code`), for reading aloud: 31^6 =
  887,503,681 codes (`CODE_SPACE`), each leading to its table for at most
  `OnlineSettings.code_hours`; guessing is bounded by the lookup limits, the last of them one
  ceiling for the whole site (`Settings.site_lookup_rate`; docs/online.md "Abuse limits");
- display names: NFKC, trimmed, 1-24 characters, no control or format characters
  (`display_name`, 422 ``invalid_name`` otherwise).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata

from cardtable.server.core import names
from cardtable.server.core.errors import ApiError

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
NAME_MAX = 24
TOKEN = re.compile(r"[A-Za-z0-9_-]{24}")
"""`secrets.token_urlsafe(18)`: 18 bytes are exactly 24 base64url characters."""
CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
CODE_SPACE = len(CODE_ALPHABET) ** CODE_LENGTH
"""How many room codes there are: 31^6 = 887,503,681."""
_ZWJ = "\u200d"  # joins emoji sequences; every other format character is refused


def new_token() -> str:
    return secrets.token_urlsafe(18)


def table_key(token: str) -> str:
    """What the store keeps for a token."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A typed code in its stored form (upper case, spaces and dashes dropped), or None when
    it cannot be a code."""
    code = re.sub(r"[\s-]", "", text).upper()
    return code if CODE.fullmatch(code) else None


def invalid_name(message: str) -> ApiError:
    return ApiError(422, "invalid_name", message)


def display_name(text: str) -> str:
    """The name as shown: NFKC-normalised and trimmed; 422 ``invalid_name`` when it is empty,
    longer than 24 characters, holds a control, format, private or unassigned character, or
    fails `names.check_seen` (shows nothing, stacks accents, or is drawn far too wide)."""
    name = unicodedata.normalize("NFKC", text).strip()
    if not name:
        raise invalid_name("a name needs at least one visible character")
    if len(name) > NAME_MAX:
        raise invalid_name(f"a name has at most {NAME_MAX} characters")
    for ch in name:
        category = unicodedata.category(ch)
        if (category.startswith("C") and ch != _ZWJ) or category in ("Zl", "Zp"):
            raise invalid_name(f"a name may not contain the character U+{ord(ch):04X}")
    try:
        names.check_seen(name)
    except names.NameRefused as exc:
        raise invalid_name(f"name: {exc}") from None
    return name
