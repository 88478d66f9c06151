"""The layout of golden playthrough files, shared by both games' `regen_golden` modules."""

from __future__ import annotations

import json
from typing import Any


def dumps(game: dict[str, Any]) -> str:
    """JSON with one line per step, so a diff points at the step that changed."""
    compact: dict[str, Any] = {"separators": (",", ":")}
    lines = [f"{json.dumps(k)}:{json.dumps(v, **compact)}" for k, v in game.items() if k != "steps"]
    steps = ",\n".join(json.dumps(s, **compact) for s in game["steps"])
    return "{\n" + ",\n".join(lines) + ',\n"steps":[\n' + steps + "\n]}\n"
