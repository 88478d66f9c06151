"""The games feature's entry for the other features: the only module of `games` that they
import (`make contracts` holds them to it).

- The game records every game route shares (`records`: load a player's game, check its
  version, save it by compare-and-set, answer with it), used by online tables and reviews.
- A stored Kings Corner table (`SavedMatch`, its `MoveEntry` log, `SavedMatchError`,
  `MAX_COMPUTER_STEPS`), which online tables play and reviews replay.
- The JSON models other features embed (`PSGame` in the daily's answer; the Kings Corner
  view, log, rules and move models in an online table's; `CellEstimate` in a review).
- A Poker Squares game's kind and rendering (the daily deals ordinary Poker Squares games),
  the Kings Corner kind, and `StatsStore`: a player's finished games, results, export and
  deletion over the store's own tables (statistics and the daily read them).
- The replay of a finished Kings Corner round (`kc_replay`: the engine's work, admitted
  like a hint and cached per process; its answer `KCReplay`), which reviews and online tables
  both show.
- `shown`: a saved game record as its player may see it (an unfinished game's view, never
  its state; a finished one's state with withheld seeds kept back), the one door for any
  answer that serialises a stored game (the export uses it through `StatsStore.export`).
"""

from cardtable.server.games import kc_replay, records
from cardtable.server.games.kc_replay import KCReplay
from cardtable.server.games.models import (
    CellEstimate,
    CountedAttempt,
    CustomRules,
    KCEvent,
    KCLogEntry,
    KCMatch,
    KCMove,
    KCView,
    PointTable,
    PresetRules,
    PSGame,
    RulesOut,
    SeatIndex,
    Strength,
)
from cardtable.server.games.saved_match import (
    MAX_COMPUTER_STEPS,
    MoveEntry,
    SavedMatch,
    SavedMatchError,
)
from cardtable.server.games.service import KC_KIND, PS_KIND, kc_rules
from cardtable.server.games.service import ps_render as render_ps
from cardtable.server.games.shown import shown
from cardtable.server.games.store import StatsStore

__all__ = [
    "KC_KIND",
    "MAX_COMPUTER_STEPS",
    "PS_KIND",
    "CellEstimate",
    "CountedAttempt",
    "CustomRules",
    "KCEvent",
    "KCLogEntry",
    "KCMatch",
    "KCMove",
    "KCReplay",
    "KCView",
    "MoveEntry",
    "PSGame",
    "PointTable",
    "PresetRules",
    "RulesOut",
    "SavedMatch",
    "SavedMatchError",
    "SeatIndex",
    "StatsStore",
    "Strength",
    "kc_replay",
    "kc_rules",
    "records",
    "render_ps",
    "shown",
]
