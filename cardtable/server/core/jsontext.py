"""JSON text on the server's hot paths: each online view sent and each table or game saved.

orjson writes the same JSON as the standard library (compact, UTF-8 text kept as is), many
times faster on these documents (the figures and the command that measures them:
docs/online-limits.md). What orjson refuses, an integer beyond 64 bits, is written by the
standard library instead.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_PLAIN = orjson.OPT_NON_STR_KEYS
_SORTED = orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS


def dumps(data: Any, *, sort_keys: bool = False) -> str:
    """``data`` as compact JSON text (keys sorted when asked); non-string keys written as
    strings, as `json.dumps` writes them."""
    try:
        return orjson.dumps(data, option=_SORTED if sort_keys else _PLAIN).decode()
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, say
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
