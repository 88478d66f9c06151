"""What a notification says, in the device's language (English or Japanese), written when
the event is put in the outbox. It names people and the table, never a card: whose turn it
is, not what is in a hand (SPEC C-8)."""

from __future__ import annotations

from typing import Any

LANGS = ("en", "ja")
KINDS = ("turn", "joined", "over", "rematch")
"""The events a device may ask for: its turn, a player joined its table, the match is
over, a rematch is offered."""

_TITLE = {"en": "Kings Corner", "ja": "キングスコーナー"}
_TEXT = {
    "en": {
        "turn": "Your turn at {table}",
        "turn_mine": "Your turn at the table you host",
        "joined": "{who} joined {table}",
        "over": "The match at {table} is over",
        "rematch": "{who} offers a rematch at {table}",
    },
    "ja": {
        "turn": "{table}であなたの番です",
        "turn_mine": "あなたが開いた卓であなたの番です",
        "joined": "{who}さんが{table}に着きました",
        "over": "{table}の対戦が終わりました",
        "rematch": "{who}さんが{table}で再戦を申し込みました",
    },
}


def _table(lang: str, host: str | None, mine: bool) -> str:
    if lang == "ja":
        return "あなたの卓" if mine or not host else f"{host}の卓"
    return "your table" if mine or not host else f"{host}'s table"


def payload(
    lang: str, kind: str, *, host: str | None, mine: bool, who: str | None, url: str, tag: str
) -> dict[str, Any]:
    """The JSON the service worker shows: ``title``, ``body``, the ``url`` a tap opens and
    the ``tag`` that replaces an older notification of the same table."""
    lang = lang if lang in LANGS else "en"
    if kind == "turn" and mine:
        kind = "turn_mine"
    body = _TEXT[lang][kind].format(table=_table(lang, host, mine), who=who or "?")
    return {"title": _TITLE[lang], "body": body, "url": url, "tag": tag}
