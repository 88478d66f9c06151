"""The recorded moves of a Kings Corner match, round by round, from the store's move log, and
the replay of one finished round (`replayed`, docs/review.md).

The log holds every step the routes saved: plays, pile moves and ends (``{"seat", "move",
"turn", "round"}``), undo (which takes back the round's last play or pile move), reveal and
the King a draw-last draw put in a corner (neither is a move), the deal and each next round.
The moves are replayed through the engine from the match's first deal, and the result must
be the saved match: anything else is a damaged game, never a guess.

The replay itself (the strong computer's suggestion for every turn, the play-outs that
compare it with the turn played, the admitted computation and the per-process cache) is the
games feature's (`cardtable.server.games.kc_replay`, shared with online tables); a repeated
fetch costs a lookup (and the game's ownership check in the route). ``finished_rounds``,
which grows as the match goes on, is set per answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fastapi.concurrency import run_in_threadpool

from cardtable import kings_corner as kc
from cardtable.kings_corner.replay import replay_round
from cardtable.server.core.admission import Admission
from cardtable.server.core.errors import damaged, wrong_phase
from cardtable.server.core.store.base import JSON
from cardtable.server.games.public import KCReplay, SavedMatch, kc_replay

NOT_MOVES = ("reveal", "draw-king")
play_out = kc_replay.play_out
REPLAYS = kc_replay.REPLAYS


def with_outcomes(start: kc.Match, rounds: list[list[str]], number: int) -> JSON:
    """`kc_replay.with_outcomes` through this module's `replay_round`. Runs in the search
    pool."""
    return kc_replay.add_outcomes(start, rounds, number, replay_round(start, rounds, number))


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


async def replayed(
    admission: Admission,
    player: str,
    game_id: str,
    table: SavedMatch,
    log_of: Callable[[], Sequence[JSON]],
    number: int,
) -> KCReplay:
    """`replay` of round ``number`` of the saved table ``game_id`` (the caller's: the route
    loaded it for ``player``), computed once per process and kept (module docstring). The
    log is read and checked in a thread of the request pool; the engine's work is awaited."""
    match = table.match
    done = kc_replay.finished_rounds(match)
    if number > done:
        raise wrong_phase(f"round {number} is not over: it cannot be replayed yet")

    def checked() -> tuple[kc.Match, list[list[str]]]:
        rounds = round_moves(log_of())
        start = kc_replay.start_of(match)
        if not kc_replay.replays_to(start, rounds, match):
            raise damaged("match")
        return start, rounds

    async def compute() -> KCReplay:
        start, rounds = await run_in_threadpool(checked)
        job = f"{game_id}/round/{number}"
        out = await kc_replay.computed(admission, job, player, with_outcomes, start, rounds, number)
        out["seats"] = [kind for kind, _ in table.seats]
        out["finished_rounds"] = done
        return KCReplay.model_validate(out)

    return kc_replay.with_finished(await REPLAYS.get((game_id, number), player, compute), done)
