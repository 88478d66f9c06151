"""Computer players: legal moves everywhere, reproducibility, and the search's `apply`."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from cardtable.kings_corner import Rules, State, deal, legal_moves, move_codes, play, view
from cardtable.kings_corner.cpu import STRENGTHS, choose_move
from cardtable.kings_corner.cpu.fast import apply
from cardtable.kings_corner.cpu.reference import greedy, oracle
from cardtable.kings_corner.moves import END_CODE

PRESETS = ("standard", "draw-last", "simple")
CUSTOM = (
    Rules("last", False, "optional", "corner"),
    Rules("first", True, "first", "corner"),
    Rules("last", True, "optional", "stay"),
)


def random_positions(rules: Rules, players: int, seed: int, limit: int = 400) -> Iterator[State]:
    """Positions along a game of random legal moves (biased towards plays, so it moves on)."""
    rng = random.Random(seed)
    s = deal(players, rules, seed)
    for _ in range(limit):
        if s.is_over:
            return
        yield s
        ms = legal_moves(s)
        plays = [m for m in ms if not m.is_end]
        m = rng.choice(plays) if plays and rng.random() < 0.8 else ms[-1]
        if m.is_end or rng.random() < 0.3:
            m = rng.choice(ms)
        s = play(s, m)


def all_rules() -> list[Rules]:
    return [Rules.preset(n) for n in PRESETS] + list(CUSTOM)


@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.name + str(r.to_dict()))
def test_apply_plays_each_generated_move_as_the_engine_does(rules: Rules) -> None:
    """The search lists moves with the engine's generator and plays them with `apply`,
    which skips the checks: it must land where `engine.play` lands."""
    checked = 0
    for seed in range(12):
        for s in random_positions(rules, 2 + seed % 3, seed):
            seat = s.to_play
            hand = s._hands[seat]
            legal = legal_moves(s)
            codes = move_codes(hand, s._piles, rules.pile_moves, rules.kings == "first")
            assert codes == [m.code for m in legal]
            for code, m in zip(codes, legal, strict=True):
                if code == END_CODE:
                    continue
                nh, np_ = apply(hand, s._piles, code)
                after = play(s, m)
                assert nh == after._hands[seat] and np_ == after._piles
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.name + str(r.to_dict()))
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_every_strength_returns_a_legal_move(strength: str, rules: Rules) -> None:
    rng = random.Random(5)
    for seed in range(4):
        for s in random_positions(rules, 2 + seed % 3, 100 + seed, limit=150):
            v = view(s, s.to_play)
            m = choose_move(v, strength, rng)
            assert str(m) in v["legal_moves"]


@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_whole_rounds_finish_with_legal_moves(strength: str) -> None:
    for preset in PRESETS:
        for seed in range(3):
            s = deal(3, Rules.preset(preset), seed)
            rngs = [random.Random(seed * 10 + i) for i in range(3)]
            steps = 0
            while not s.is_over and steps < 3000:
                v = view(s, s.to_play)
                m = choose_move(v, strength, rngs[s.to_play])
                assert str(m) in v["legal_moves"]
                s = play(s, m)
                steps += 1
            assert steps < 3000 or not s.is_over


@pytest.mark.parametrize("strength", STRENGTHS)
def test_reproducible_for_a_seed(strength: str) -> None:
    def run(seed: int) -> list[str]:
        s = deal(2, Rules.preset("standard"), 42)
        rng = random.Random(seed)
        out: list[str] = []
        while not s.is_over and len(out) < 400:
            m = choose_move(view(s, s.to_play), strength, rng)
            out.append(str(m))
            s = play(s, m)
        return out

    assert run(9) == run(9)


def test_unknown_strength_and_reference_players_are_not_reachable() -> None:
    s = deal(2, Rules.preset("standard"), 1)
    v = view(s, s.to_play)
    for bad in ("greedy", "oracle", "hard", ""):
        with pytest.raises(ValueError):
            choose_move(v, bad, random.Random(1))
    with pytest.raises(ValueError):
        choose_move(view(s, 1 - s.to_play), "strong", random.Random(1))


def test_reference_players_return_legal_moves() -> None:
    for rules in all_rules():
        for s in random_positions(rules, 3, 7, limit=120):
            v = view(s, s.to_play)
            assert str(greedy(v)) in v["legal_moves"]
            assert str(oracle(s)) in v["legal_moves"]
