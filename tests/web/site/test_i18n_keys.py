"""The translations (no browser): both languages have the same keys, every refusal the
Kings Corner engine can send in a view is worded in both, the placeholders match, and every
count is a message of plural forms."""

from __future__ import annotations

import json
import re

from cardtable.kings_corner.reasons import KEYS
from cardtable.server.core.settings import WEB_DIR

# Refusals of a whole request, never part of a view's `refusals`: the server answers them
# as errors (`illegal_move`, `wrong_phase`) and the page words those.
NOT_IN_VIEWS = {"round_over", "nothing_to_undo"}

# The categories of `Intl.PluralRules` each language uses (CLDR): the forms a plural message
# must have, and the only ones it may have.
PLURAL_FORMS = {"en": {"one", "other"}, "ja": {"other"}}

Message = str | dict[str, str]


BUNDLES = (
    "review",
    "daily",
    "stats",
    "data",
    "fairness",
    "devices",
    "online",
    "quick",
    "rating",
    "share",
    "pstable",
    "archive",
)
"""A page's own strings, assets/i18n/<name>.<lang>.json, merged by i18n.js `addBundle`."""


def _read(name: str) -> dict[str, Message]:
    data = json.loads((WEB_DIR / "assets" / "i18n" / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def strings(lang: str) -> dict[str, Message]:
    """Every string of ``lang``: the main file and each bundle (which adds keys, never
    replaces one)."""
    data = _read(lang)
    for bundle in BUNDLES:
        extra = _read(f"{bundle}.{lang}")
        assert not set(extra) & set(data), f"{bundle}.{lang}.json redefines main keys"
        data = {**data, **extra}
    return data


def forms(message: Message) -> list[str]:
    """The texts of a message: itself, or each of its plural forms."""
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: Message) -> set[str]:
    return {name for text in forms(message) for name in re.findall(r"\{(\w+)\}", text)}


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en, ja = strings("en"), strings("ja")
    assert set(en) == set(ja)
    for key, message in en.items():
        assert placeholders(message) == placeholders(ja[key]), key
        # Every form of a message names the same things.
        for lang, own in (("en", message), ("ja", ja[key])):
            sets = {frozenset(re.findall(r"\{(\w+)\}", text)) for text in forms(own)}
            assert len(sets) == 1, (lang, key, own)


def test_plural_messages_have_the_forms_of_their_language() -> None:
    en, ja = strings("en"), strings("ja")
    for lang, table in (("en", en), ("ja", ja)):
        for key, message in table.items():
            if isinstance(message, dict):
                assert set(message) == PLURAL_FORMS[lang], (lang, key, message)
                assert all(isinstance(text, str) for text in message.values()), (lang, key)
                assert "n" in placeholders(message), f"{lang} {key}: the count is {{n}}"
            else:
                assert isinstance(message, str), (lang, key)
    # A message is plural in both languages or in neither.
    for key in en:
        assert isinstance(en[key], dict) == isinstance(ja[key], dict), key


# A count next to a counted noun ("{n} cards", "{points} points"): such a message must be plural.
COUNTED_EN = re.compile(r"\{\w+\} (cards?|points?|pts?)\b")


def test_every_english_count_of_a_noun_is_plural() -> None:
    for key, message in strings("en").items():
        if isinstance(message, str):
            assert not COUNTED_EN.search(message), f"{key}: make it plural forms counted by {{n}}"
        else:  # the singular form says "card", "point", "pt"
            assert not re.search(r"\{n\} (cards|points|pts)\b", message["one"]), key


def test_every_refusal_in_a_view_is_worded() -> None:
    en = strings("en")
    for key in KEYS - NOT_IN_VIEWS:
        assert f"kc.why.{key}" in en, key
