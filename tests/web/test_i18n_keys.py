"""The translations (no browser): both languages have the same keys, every refusal the
Kings Corner engine can send in a view is worded in both, and the placeholders match."""

from __future__ import annotations

import json
import re

from cardtable.kings_corner.reasons import KEYS
from cardtable.server.settings import WEB_DIR

# Refusals of a whole request, never part of a view's `refusals`: the server answers them
# as errors (`illegal_move`, `wrong_phase`) and the page words those.
NOT_IN_VIEWS = {"round_over", "nothing_to_undo"}


def strings(lang: str) -> dict[str, str]:
    data = json.loads((WEB_DIR / "assets" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en, ja = strings("en"), strings("ja")
    assert set(en) == set(ja)
    for key, text in en.items():
        assert placeholders(text) == placeholders(ja[key]), key


def test_every_refusal_in_a_view_is_worded() -> None:
    en = strings("en")
    for key in KEYS - NOT_IN_VIEWS:
        assert f"kc.why.{key}" in en, key
