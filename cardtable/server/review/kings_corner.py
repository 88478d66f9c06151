"""The recorded moves of a Kings Corner match, round by round, from the store's move log, and
the replay of one finished round (`replayed`, docs/review.md).

The log holds every step the routes saved: plays, pile moves and ends (``{"seat", "move",
"turn", "round"}``), undo (which takes back the round's last play or pile move), reveal and
the King a draw-last draw put in a corner (neither is a move), the deal and each next round.
The moves are replayed through the engine from the match's first deal, and the result must
be the saved match: anything else is a damaged game, never a guess.

Each turn's played line and the strong computer's suggestion are compared like with like
(`with_outcomes`): from where each of the two left the table, the rest of the round is
played out the same way (the strong computer in every seat, the cards as they really came:
the round is over, so the stock is known), and the seat's penalty at the round's end and
whether it won are given for both. The end-of-turn figures of the engine's replay (cards
kept, cards open for the next player) stay: the strong computer often keeps cards back so
as not to open piles for the next player, which those alone make look worse.

A replay costs tens of milliseconds to a few seconds of CPU (every turn's strong suggestion,
two play-outs for each turn played differently from it), and
a finished round never changes, so `replayed` computes each (game, round) once per process:
the engine's work is admitted like a hint (`Admission.reserve`: the player's search tokens, a
search slot) and runs in the search pool, and its result is kept in a bounded cache
(`REPLAYS_KEPT`, least recently used first out), validated as the answer's model once; a
repeated fetch costs a lookup (and the game's ownership check in the route). Two fetches of
one round at once compute it once (the second waits for the first). ``finished_rounds``,
which grows as the match goes on, is set per answer.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.kings_corner.replay import RoundNotOver, replay_round
from cardtable.server.core.admission import Admission, overloaded
from cardtable.server.core.errors import damaged, wrong_phase
from cardtable.server.core.store.base import JSON
from cardtable.server.games.public import Table
from cardtable.server.review.models import KCReplay

NOT_MOVES = ("reveal", "draw-king")
REPLAYS_KEPT = 256
"""Replayed rounds kept per process (about 30 KB each: some 8 MB at most)."""
WAIT = 30.0
"""Seconds a fetch waits for the same round being replayed by another request."""
PLAYOUT_MOVES = 2000
"""A play-out longer than this is cut (its outcome is then unknown): real rounds end within a
few hundred moves, and the strong player's stall penalty ends waiting games."""


def play_out(state: kc.State) -> kc.State:
    """The rest of the round from ``state``, the strong computer in every seat."""
    rng = random.Random(0)  # unused by the strong player; the interface wants one
    for _ in range(PLAYOUT_MOVES):
        if state.is_over:
            break
        state = kc.play(state, choose_move(kc.view(state, state.to_play), "strong", rng))
    return state


def _outcome(end: kc.State, seat: int) -> dict[str, Any] | None:
    final = play_out(end)
    if not final.is_over or final.penalties is None or final.winners is None:
        return None
    return {"penalty": final.penalties[seat], "won": seat in final.winners}


def with_outcomes(start: kc.Match, rounds: Sequence[Sequence[str]], number: int) -> JSON:
    """`replay_round` with each turn's ``outcome`` (module docstring): for a turn played
    differently from the suggestion, ``{"played", "suggested"}`` each ``{"penalty", "won"}``
    (None when a play-out did not end); None for a turn played as suggested. Runs in the
    search pool."""
    out = replay_round(start, rounds, number)
    match = start
    for k in range(number - 1):
        for move in rounds[k]:
            match = match.play(move)
        match = match.next_round()
    state = match.state
    for turn in out["turns"]:
        turn_start = state
        for step in turn["moves"]:
            state = kc.play(state, step["move"])
        if turn["same"]:
            turn["outcome"] = None
            continue
        suggested = turn_start
        for move in turn["suggested"]["moves"]:
            suggested = kc.play(suggested, move)
        seat = turn["seat"]
        turn["outcome"] = {
            "played": _outcome(state, seat),
            "suggested": _outcome(suggested, seat),
        }
    return out


def round_moves(log: Sequence[JSON]) -> list[list[str]]:
    """The moves of each round dealt, in order, with undone moves taken out."""
    rounds: list[list[str]] = [[]]
    for entry in log:
        if entry.get("action") == "next-round":
            rounds.append([])
            continue
        move = entry.get("move")
        if not isinstance(move, str) or move.startswith(NOT_MOVES):
            continue
        if move == "undo":
            if rounds[-1]:
                rounds[-1].pop()
            continue
        rounds[-1].append(move)
    return rounds


def finished_rounds(match: kc.Match) -> int:
    """How many rounds of the match are over (those can be replayed)."""
    return match.round - 1 + (1 if match.state.is_over else 0)


def start_of(match: kc.Match) -> kc.Match:
    """The match as it was dealt."""
    return kc.Match(match.players, match.rules, match.rounds, match.seed, match.fair_seed)


def _replays_to(start: kc.Match, rounds: list[list[str]], saved: kc.Match) -> bool:
    m = start
    for k, moves in enumerate(rounds):
        if k:
            m = m.next_round()
        for move in moves:
            m = m.play(move)
    return m.round == saved.round and m.state == saved.state and m.totals == saved.totals


Key = tuple[str, int]


class Replays:
    """Replayed rounds by (game id, round): a bounded LRU cache computing each key once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[Key, KCReplay] = OrderedDict()
        self._busy: dict[Key, threading.Event] = {}
        self.computed = 0
        """Replays computed (a cache miss each)."""

    def get(self, key: Key, compute: Callable[[], KCReplay]) -> KCReplay:
        for _ in range(3):
            with self._lock:
                kept = self._kept.get(key)
                if kept is not None:
                    self._kept.move_to_end(key)
                    return kept
                busy = self._busy.get(key)
                if busy is None:
                    busy = self._busy[key] = threading.Event()
                    mine = True
                else:
                    mine = False
            if not mine:
                busy.wait(WAIT)  # then look again (the other request may have failed)
                continue
            try:
                out = compute()
                with self._lock:
                    self.computed += 1
                    self._kept[key] = out
                    while len(self._kept) > self.size:
                        self._kept.popitem(last=False)
                return out
            finally:
                with self._lock:
                    self._busy.pop(key, None)
                busy.set()
        raise overloaded()

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


REPLAYS = Replays(REPLAYS_KEPT)


def replayed(
    admission: Admission,
    player: str,
    game_id: str,
    table: Table,
    log_of: Callable[[], Sequence[JSON]],
    number: int,
) -> KCReplay:
    """`replay` of round ``number`` of the saved table ``game_id`` (the caller's: the route
    loaded it for ``player``), computed once per process and kept (module docstring)."""
    match = table.match
    done = finished_rounds(match)
    if number > done:
        raise wrong_phase(f"round {number} is not over: it cannot be replayed yet")

    def compute() -> KCReplay:
        rounds = round_moves(log_of())
        start = start_of(match)
        try:
            if not _replays_to(start, rounds, match):
                raise damaged("match")
            with admission.reserve(f"{game_id}/round/{number}", player):
                out = admission.run(with_outcomes, start, rounds, number)
        except RoundNotOver as exc:  # pragma: no cover - finished_rounds said it was over
            raise wrong_phase(str(exc)) from None
        except ValueError:  # MatchError, IllegalMove, MoveError: a log that does not replay
            raise damaged("match") from None
        out["seats"] = [kind for kind, _ in table.seats]
        out["finished_rounds"] = done
        return KCReplay.model_validate(out)

    kept = REPLAYS.get((game_id, number), compute)
    if kept.finished_rounds == done:
        return kept
    return kept.model_copy(update={"finished_rounds": done})
