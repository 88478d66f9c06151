"""Provably fair shuffles (docs/fairness.md): the algorithm against known answers and an
independent re-implementation of the written spec, a uniformity check, commitments, round
seeds, and the engines: the views show the commitment always and the seed and salt only once
the deal or round is over; saves round-trip; saves from before fair shuffles still load."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter

import pytest

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable import poker_squares as ps
from cardtable.cards import DECK, Card
from cardtable.fairness import Fair, FairnessError
from cardtable.poker_squares.moves import ALL as CELLS_IN_ORDER

CARDS = {str(c) for c in DECK}
ZERO = "00" * 32
COUNT = bytes(range(32)).hex()
SALT = bytes(range(16)).hex()

# Known answers (also checked against fairness.js in tests/web/fairness/test_verify.py).
VECTORS = {
    ZERO: "2S JD 2C 6D TC AH 6C JS AS TH QS 2D TD 4D QD 4S 3D QH KH 5C KS 5S 6S 5H 7H AD JH 3S "
    "9H 9D KD JC 7C QC 8H 9S 3C KC 8C 7S 4C TS 9C 7D 2H 5D 8S 6H 4H 3H AC 8D",
    COUNT: "KC 6C 9S 6S 9C 4C TS JS KS 2S AH TH 6D 3C QC 5H 8S 2H 7C 3H 8C AC 5D QD JH QS 2D AS "
    "KD AD JD 7H 2C 9D 4D 7S KH 8D 7D TD 6H QH 4S 3S 8H 5S 3D 4H TC JC 5C 9H",
}


def spec_shuffle(seed_hex: str) -> list[str]:
    """docs/fairness.md, written out again from the text (not from fairness.py)."""
    seed = bytes.fromhex(seed_hex)
    stream = b"".join(hashlib.sha256(seed + n.to_bytes(4, "big")).digest() for n in range(8))
    words = [int.from_bytes(stream[k : k + 4], "big") for k in range(0, len(stream), 4)]
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    at = 0
    for i in range(51, 0, -1):
        while words[at] >= 2**32 - 2**32 % (i + 1):
            at += 1
        j = words[at] % (i + 1)
        at += 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_known_answers(seed: str) -> None:
    got = [str(c) for c in fairness.fair_deck(seed)]
    assert got == VECTORS[seed].split()
    assert got == spec_shuffle(seed)
    assert sorted(fairness.fair_order(seed)) == list(range(52))


def test_spec_agrees_on_random_seeds() -> None:
    for _ in range(50):
        seed = fairness.new_seed()
        assert [str(c) for c in fairness.fair_deck(seed)] == spec_shuffle(seed)


def test_uniform_enough() -> None:
    """2,000 shuffles: each card's chance to be dealt first and to be last is near 1/52
    (chi-square with 51 degrees of freedom; 99.99th percentile about 104)."""
    n = 2000
    first: Counter[int] = Counter()
    last: Counter[int] = Counter()
    for k in range(n):
        order = fairness.fair_order(hashlib.sha256(str(k).encode()).hexdigest())
        first[order[0]] += 1
        last[order[-1]] += 1
    expected = n / 52
    for counts in (first, last):
        chi2 = sum((counts[c] - expected) ** 2 / expected for c in range(52))
        assert chi2 < 104, chi2


def test_commitment_and_verify() -> None:
    assert fairness.commitment(ZERO, "11" * 16) == (
        "587338220f856c3d65e08f58ec7b33614ccfca834dd8f147e5b816a7ebe6a4a6"
    )
    expected = hashlib.sha256(bytes.fromhex(COUNT) + bytes.fromhex(SALT)).hexdigest()
    assert fairness.commitment(COUNT, SALT) == expected
    deck = fairness.fair_deck(COUNT)
    good = fairness.verify(COUNT, SALT, expected, deck[:25])
    assert good.ok and good.commitment_ok and good.cards_ok
    swapped = [deck[1], deck[0], *deck[2:25]]
    bad = fairness.verify(COUNT, SALT, expected, swapped)
    assert not bad.ok and bad.commitment_ok and bad.mismatch and "card 1" in bad.mismatch
    wrong = fairness.verify(COUNT, "22" * 16, expected)
    assert not wrong.ok and wrong.cards_ok is None
    for bad_seed in ("00" * 31, "AB" * 32, 5, "zz" * 32):
        with pytest.raises(FairnessError):
            fairness.fair_order(bad_seed)  # type: ignore[arg-type]
    with pytest.raises(FairnessError):
        Fair(ZERO, "00" * 15)


def test_fresh_seeds_and_round_seeds() -> None:
    a, b = Fair.new(), Fair.new()
    assert a != b and len(a.seed) == 64 and len(a.salt) == 32
    r2 = fairness.round_fair(COUNT, 2)
    key = bytes.fromhex(COUNT)
    assert r2.seed == hmac.new(key, b"round-seed:2", hashlib.sha256).hexdigest()
    assert r2.salt == hmac.new(key, b"round-salt:2", hashlib.sha256).digest()[:16].hex()
    seeds = {fairness.round_fair(COUNT, k).seed for k in range(1, 6)}
    assert len(seeds) == 5 and COUNT not in seeds
    with pytest.raises(FairnessError):
        fairness.round_fair(COUNT, 0)


def test_poker_squares_fair_deal() -> None:
    fair = Fair(COUNT, SALT)
    game = ps.ENGINE.new(0, {"fair": {"seed": COUNT, "salt": SALT}})
    assert [str(c) for c in game.cards] == VECTORS[COUNT].split()[:25]
    assert game.seed is None
    for k, move in enumerate(CELLS_IN_ORDER):
        v = ps.ENGINE.view(game, 0)
        assert v["fairness"] == {
            "algorithm": fairness.ALGORITHM,
            "commitment": fair.commitment,
            "seed": None,
            "salt": None,
        }, k
        assert COUNT not in str(v) and SALT not in str(v)
        assert ps.ENGINE.view(game, None)["fairness"]["seed"] is None
        game = ps.ENGINE.play(game, move)
        saved = ps.ENGINE.to_dict(game)
        assert ps.ENGINE.from_dict(saved) == game
    end = ps.ENGINE.view(game, 0)["fairness"]
    assert (end["seed"], end["salt"]) == (COUNT, SALT)
    assert fairness.verify(end["seed"], end["salt"], end["commitment"], game.cards).ok
    # The hint's sampled worlds must not carry the seed that names the real cards.
    fresh = ps.ENGINE.new(0, {"fair": {"seed": COUNT, "salt": SALT}})
    assert ps.ENGINE.resample(fresh, 0, random.Random(1)).fair is None


def test_poker_squares_saves_are_checked_and_old_saves_load() -> None:
    game = ps.ENGINE.new(0, {"fair": {"seed": COUNT, "salt": SALT}})
    saved = ps.ENGINE.to_dict(game)
    tampered = {**saved, "cards": list(reversed(saved["cards"]))}
    with pytest.raises(ps.GameError):
        ps.ENGINE.from_dict(tampered)
    with pytest.raises(ps.GameError):
        ps.ENGINE.from_dict({**saved, "fair": {"seed": COUNT}})
    # A deal saved before fair shuffles: no "fair" entry; it loads, plays, and is not verifiable.
    old = ps.ENGINE.to_dict(ps.ENGINE.new(123))
    assert "fair" not in old
    state = ps.ENGINE.from_dict(old)
    for move in CELLS_IN_ORDER:
        assert "fairness" not in ps.ENGINE.view(state, 0)
        state = ps.ENGINE.play(state, move)
    assert state.is_over and state.seed == 123


def _finish_round(match: kc.Match) -> kc.Match:
    for _ in range(2000):
        if match.state.is_over:
            return match
        plays = [m for m in kc.ENGINE.legal_moves(match.state) if str(m).split(">")[0] in CARDS]
        match = match.play(plays[0] if plays else "end")
    raise AssertionError("the round did not end")


def test_kings_corner_rounds_reveal_only_their_own_seed() -> None:
    match = kc.Match(2, kc.Rules.from_options("standard"), 3, 7, COUNT)
    deck = [str(c) for c in fairness.fair_deck(fairness.round_fair(COUNT, 1).seed)]
    state = match.state
    # Seat 0 holds the first 7 cards (and, moving first under draw-first, one drawn card).
    assert set(deck[:7]) <= {str(c) for c in state.hands[0]}
    assert {str(c) for c in state.hands[1]} >= set(deck[7:14])
    assert [str(state.piles[n][0]) for n in "NESW"] == deck[14:18]
    for k in (1, 2, 3):
        fair = fairness.round_fair(COUNT, k)
        v = match.view(0)
        assert v["fairness"] == fair.public(False) | {"round": k}
        text = str([match.view(s) for s in (0, 1, None)])
        for secret in [COUNT] + [fairness.round_fair(COUNT, r).seed for r in (1, 2, 3)]:
            assert secret not in text
        match = _finish_round(match)
        assert match.view(0)["fairness"] == fair.public(True) | {"round": k}
        later = str(match.view(0))
        assert COUNT not in later
        assert all(fairness.round_fair(COUNT, r).seed not in later for r in range(k + 1, 4))
        assert kc.Match.from_dict(match.to_dict()) == match
        if k < 3:
            match = match.next_round()
    assert match.is_over


def test_kings_corner_old_saved_match_loads_and_plays() -> None:
    old = kc.Match(3, kc.Rules.from_options("draw-last"), 3, 99)
    saved = old.to_dict()
    assert "fair_seed" not in saved
    match = kc.Match.from_dict(saved)
    assert match == old and "fairness" not in match.view(0)
    match = _finish_round(match).next_round()
    assert match.round == 2 and "fairness" not in match.view(None)
    with pytest.raises(kc.MatchError):
        kc.Match.from_dict({**saved, "fair_seed": "not hex"})


def test_deck_helpers_agree() -> None:
    assert fairness.fair_deck(ZERO)[0] == Card.parse("2S")
    assert {c for c in fairness.fair_deck(ZERO)} == set(DECK)
