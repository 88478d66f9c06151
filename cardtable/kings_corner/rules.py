"""The four Kings Corner options and the three named rule sets (SPEC KC-12, KC-17)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

Draw = Literal["first", "last"]
Kings = Literal["optional", "first"]
DealtKings = Literal["stay", "corner"]


class RulesError(ValueError):
    """An unknown option value or preset name."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One combination of the four options; the defaults are the standard rule set.

    - ``draw``: ``"first"`` draws at the start of a turn (KC-13), ``"last"`` when it ends (KC-14).
    - ``pile_moves``: whole centre piles may move (KC-9..KC-11).
    - ``kings``: ``"first"`` makes placing a held King in an empty corner compulsory (KC-15).
    - ``dealt_kings``: ``"corner"`` moves Kings dealt to the centre into corners (KC-16).
    """

    draw: Draw = "first"
    pile_moves: bool = True
    kings: Kings = "optional"
    dealt_kings: DealtKings = "stay"

    def __post_init__(self) -> None:
        if self.draw not in ("first", "last"):
            raise RulesError(f"draw must be 'first' or 'last', got {self.draw!r}")
        if not isinstance(self.pile_moves, bool):
            raise RulesError(f"pile_moves must be true or false, got {self.pile_moves!r}")
        if self.kings not in ("optional", "first"):
            raise RulesError(f"kings must be 'optional' or 'first', got {self.kings!r}")
        if self.dealt_kings not in ("stay", "corner"):
            raise RulesError(f"dealt_kings must be 'stay' or 'corner', got {self.dealt_kings!r}")

    @classmethod
    def preset(cls, name: str) -> Rules:
        """``"standard"``, ``"draw-last"`` or ``"simple"`` (KC-17)."""
        try:
            return PRESETS[name]
        except (KeyError, TypeError):
            raise RulesError(
                f"unknown rule set {name!r} (expected one of {', '.join(PRESETS)})"
            ) from None

    @classmethod
    def from_options(cls, value: Any) -> Rules:
        """Rules from a preset name (``"standard"``) or a mapping of options, each option
        missing from it keeping its standard value; `RulesError` for anything else."""
        if isinstance(value, str):
            return cls.preset(value)
        if not isinstance(value, Mapping):
            raise RulesError(f"rules must be a preset name or a mapping of options: {value!r}")
        unknown = set(value) - _OPTIONS
        if unknown:
            raise RulesError(f"unknown rule options {sorted(map(str, unknown))}")
        return cls(**value)

    @property
    def name(self) -> str:
        """The preset this combination equals, or ``"custom"``."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return "custom"

    def to_dict(self) -> dict[str, Any]:
        return {
            "draw": self.draw,
            "pile_moves": self.pile_moves,
            "kings": self.kings,
            "dealt_kings": self.dealt_kings,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Rules:
        if not isinstance(d, dict) or set(d) != {"draw", "pile_moves", "kings", "dealt_kings"}:
            raise RulesError(f"rules must have draw, pile_moves, kings, dealt_kings: {d!r}")
        return cls(
            draw=cast(Draw, d["draw"]),
            pile_moves=d["pile_moves"],
            kings=cast(Kings, d["kings"]),
            dealt_kings=cast(DealtKings, d["dealt_kings"]),
        )


PRESETS: dict[str, Rules] = {
    "standard": Rules("first", True, "optional", "stay"),
    "draw-last": Rules("last", True, "first", "stay"),
    "simple": Rules("first", False, "optional", "corner"),
}
_OPTIONS = frozenset(f.name for f in fields(Rules))
