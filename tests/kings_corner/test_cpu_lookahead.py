"""The look-past player (`cpu.lookahead`, issue 46): it decides from the view alone (the
reshuffle test, a fresh interpreter), plays only legal moves over whole rounds, and its
play-outs end a round exactly as the engine does."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cardtable.kings_corner import ENGINE, Rules, State, deal, play, view
from cardtable.kings_corner.cpu import choose_move, lookahead, strong
from cardtable.kings_corner.cpu.rollout import POLICIES, play_out
from cardtable.kings_corner.moves import END_CODE, by_code

ROOT = Path(__file__).resolve().parents[2]
SMALL = lookahead.Settings(samples=6, shortlist=3)  # cheap, still plays out most turns
REPLY = lookahead.Settings(mode="reply", samples=6, shortlist=4, margin=100.0)
MODES = {"playout": SMALL, "reply": REPLY}
PRESETS = ("standard", "draw-last", "simple")

CHILD = """
import json, sys
from cardtable.kings_corner.cpu import lookahead
d = json.load(sys.stdin)
print(lookahead.choose(d["view"], lookahead.Settings(**d["settings"])))
"""


def turn_line(s: State, settings: lookahead.Settings = SMALL) -> list[str]:
    """The rest of the current turn chosen by the look-past player, with cleared caches
    before every call (so nothing a call remembers can change the next)."""
    seat = s.to_play
    out: list[str] = []
    while not s.is_over and s.to_play == seat and len(out) < 100:
        lookahead._line.cache_clear()
        m = lookahead.choose(view(s, seat), settings)
        out.append(str(m))
        s = play(s, m)
        if m.is_end:
            break
    return out


def strong_turn(s: State) -> State:
    seat = s.to_play
    while not s.is_over and s.to_play == seat:
        s = play(s, strong.choose(view(s, seat)))
    return s


@pytest.mark.variants("mode", "preset")
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("preset", PRESETS)
def test_choice_unchanged_when_hidden_cards_are_reshuffled(mode: str, preset: str) -> None:
    """C-8: same view, different hidden cards (the engine's `resample`) -> the same whole
    turn, at 2, 3 and 4 players."""
    rules = Rules.preset(preset)
    rng = random.Random(5)
    checked = 0
    for seed in range(3):
        s = deal(2 + seed, rules, 900 + seed)
        for turn in range(12):
            if s.is_over:
                break
            if turn % 2 == 0:
                other = ENGINE.resample(s, s.to_play, rng)
                assert view(other, s.to_play) == view(s, s.to_play)
                assert turn_line(other, MODES[mode]) == turn_line(s, MODES[mode])
                checked += 1
            s = strong_turn(s)
    assert checked >= 12


def test_same_move_in_a_fresh_interpreter() -> None:
    """The same view gives the same move in another process: a step part way through a
    turn on which the play-outs run (several candidate ends)."""
    steps: list[tuple[dict[str, Any], str]] = []
    for seed in range(31, 60):  # the first dealt turn with two steps or more
        s = deal(2, Rules.preset("standard"), seed)
        for _ in range(4):
            s = strong_turn(s)
        seat = s.to_play
        steps = []
        while not s.is_over and s.to_play == seat:
            v = json.loads(json.dumps(view(s, seat)))
            m = lookahead.choose(v, REPLY)
            steps.append((v, str(m)))
            s = play(s, m)
        if len(steps) >= 2:
            break
    v, move = steps[1]
    settings = dataclasses.asdict(REPLY)
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps({"view": v, "settings": settings}),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == move


@pytest.mark.variants("mode", "preset")
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("preset", PRESETS)
def test_whole_rounds_are_legal(mode: str, preset: str) -> None:
    """Every seat the look-past player: each move is one of the view's legal moves and
    every round ends."""
    rules = Rules.preset(preset)
    for players in (2, 4):
        s = deal(players, rules, 40 + players)
        for _ in range(3000):
            if s.is_over:
                break
            v = view(s, s.to_play)
            m = lookahead.choose(v, MODES[mode])
            assert str(m) in v["legal_moves"]
            s = play(s, m)
        assert s.is_over


def _codes(s: State) -> tuple[list[tuple[int, ...]], tuple[tuple[int, ...], ...], tuple[int, ...]]:
    hands = [tuple(c.index for c in h) for h in s.hands]
    piles = tuple(tuple(c.index for c in p) for p in s.piles.values())
    return hands, piles, tuple(c.index for c in s.stock)


@pytest.mark.variants("preset")
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_play_out_ends_the_round_as_the_engine_does(preset: str, policy: str) -> None:
    """A play-out from the end of a turn gives the same winner share, penalty and number
    of turns as the engine playing the same policy move by move."""
    rules = Rules.preset(preset)
    step = POLICIES[policy]
    dl, pm, kf = rules.draw == "last", rules.pile_moves, rules.kings == "first"
    checked = 0
    for d in range(12):
        s = deal(2 + d % 3, rules, 7000 + d)
        for _ in range(d % 7):
            s = strong_turn(s)
        if s.is_over or "end" not in view(s, s.to_play)["legal_moves"]:
            continue  # (under kings-first a held King must be placed first)
        seat = s.to_play
        hands, piles, stock = _codes(s)
        got = play_out(
            draw_last=dl,
            pile_moves=pm,
            kings_first=kf,
            hands=hands,
            piles=piles,
            stock=stock,
            mover=seat,
            me=seat,
            step=step,
            turn_cap=10**6,
        )
        e = play(s, "end")
        turns = 1
        while not e.is_over:
            h, p, _ = _codes(e)
            code = step(h[e.to_play], p, pm, kf)
            e = play(e, by_code(code))  # play() refuses an illegal move
            turns += code == END_CODE
        assert e.winners is not None and e.penalties is not None
        share = 1 / len(e.winners) if seat in e.winners else 0.0
        assert got == (share, e.penalties[seat], turns)
        checked += 1
    assert checked >= 8


def test_pick_leaves_strong_only_for_a_clear_lead() -> None:
    ahead = [[0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    assert lookahead.pick(ahead, 0.0) == 1
    assert lookahead.pick(ahead, 1.0) == 1
    noisy = [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]
    assert lookahead.pick(noisy, 0.0) == 1
    assert lookahead.pick(noisy, 2.0) == 0
    assert lookahead.pick([[0.5, 0.5], [0.5, 0.5]], 0.0) == 0  # ties go to strong's order


def test_the_strong_level_is_the_look_past_player() -> None:
    s = deal(3, Rules.preset("standard"), 12)
    for _ in range(3):
        s = strong_turn(s)
    v = view(s, s.to_play)
    got = choose_move(v, "strong", random.Random(1))
    assert got == lookahead.choose(v, lookahead.STRONG)
