"""Provably fair shuffles (docs/fairness.md): server seeds, salts, commitments, the shuffle a
browser can recompute, round seeds of a Kings Corner match, the daily deal's seed, and
verification.

A seed is 32 random bytes and a salt 16, both written as lowercase hex. The commitment is
``SHA-256(seed || salt)`` (the raw bytes), shown before the first card; the seed and salt are
shown once the deal or round is over, and anyone can then check the commitment and recompute
the deck with `fair_order`:

* a byte stream: ``SHA-256(seed || u32be(0)) || SHA-256(seed || u32be(1)) || ...``;
* read as 32-bit big-endian unsigned words, in order;
* start from the 52 cards in `cards.DECK` order (index 0-51: AS..KS, AH..KH, AD..KD, AC..KC);
* for ``i`` from 51 down to 1: ``n = i + 1``, draw words until one is below
  ``2**32 - (2**32 mod n)`` (rejection: no modulo bias), ``j = word mod n``, swap ``i`` and
  ``j``. ``deck[0]`` is the first card dealt.

Integer seeds (`cards.shuffled_deck`) stay for tests, benchmarks and games saved before fair
shuffles; such games are "not verifiable".
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.cards import DECK, Card

ALGORITHM = "cardtable-fair-shuffle/1"
"""The name of the algorithm above; a future change would get a new name."""

SEED_BYTES = 32
SALT_BYTES = 16
_HEX = {SEED_BYTES: re.compile(r"[0-9a-f]{64}"), SALT_BYTES: re.compile(r"[0-9a-f]{32}")}
_WORD = 2**32


class FairnessError(ValueError):
    """A seed, salt or commitment that is not of the documented form."""


def _bytes(text: Any, size: int, what: str) -> bytes:
    if not isinstance(text, str) or not _HEX[size].fullmatch(text):
        raise FairnessError(f"{what} must be {size * 2} lowercase hex digits")
    return bytes.fromhex(text)


def check_seed(seed: Any) -> str:
    """``seed`` itself when it is 64 lowercase hex digits; `FairnessError` otherwise."""
    _bytes(seed, SEED_BYTES, "seed")
    return str(seed)


def check_salt(salt: Any) -> str:
    _bytes(salt, SALT_BYTES, "salt")
    return str(salt)


def new_seed() -> str:
    """32 bytes from the operating system's random source, as hex."""
    return secrets.token_hex(SEED_BYTES)


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


def commitment(seed: str, salt: str) -> str:
    """``SHA-256(seed bytes || salt bytes)`` as lowercase hex."""
    raw = _bytes(seed, SEED_BYTES, "seed") + _bytes(salt, SALT_BYTES, "salt")
    return hashlib.sha256(raw).hexdigest()


def _words(seed: bytes) -> Any:
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        for k in range(0, len(block), 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def fair_order(seed: str) -> list[int]:
    """The deck order (card indices 0-51, first dealt first) the documented shuffle gives."""
    return list(_fair_order(seed))


@functools.lru_cache(maxsize=4096)
def _fair_order(seed: str) -> tuple[int, ...]:
    # A saved fair game is checked against its seed on every load: the order is a pure
    # function of the seed, so it is computed once per seed and process.
    words = _words(_bytes(seed, SEED_BYTES, "seed"))
    deck = list(range(len(DECK)))
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        x = next(words)
        while x >= limit:  # at most a few times in a billion per draw
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def fair_deck(seed: str) -> list[Card]:
    """`fair_order` as cards."""
    return [DECK[i] for i in fair_order(seed)]


def _mac(key: str, message: str) -> bytes:
    k = _bytes(key, SEED_BYTES, "seed")
    return hmac.new(k, message.encode("ascii"), hashlib.sha256).digest()


@dataclass(frozen=True)
class Fair:
    """The seed and salt of one deal or round; `public` is what a player may see."""

    seed: str
    salt: str
    withheld: bool = False
    """Keep the seed and salt back even once the deal is over: a daily deal's are published
    when its day ends (everyone plays the same cards), not when one player finishes."""

    def __post_init__(self) -> None:
        check_seed(self.seed)
        check_salt(self.salt)

    @classmethod
    def new(cls) -> Fair:
        return cls(new_seed(), new_salt())

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.salt)

    def public(self, over: bool) -> dict[str, Any]:
        """The commitment always; the seed and salt only once the deal or round is over (and
        never for a withheld seed: those are published elsewhere)."""
        shown = over and not self.withheld
        return {
            "algorithm": ALGORITHM,
            "commitment": self.commitment,
            "seed": self.seed if shown else None,
            "salt": self.salt if shown else None,
        }

    def saved(self) -> dict[str, Any]:
        """The seed and salt as a save or an engine option carries them."""
        return {"seed": self.seed, "salt": self.salt} | (
            {"withheld": True} if self.withheld else {}
        )

    @classmethod
    def load(cls, raw: Any) -> Fair:
        """The inverse of `saved` (raises `FairnessError` for anything else)."""
        if not isinstance(raw, dict) or not {"seed", "salt"} <= set(raw) <= {
            "seed",
            "salt",
            "withheld",
        }:
            raise FairnessError("fair must be an object with seed, salt and optionally withheld")
        withheld = raw.get("withheld", False)
        if not isinstance(withheld, bool):
            raise FairnessError("withheld must be true or false")
        return cls(raw["seed"], raw["salt"], withheld)


def round_fair(match_seed: str, round_number: int) -> Fair:
    """Round ``round_number`` (1-based) of a match: seed ``HMAC-SHA-256(match_seed,
    "round-seed:<k>")`` and salt the first 16 bytes of ``HMAC-SHA-256(match_seed,
    "round-salt:<k>")``. Revealing one round's seed and salt reveals nothing of the others."""
    if not isinstance(round_number, int) or round_number < 1:
        raise FairnessError(f"rounds are numbered from 1, got {round_number!r}")
    seed = _mac(match_seed, f"round-seed:{round_number}").hex()
    salt = _mac(match_seed, f"round-salt:{round_number}")[:SALT_BYTES].hex()
    return Fair(seed, salt)


@dataclass(frozen=True)
class Verdict:
    """The outcome of `verify`: the commitment check, the cards check (None when no cards
    were given) and the recomputed deck."""

    commitment_ok: bool
    cards_ok: bool | None
    deck: list[Card]
    mismatch: str | None = None

    @property
    def ok(self) -> bool:
        return self.commitment_ok and self.cards_ok is not False


def verify(seed: str, salt: str, committed: str, cards: Sequence[Card] = ()) -> Verdict:
    """Whether ``SHA-256(seed || salt)`` is ``committed`` and ``cards`` (the cards as they
    were turned, first first) begin the deck the seed gives."""
    commitment_ok = hmac.compare_digest(commitment(seed, salt), str(committed).lower())
    deck = fair_deck(seed)
    if not cards:
        return Verdict(commitment_ok, None, deck)
    for k, (got, want) in enumerate(zip(cards, deck, strict=False)):
        if got != want:
            return Verdict(
                commitment_ok, False, deck, f"card {k + 1} is {got}, the seed gives {want}"
            )
    if len(cards) > len(deck):
        return Verdict(commitment_ok, False, deck, "more than 52 cards")
    return Verdict(commitment_ok, True, deck)
