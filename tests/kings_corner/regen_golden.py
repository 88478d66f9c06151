"""Golden playthroughs of Kings Corner: record and replay whole games.

Each file in ``tests/kings_corner/golden/`` holds one game: its rules, player count and
seed, then every step (a move in notation, or ``"undo"``) with the events `play_events`
reported (in full, private fields included) and every seat's `view` after it.
`test_golden.py` replays the steps and compares the events and each view.

Regenerate after an intended change to the engine or the view (then review the diff):

    .venv/bin/python -m tests.kings_corner.regen_golden
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from cardtable.kings_corner import Rules, State, deal, legal_moves, play_events, undo, view
from tests.support.golden import dumps

GOLDEN_DIR = Path(__file__).parent / "golden"

# name -> (players, rule set, deal seed, player seed)
GAMES: dict[str, tuple[int, str, int, int]] = {
    "standard_2p": (2, "standard", 2024, 1),
    "draw_last_3p": (3, "draw-last", 77, 2),
    "simple_4p": (4, "simple", 5, 3),
}


def views(state: State) -> list[dict[str, Any]]:
    return [view(state, seat) for seat in range(state.players)]


def step(state: State, move: str) -> tuple[State, list[dict[str, Any]]]:
    """The state after one recorded step and its events (each in full: the public and the
    private fields and the owner; none for an undo)."""
    if move == "undo":
        return undo(state), []
    state, events = play_events(state, move)
    return state, [
        {"kind": e.kind, "seat": e.seat, "public": dict(e.public), "private": dict(e.private),
         "owner": e.owner}
        for e in events
    ]  # fmt: skip


def record(players: int, rule_set: str, seed: int, player_seed: int) -> dict[str, Any]:
    """Play one game with a seeded random player that mostly plays and sometimes undoes."""
    rng = random.Random(player_seed)
    rules = Rules.preset(rule_set)
    state = deal(players, rules, seed)
    steps: list[dict[str, Any]] = []
    while not state.is_over and len(steps) < 400:
        ms = legal_moves(state)
        plays = [m for m in ms if not m.is_end]
        if state.can_undo and rng.random() < 0.08:
            move = "undo"
        elif plays and (len(plays) == len(ms) or rng.random() < 0.85):
            move = str(rng.choice(plays))
        else:
            move = "end"
        state, events = step(state, move)
        steps.append({"move": move, "events": events, "views": views(state)})
    return {
        "players": players,
        "rules": rule_set,
        "seed": seed,
        "player_seed": player_seed,
        "start": views(deal(players, rules, seed)),
        "steps": steps,
        "final": state.to_dict(),
    }


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, args in GAMES.items():
        game = record(*args)
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(dumps(game), encoding="utf-8")
        print(f"{path}: {len(game['steps'])} steps, ending {game['final']['ending']}")


if __name__ == "__main__":
    main()
