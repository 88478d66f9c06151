"""The replay of a finished Kings Corner round as both features that show one build it: the
review (a game saved on this device, docs/review.md) and an online table (docs/online.md).
Feature-neutral: the caller loads the match and its moves and checks who may see it.

Each turn's played line and the strong computer's suggestion are compared like with like
(`with_outcomes`): from where each of the two left the table, the rest of the round is
played out the same way (the strong computer in every seat, the cards as they really came:
the round is over, so the stock is known), and the seat's penalty at the round's end and
whether it won are given for both. The end-of-turn figures of the engine's replay (cards
kept, cards open for the next player) stay: the strong computer often keeps cards back so
as not to open piles for the next player, which those alone make look worse.

A replay costs tens of milliseconds to a few seconds of CPU (every turn's strong suggestion,
two play-outs for each turn played differently from it), and a finished round never
changes, so each is computed once per process. The engine's work runs in the search pool,
admitted so that no replay starts while a hint or a computer step waits for a slot
(`computed`: `Admission.reserve_spare_async`, one replay at a time per player, the player's
search tokens, a spare search slot), and its result is kept in the bounded `REPLAYS` cache
(`REPLAYS_KEPT`, least recently used first out), validated as the answer's model once. Two
fetches of one round at once compute it once (the second waits for the first, on the
event loop: no request waits for engine work in a thread of the shared pool, and only so
many may wait, `Replays`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from typing import Any, Literal

from pydantic import Field

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import strong
from cardtable.kings_corner.replay import RoundNotOver, replay_round
from cardtable.server.core.admission import Admission, overloaded
from cardtable.server.core.errors import ApiError, damaged, wrong_phase
from cardtable.server.core.metrics import WAITS_REFUSED, count_refusal
from cardtable.server.core.models import Response
from cardtable.server.core.store.base import JSON

REPLAYS_KEPT = 256
"""Replayed rounds kept per process (about 30 KB each: some 8 MB at most)."""
WAIT = 30.0
"""Seconds a fetch waits for the same round being replayed by another request."""
WAITING_PER_PLAYER = 2
"""Fetches of one player that may wait at once (per process) for a round being replayed."""
WAITING = 32
"""Fetches that may wait at once in a process for rounds being replayed."""
SLOT_WAIT = 10.0
"""Seconds a round not kept yet waits for a spare search slot (one no hint is waiting for)
before 503."""
PLAYOUT_MOVES = 2000
"""A play-out longer than this is cut (its outcome is then unknown): real rounds end within a
few hundred moves, and the strong player's stall penalty ends waiting games."""

Work = Callable[[kc.Match, list[list[str]], int], JSON]
"""A module-level function (picklable: it runs in the search pool) giving the replay JSON."""


# -- the answer ----------------------------------------------------------------------------
class KCFrame(Response):
    hands: list[list[str]]
    piles: dict[str, list[str]]
    stock_count: int
    to_play: int


class KCReplayStep(Response):
    move: str
    frame: KCFrame


class KCTurnEnd(Response):
    kept: int = Field(description="Cards left in the hand when the turn ended.")
    penalty: int
    open_next: int | None = Field(
        description="The next seat's cards playable at once when its turn began."
    )


class KCSuggestion(KCTurnEnd):
    moves: list[str]


class KCRoundEnd(Response):
    penalty: int = Field(description="The seat's penalty when the round ended.")
    won: bool


class KCOutcome(Response):
    played: KCRoundEnd | None = Field(
        description="From where the turn played left the table, the rest of the round played "
        "by the strong computer in every seat with the cards that really came (null: that "
        "play-out did not end)."
    )
    suggested: KCRoundEnd | None = Field(
        description="The same from where the suggested turn would have left it."
    )


class KCReplayTurn(Response):
    seat: int
    turn: int
    start: KCFrame
    moves: list[KCReplayStep]
    actual: KCTurnEnd
    suggested: KCSuggestion
    same: bool
    outcome: KCOutcome | None = Field(
        description="The two turns compared at the round's end (null when they are the same)."
    )


class KCReplayResult(Response):
    penalties: list[int]
    winners: list[int]
    ending: Literal["out", "blocked"]


class KCReplay(Response):
    round: int
    rounds: int
    players: int
    seats: list[Literal["human", "computer"]]
    finished_rounds: int = Field(description="How many rounds of the match can be replayed.")
    rules: dict[str, str | bool]
    turns: list[KCReplayTurn]
    result: KCReplayResult
    final: KCFrame


# -- the engine's work -----------------------------------------------------------------------
def play_out(state: kc.State) -> kc.State:
    """The rest of the round from ``state``, the strong computer's one-turn search in every
    seat (`strong.choose`: the strong level without its sampled replies, issue 46; a
    play-out runs it for every turn left, so it keeps a replay's cost as it was)."""
    for _ in range(PLAYOUT_MOVES):
        if state.is_over:
            break
        state = kc.play(state, strong.choose(kc.view(state, state.to_play)))
    return state


def _outcome(end: kc.State, seat: int) -> dict[str, Any] | None:
    final = play_out(end)
    if not final.is_over or final.penalties is None or final.winners is None:
        return None
    return {"penalty": final.penalties[seat], "won": seat in final.winners}


def add_outcomes(start: kc.Match, rounds: Sequence[Sequence[str]], number: int, out: JSON) -> JSON:
    """``out`` (`replay_round`'s answer for these moves) with each turn's ``outcome`` (module
    docstring): for a turn played differently from the suggestion, ``{"played",
    "suggested"}`` each ``{"penalty", "won"}`` (None when a play-out did not end); None for
    a turn played as suggested."""
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


def with_outcomes(start: kc.Match, rounds: list[list[str]], number: int) -> JSON:
    """`replay_round` with each turn's ``outcome`` (`add_outcomes`). Runs in the search
    pool."""
    return add_outcomes(start, rounds, number, replay_round(start, rounds, number))


# -- the match ---------------------------------------------------------------------------------
def finished_rounds(match: kc.Match) -> int:
    """How many rounds of the match are over (those can be replayed)."""
    return match.round - 1 + (1 if match.state.is_over else 0)


def start_of(match: kc.Match) -> kc.Match:
    """The match as it was dealt."""
    return kc.Match(match.players, match.rules, match.rounds, match.seed, match.fair_seed)


def replays_to(start: kc.Match, rounds: Sequence[Sequence[str]], saved: kc.Match) -> bool:
    """Whether ``rounds`` played from ``start`` give the saved match (anything else is a
    damaged record, never a guess). False for moves that do not replay."""
    m = start
    try:
        for k, moves in enumerate(rounds):
            if k:
                m = m.next_round()
            for move in moves:
                m = m.play(move)
    except ValueError:  # MatchError, IllegalMove, MoveError
        return False
    return m.round == saved.round and m.state == saved.state and m.totals == saved.totals


async def computed(
    admission: Admission,
    job: str,
    player: str,
    work: Work,
    start: kc.Match,
    rounds: list[list[str]],
    number: int,
) -> JSON:
    """``work(start, rounds, number)`` admitted as work that waits for the hints
    (`Admission.reserve_spare_async`: one at a time per player, the player's search token, a
    spare search slot; ``job`` names the reservation) and run in the search pool, awaited
    (no thread is held while it waits or runs)."""
    try:
        async with admission.reserve_spare_async(job, player, wait=SLOT_WAIT):
            return await admission.run_async(work, start, rounds, number)
    except RoundNotOver as exc:  # pragma: no cover - the caller checked the round is over
        raise wrong_phase(str(exc)) from None
    except ValueError:  # MatchError, IllegalMove, MoveError: a log that does not replay
        raise damaged("match") from None


# -- the cache -------------------------------------------------------------------------------
Key = tuple[str, int]


def too_many_waiting() -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        "you are already waiting for this replay: ask again once it is ready",
        headers={"Retry-After": "2"},
    )


class Replays:
    """Replayed rounds by (match key, round): a bounded LRU cache computing each key once.

    A fetch of a round being computed for another request waits for it on the event loop
    (holding no thread), and only so many wait: `WAITING_PER_PLAYER` per player (beyond,
    429 ``rate_limited``) and `WAITING` in the process (beyond, 503 ``unavailable``),
    counted in ``cardtable_waits_refused_total``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[Key, KCReplay] = OrderedDict()
        self._busy: dict[Key, Future[None]] = {}
        self._waiting: dict[str, int] = {}
        """Fetches waiting for another's computation, by player."""
        self._waiting_total = 0
        self.computed = 0
        """Replays computed (a cache miss each)."""

    async def get(
        self, key: Key, player: str, compute: Callable[[], Awaitable[KCReplay]]
    ) -> KCReplay:
        for _ in range(3):
            with self._lock:
                kept = self._kept.get(key)
                if kept is not None:
                    self._kept.move_to_end(key)
                    return kept
                busy = self._busy.get(key)
                mine = busy is None
                if busy is None:
                    busy = self._busy[key] = Future()
                else:
                    self._wait_in(player)
            if not mine:
                try:
                    # Shielded: a waiter that gives up never cancels the computation's future.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(busy)), WAIT)
                finally:
                    self._wait_out(player)
                continue  # look again (the other request may have failed)
            try:
                out = await compute()
                with self._lock:
                    self.computed += 1
                    self._kept[key] = out
                    while len(self._kept) > self.size:
                        self._kept.popitem(last=False)
                return out
            finally:
                with self._lock:
                    self._busy.pop(key, None)
                busy.set_result(None)
        count_refusal("replay_busy")
        raise overloaded()

    def check(self, player: str) -> None:
        """429 at once while ``player`` already has `WAITING_PER_PLAYER` fetches waiting: a
        route asks before it reads the game, so such a fetch costs no store read."""
        with self._lock:
            self._player_may_wait(player)

    def _player_may_wait(self, player: str) -> None:
        """429 (counted) when ``player`` has `WAITING_PER_PLAYER` waiting; under the lock."""
        if self._waiting.get(player, 0) >= WAITING_PER_PLAYER:
            WAITS_REFUSED.labels(what="replay", reason="player").inc()
            count_refusal("replay_waits_player")
            raise too_many_waiting()

    def _wait_in(self, player: str) -> None:
        """Count ``player`` as waiting (under the lock), or refuse them."""
        self._player_may_wait(player)
        if self._waiting_total >= WAITING:
            WAITS_REFUSED.labels(what="replay", reason="total").inc()
            count_refusal("replay_waits_total")
            raise overloaded()
        self._waiting[player] = self._waiting.get(player, 0) + 1
        self._waiting_total += 1

    def _wait_out(self, player: str) -> None:
        with self._lock:
            left = self._waiting.pop(player, 1) - 1
            if left > 0:
                self._waiting[player] = left
            self._waiting_total -= 1

    def waiting(self) -> int:
        """Fetches waiting for another's computation now."""
        with self._lock:
            return self._waiting_total

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


REPLAYS = Replays(REPLAYS_KEPT)
"""The one cache of this process: a review's keys are game ids, an online table's start with
``online/`` (neither can be the other)."""


def with_finished(replay: KCReplay, done: int) -> KCReplay:
    """``replay`` with ``finished_rounds`` as it is now (it grows as the match goes on)."""
    if replay.finished_rounds == done:
        return replay
    return replay.model_copy(update={"finished_rounds": done})
