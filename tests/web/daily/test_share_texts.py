"""The share texts of poker-squares/share.js name no card (docs/daily.md, "Sharing"): 200
finished deals, played by the engine in Python (a seeded random player, and two arranged
deals that make every hand class), rendered by the module in the browser in English and in
Japanese (one page, one call), and searched for every rank and suit in every notation the
product uses. The words variant names each row's and column's hand in order."""

from __future__ import annotations

import json
import random
import re
from functools import cache
from typing import Any

from playwright.sync_api import Page

from cardtable.cards import Card
from cardtable.poker_squares import deal, deal_cards, legal_moves, play, view
from cardtable.server.core.settings import WEB_DIR

I18N = WEB_DIR / "assets" / "i18n"
LANGS = ("en", "ja")
HANDS = (
    "nothing",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
MARKS = "⓪①②③④⑤⑥⑦⑧⑨"
DEALS = 200

# Two deals whose rows, placed in order, make every hand class between them: royal flush,
# straight flush, four of a kind, full house, flush; straight, three of a kind, two pair,
# one pair, nothing.
ARRANGED = (
    "TS JS QS KS AS 5H 6H 7H 8H 9H 2C 2D 2H 2S 3C 4C 4D 4S 3D 3H 6D 8D TD QD KD",
    "2C 3D 4H 5S 6C 7C 7D 7H 8S 9C TC TD JH JS QC KC KD AH 2D 3H 4S 6D 8C TH QS",
)


def bundle(name: str) -> dict[str, Any]:
    data = json.loads((I18N / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def words_of(lang: str) -> dict[str, Any]:
    return {**bundle(lang), **bundle(f"share.{lang}")}


# --- what counts as naming a card -----------------------------------------------------------

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣♤♡♢♧❤"  # the suits, their white forms and the heavy heart (❤️)
PLAYING_CARDS = "\U0001f0a0-\U0001f0ff"  # the Unicode block of playing cards (🂡)
# Engine notation ("QH", "10H", "TH") and the written one of the pages ("Q♥", "10♥").
NOTATION = re.compile(
    rf"(?<![0-9A-Za-z])(?:10|[{RANK_CHARS}])[{SUIT_CHARS}{SUIT_SYMBOLS}](?![A-Za-z])"
    rf"|[{SUIT_SYMBOLS}{PLAYING_CARDS}]"
)
# English words for a rank or a suit besides the bundles' own ("queen", "hearts"): singulars,
# and the ranks spelled out, which only a hand's name may hold ("two pair"), so hand names
# are taken out of a text before it is searched.
ENGLISH_EXTRA = ("ace", "jack", "queen", "king", "spade", "heart", "diamond", "club")
SPELLED = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@cache
def card_words(lang: str) -> tuple[str, ...]:
    """The words of ``lang`` that name a rank or a suit (digits are left to `NOTATION`: a
    date, a total and a line number hold digits too)."""
    strings = bundle(lang)
    found = {
        str(strings[f"{kind}.{c}"]).lower()
        for kind, chars in (("rank", RANK_CHARS), ("suit", SUIT_CHARS))
        for c in chars
    }
    found = {w for w in found if not w.isdigit()}
    if lang == "en":
        found |= set(ENGLISH_EXTRA) | set(SPELLED)
    return tuple(sorted(found))


@cache
def hand_names(lang: str) -> tuple[str, ...]:
    """Every way a text of ``lang`` names a hand (main bundle and the legend's short names),
    longest first, so "straight flush" goes before "straight"."""
    strings = words_of(lang)
    names = {
        str(strings[f"{prefix}.{h}"]).lower() for h in HANDS for prefix in ("hand", "share.short")
    }
    return tuple(sorted(names, key=len, reverse=True))


def card_named(text: str, lang: str) -> list[str]:
    """What in ``text`` names a card: notation, a suit symbol, or a rank or suit word outside
    a hand's name."""
    hits = NOTATION.findall(text)
    rest = text.lower()
    for name in hand_names(lang):
        rest = rest.replace(name, " ")
    for word in card_words(lang):
        pattern = rf"\b{re.escape(word)}s?\b" if lang == "en" else re.escape(word)
        hits += re.findall(pattern, rest)
    return hits


def test_the_checker_finds_card_names_and_spares_hand_names() -> None:
    for lang, named in (
        (
            "en",
            ["QH", "10H", "TH", "Q♥", "10♠", "♦", "🂡", "Queen of hearts", "a king", "2 of clubs"],
        ),
        ("ja", ["QH", "ハートのクイーン", "スペードの10", "ダイヤ", "キング"]),
    ):
        for text in named:
            assert card_named(f"Row 1: {text}.", lang), (lang, text)
    for lang in LANGS:
        # A hand's name holds no card word but a spelled-out rank ("two pair"), which only a
        # hand's name may hold: the checker takes the names out, not the words.
        for name in hand_names(lang):
            assert not NOTATION.findall(name), name
            assert not [w for w in card_words(lang) if w not in SPELLED and w in name], name
        assert not card_named(" · ".join(hand_names(lang)), lang)
    assert set(card_named("Royal flush of two hearts", "en")) == {"two", "hearts"}


# --- the deals ------------------------------------------------------------------------------


def finished_views() -> list[dict[str, Any]]:
    """200 finished deals' views: the two arranged ones, then seeded random players."""
    views = []
    for i, cards in enumerate(ARRANGED):
        game = deal_cards(
            "american" if i == 0 else "british", [Card.parse(c) for c in cards.split()]
        )
        for cell in range(25):
            game = play(game, f"{'abcde'[cell % 5]}{cell // 5 + 1}")
        views.append(view(game))
    for seed in range(DEALS - len(ARRANGED)):
        rng = random.Random(seed)
        game = deal("american" if seed % 2 else "british", seed)
        while not game.is_over:
            game = play(game, rng.choice(legal_moves(game)))
        views.append(view(game))
    return views


RENDER = """async ({deals, langs}) => {
  const href = (name) => document.querySelector(`link[rel=modulepreload][href*="${name}"]`).href;
  const i18n = await import(href("core/i18n"));
  const share = await import(href("poker-squares/share"));
  const out = {};
  for (const lang of langs) {
    await i18n.loadLanguage(lang);
    out[lang] = deals.map((d) => {
      const table = i18n.t(`ps.table.${d.table}`);
      const options = {
        title: i18n.t("daily.share_title", { day: "2030-01-31", table }),
        total: d.total,
        link: `https://cardtable.example/daily.html?table=${d.table}`,
      };
      const marks = share.shareText(d.lines, options);
      return { marks, words: share.shareWords(d.lines, options) };
    });
  }
  return out;
}"""


def test_200_deals_share_no_card_in_either_language(page: Page) -> None:
    views = finished_views()
    seen = {h for v in views for h in v["line_hands"]}
    assert seen == set(HANDS), "every hand class is shared at least once"
    deals = [{"lines": v["line_hands"], "total": v["total"], "table": v["table"]} for v in views]
    page.goto("/daily.html")
    texts = page.evaluate(RENDER, {"deals": deals, "langs": list(LANGS)})
    for lang in LANGS:
        words = words_of(lang)
        assert len(texts[lang]) == DEALS
        for d, text in zip(deals, texts[lang], strict=True):
            for kind in ("marks", "words"):
                assert not card_named(text[kind], lang), (lang, kind, text[kind])
            check_marks(text["marks"], d, words)
            check_words(text["words"], d, words)


def check_marks(text: str, d: dict[str, Any], words: dict[str, Any]) -> None:
    """Title, rows, columns, legend, total, link: each line's mark in order, every mark in
    the legend once."""
    _title, rows, cols, legend, total, link = text.split("\n")
    expected = [MARKS[HANDS.index(h)] for h in d["lines"]]
    assert re.findall(f"[{MARKS}]", rows) == expected[:5]
    assert re.findall(f"[{MARKS}]", cols) == expected[5:]
    assert rows.startswith(words["share.rows"].split("{")[0]), rows
    assert re.findall(f"[{MARKS}]", legend) == list(MARKS)
    for h in HANDS:
        assert words[f"share.short.{h}"] in legend
    assert str(d["total"]) in total and link.endswith(d["table"])


def check_words(text: str, d: dict[str, Any], words: dict[str, Any]) -> None:
    """Each row's hand, then each column's, named in order: "Row 1: One pair. ..."."""
    _title, rows, cols, total, link = text.split("\n")
    said = [
        words["share.word_line"].format(
            line=words["ps.line_row" if i < 5 else "ps.line_col"].format(n=i % 5 + 1),
            hand=words[f"hand.{h}"],
        )
        for i, h in enumerate(d["lines"])
    ]
    sep = words["share.words_sep"]
    assert rows == sep.join(said[:5]) and cols == sep.join(said[5:])
    assert str(d["total"]) in total and link.endswith(d["table"])
