"""The name filter (cardtable/server/core/rude_words.py, `core.names.check_polite`): every
listed word is refused as itself and in disguise (capitals, full-width letters, spaces and
punctuation between the letters, digits and symbols for letters, repeated letters, accents,
katakana, half-width katakana, hiragana), and ordinary names in both languages that hold the
same letters innocently pass. The daily board's display name is refused with the reason."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.names import NameRefused, NotPolite, check_polite
from cardtable.server.core.rude_words import ANYWHERE, STAND_INS, WHOLE, holds_rude_word

WORDS = ANYWHERE + WHOLE
LEET = {letter: stand_ins[0] for letter, stand_ins in STAND_INS.items()}
_HIRA_TO_KATA = {code: code + 0x60 for code in range(0x3041, 0x3097)}


def disguises(word: str) -> list[str]:
    """``word`` as people write it to slip past a filter."""
    if word.isascii():
        spaced = " ".join(word)
        return [
            word,
            word.upper(),
            word.capitalize(),
            unicodedata.normalize("NFKC", word).translate(
                {c: c + 0xFEE0 for c in range(0x21, 0x7F)}
            ),  # full-width
            spaced,
            ".".join(word.upper()),
            "-".join(word),
            "_".join(word) + "_",
            "".join(LEET.get(ch, ch) for ch in word),
            word[0] + word[1] * 3 + word[2:],  # a letter held
            word[0] + "\u0301" + word[1:],  # an accent
            f"xX {word} Xx",
            f"The {word.capitalize()}",
            f"{word}s" if not word.endswith("s") else f"{word}es",
        ]
    katakana = word.translate(_HIRA_TO_KATA)
    half = "".join(_half_width(ch) for ch in katakana)
    return [word, katakana, half, " ".join(word), "・".join(katakana), f"田中{word}", f"{word}ー！"]


def _half_width(ch: str) -> str:
    """The half-width form of a katakana (with its sound mark), where Unicode has one."""
    base = unicodedata.normalize("NFD", ch)
    for code in range(0xFF66, 0xFF9F + 1):
        if unicodedata.normalize("NFKC", chr(code)) == base[0]:
            marks = {"\u3099": "\uff9e", "\u309a": "\uff9f"}
            return chr(code) + "".join(marks.get(m, m) for m in base[1:])
    return ch


@pytest.mark.parametrize("word", WORDS)
def test_every_listed_word_is_refused_in_its_disguises(word: str) -> None:
    for name in disguises(word):
        assert holds_rude_word(name), (word, name)
        with pytest.raises(NameRefused, match="no one should have to read"):
            check_polite(name)


def test_words_anywhere_are_refused_inside_other_letters() -> None:
    for name in ("MotherFucker", "xfuckx", "田中死ねよ", "ぶっころす気違い", "REIPU レイプ魔"):
        assert holds_rude_word(name), name


ORDINARY = [
    # English names and words that hold a listed word's letters.
    "Scunthorpe", "Penistone", "Cassandra", "Hitchcock", "Dickens", "Sussex", "Matsushita",
    "Shitara", "Shiitake", "Spicer", "Spice Girls", "Slutsky", "Bitche", "Therapist",
    "Grapes", "Rapeseed", "Nigel", "Niger", "Nigeria", "Nigg", "Fukuda", "Fukushima",
    "Kuntz", "Cockburn", "Bassett", "Clitheroe", "Wankel", "Whitby", "Chinkapin oak",
    "Glasshole", "Ashita", "Retardo Fan", "Dick Van Dyke", "Sam 1984", "L33t Gamer",
    "Ann", "Bob", "Émilie", "Zoë", "Łukasz", "José María", "O'Brien", "Jean-Luc",
    # Japanese names and words that hold a listed word's kana.
    "佐藤花子", "鈴木 一郎", "たなか しんご", "ちひろ", "まこと", "シネマ好き", "よしね",
    "コロ助", "ころすけ", "かたわらの月", "マンゴー", "まんごろう", "ちんねん", "しねん",
    "キチ", "高橋", "渡辺 美咲", "ゆうこ", "れいな", "グレープ",
]  # fmt: skip


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_pass(name: str) -> None:
    assert not holds_rude_word(name), name
    check_polite(name)


def test_the_refusal_is_a_name_refused_with_a_message() -> None:
    with pytest.raises(NotPolite) as caught:
        check_polite("ｆ ｕ ｃ ｋ")
    assert isinstance(caught.value, NameRefused)
    assert "choose another name" in str(caught.value)


def test_the_daily_boards_refuse_such_a_name_and_say_why(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=None, player_rate=None)
    with TestClient(create_app(settings)) as client:
        pid = client.post("/api/players").json()["player_id"]
        headers = {"X-Player-Id": pid}
        refused = client.put("/api/daily/me/name", json={"name": "S.h.1.t"}, headers=headers)
        assert refused.status_code == 422
        body = refused.json()
        assert body["code"] == "invalid_name" and body["reason"] == "not_polite"
        assert "no one should have to read" in body["message"]
        blank = client.put("/api/daily/me/name", json={"name": "\u3164"}, headers=headers)
        assert blank.status_code == 422 and blank.json()["reason"] == "not_seen"
        fine = client.put("/api/daily/me/name", json={"name": "Scunthorpe"}, headers=headers)
        assert fine.status_code == 200 and fine.json()["name"] == "Scunthorpe"
