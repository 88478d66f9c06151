"""JSON text on the server's hot paths: each online view sent and each table or game saved.

orjson writes the same JSON as the standard library (compact, UTF-8 text kept as is) about
ten times as fast on these documents: a seat's part of an online view (6 KiB) in 15-20 µs
against 150-250 µs, a saved online table (17 KiB) in about 45 µs against 450 µs
(docs/online.md "Where a move's server CPU goes"). What orjson refuses, an integer beyond
64 bits, is written by the standard library instead.
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
