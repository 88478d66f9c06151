"""Computer players decide from the view alone (DESIGN: "the same view gives the same choice
in any process"): a whole turn chosen one move at a time, each move in a fresh interpreter
given only the view as JSON, equals the turn chosen in one process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cardtable.kings_corner import Rules, State, deal, legal_moves, play, setup, view
from cardtable.kings_corner.cpu import choose_move, lookahead, strong
from tests.kings_corner.test_cpu_behaviour import KEEP_BACK

ROOT = Path(__file__).resolve().parents[2]
STANDARD = Rules.preset("standard")
DRAW_LAST = Rules.preset("draw-last")  # kings first, draw at the end
SIMPLE = Rules.preset("simple")
KINGS_FIRST = Rules("first", True, "first", "stay")  # kings first, draw first

# One fresh interpreter per call: it reads {"view", "strength", "rng"} on stdin and prints
# the move. ``rng`` is the generator's state (easy and normal use it; strong ignores it).
CHILD = """
import json, random, sys
from cardtable.kings_corner.cpu import choose_move
d = json.load(sys.stdin)
rng = random.Random()
if d["rng"] is not None:
    v, internal, gauss = d["rng"]
    rng.setstate((v, tuple(internal), gauss))
print(choose_move(d["view"], d["strength"], rng))
"""


def seat_view(s: State) -> dict[str, Any]:
    """The view of the seat to play, as the server hands it to a computer player."""
    return view(s, s.to_play)


def clear_caches() -> None:
    strong._line.cache_clear()
    strong._oracle_line.cache_clear()
    lookahead._line.cache_clear()


def turn_in_one_process(
    s: State, strength: str, seed: int
) -> list[tuple[dict[str, Any], Any, str]]:
    """The rest of the current turn chosen in this process: (view, generator state, move)
    at each step."""
    clear_caches()
    rng = random.Random(seed)
    seat = s.to_play
    steps: list[tuple[dict[str, Any], Any, str]] = []
    while not s.is_over and s.to_play == seat and len(steps) < 60:
        v = seat_view(s)
        before = rng.getstate()
        m = choose_move(v, strength, rng)
        steps.append((json.loads(json.dumps(v)), before, str(m)))
        s = play(s, m)
        if m.is_end:
            break
    return steps


def in_fresh_interpreter(v: Mapping[str, Any], strength: str, rng_state: Any) -> str:
    payload = json.dumps({"view": v, "strength": strength, "rng": rng_state})
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=payload,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else f"failed: {done.stderr[-2000:]}"


def from_dict_at_turn(s: State, turn: int) -> State:
    d = s.to_dict()
    d["turn"] = turn
    return State.from_dict(d)


def positions() -> list[tuple[str, State, str]]:
    """(name, position, strength): turn starts under every preset and kings-first with draw
    first, a turn a person began off the computer's plan, and easy and normal."""
    out: list[tuple[str, State, str]] = []
    # First turns of dealt rounds on which the old player (a plan remembered in the process,
    # the turn start guessed from the first call) chose differently in a fresh process.
    out.append(("standard", deal(2, STANDARD, 4), "strong"))
    out.append(("draw-last", deal(2, DRAW_LAST, 4), "strong"))
    out.append(("kings-first", deal(2, KINGS_FIRST, 12), "strong"))
    out.append(("simple", deal(2, SIMPLE, 5), "strong"))
    # A person's turn handed over after one play the computer would not have made first.
    first = turn_in_one_process(KEEP, "strong", 0)[0][2]
    other = next(str(m) for m in legal_moves(KEEP) if not m.is_end and str(m) != first)
    out.append(("handed-over", play(KEEP, other), "strong"))
    out.append(("easy", KINGS, "easy"))
    out.append(("normal", KEEP, "normal"))
    return out


# Standard heads-up: several plays and a pile move (TD or TH on JS, then W onto it).
KEEP = setup(
    STANDARD,
    piles=KEEP_BACK,
    hands=[["3H", "TD", "TH"], ["4S", "AS", "2S", "3S", "6S", "7S"]],
    stock=[],
)
# Draw-last: two Kings must go first, then a run of plays that goes out.
KINGS = setup(
    DRAW_LAST,
    piles={"N": ["9H"], "E": ["8D"], "S": ["QC"], "W": ["4C"]},
    hands=[["5S", "KH", "3D", "KC", "JH", "7C"], ["2C", "3C", "4H"]],
    stock=["7D", "7S"],
)
POSITIONS = positions()
# In-process checks only (no interpreter to start): more positions.
MORE = [
    *[(name, s) for name, s, strength in POSITIONS if strength == "strong"],
    ("standard-setup", KEEP),
    ("draw-last-setup", KINGS),
    ("standard-3p", deal(3, STANDARD, 77)),
    ("four-players", deal(4, STANDARD, 8)),
    # Empty stock late in the round: the cost of a turn that sheds nothing applies.
    ("stalled", from_dict_at_turn(KEEP, 45)),
]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_turn_chosen_in_fresh_interpreters_equals_the_turn_chosen_in_one_process() -> None:
    """Each move of each turn is asked of a new interpreter that gets only that step's view
    (and, for easy and normal, the generator's state): the answers rebuild the same turns.
    The calls run a few at a time (each interpreter takes about half a second to start)."""
    jobs: list[tuple[str, int, dict[str, Any], str, Any, str]] = []
    for name, s, strength in POSITIONS:
        steps = turn_in_one_process(s, strength, 3)
        for i, (v, rng_state, move) in enumerate(steps):
            rng = None if strength == "strong" else json.loads(json.dumps(rng_state))
            jobs.append((name, i, v, strength, rng, move))
    assert len(jobs) >= 3 * len(POSITIONS)  # turns of several moves, not only "end"
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda j: in_fresh_interpreter(j[2], j[3], j[4]), jobs))
    wrong = [(j[0], j[1], j[5], g) for j, g in zip(jobs, got, strict=True) if g != j[5]]
    assert wrong == []


@pytest.mark.parametrize(("name", "s"), MORE, ids=[m[0] for m in MORE])
def test_strong_answers_the_same_with_or_without_its_cache(name: str, s: State) -> None:
    steps = turn_in_one_process(s, "strong", 1)
    for v, _rng, move in steps:
        clear_caches()
        assert str(choose_move(v, "strong", random.Random(0))) == move


def test_strong_off_its_plan_plans_from_where_it_stands() -> None:
    """A turn handed over part way (a person played first) goes on from the position as
    it is, and still ends legally; the plan from the turn start is not forced on it."""
    s = next(p[1] for p in POSITIONS if p[0] == "handed-over")
    steps = turn_in_one_process(s, "strong", 1)
    assert steps[-1][2] == "end" or play_all(s, [m for _v, _r, m in steps]).is_over
    for v, _rng, move in steps:
        assert move in v["legal_moves"]


def play_all(s: State, moves: list[str]) -> State:
    for m in moves:
        s = play(s, m)
    return s


def test_strong_keeps_no_state_between_calls() -> None:
    assert not hasattr(strong, "_plans") and not hasattr(strong, "_starts")
