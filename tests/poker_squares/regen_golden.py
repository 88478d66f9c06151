"""Golden playthroughs of Poker Squares: record and replay whole deals.

Each file in ``tests/poker_squares/golden/`` holds one deal: its options and seed, then every
step (a cell in move notation, or ``"undo"``) with the player's and a spectator's view after
it, and the saved game at the end. `test_golden.py` replays the steps through the game
interface and compares each view.

Regenerate after an intended change to the engine or the view (then review the diff):

    .venv/bin/python -m tests.poker_squares.regen_golden
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from cardtable.poker_squares import ENGINE, Game
from tests.support.golden import dumps

GOLDEN_DIR = Path(__file__).parent / "golden"

# name -> (options, deal seed, player seed)
GAMES: dict[str, tuple[dict[str, Any], int, int]] = {
    "american_normal": ({"table": "american", "target": "normal"}, 2026, 1),
    "british_hard_undo": ({"table": "british", "target": "hard"}, 77, 2),
}


def views(game: Game) -> dict[str, Any]:
    return {"player": ENGINE.view(game, 0), "spectator": ENGINE.view(game, None)}


def step(game: Game, move: str) -> Game:
    return ENGINE.undo(game) if move == "undo" else ENGINE.play(game, move)


def record(options: dict[str, Any], seed: int, player_seed: int) -> dict[str, Any]:
    """Play one deal with a seeded random player that sometimes undoes."""
    rng = random.Random(player_seed)
    game = ENGINE.new(seed, options)
    start = views(game)
    steps: list[dict[str, Any]] = []
    while not game.is_over:
        move = (
            "undo"
            if game.placed and rng.random() < 0.1
            else str(rng.choice(ENGINE.legal_moves(game)))
        )
        game = step(game, move)
        steps.append({"move": move, "views": views(game)})
    return {
        "options": options,
        "seed": seed,
        "player_seed": player_seed,
        "start": start,
        "steps": steps,
        "final": ENGINE.to_dict(game),
    }


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, args in GAMES.items():
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(dumps(record(*args)), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
