"""Kings Corner over HTTP: start a match, read it, play, undo, reveal a hand, let a computer
take one step, deal the next round, and the caller's match results (docs/api.md).

A person's request never makes a computer move: the page asks for each computer step
(``computer-step``) and animates it, so a paused or hidden page stops the computer (SPEC C-6,
KC-24). Every step is saved (state and move log) before it is answered.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import APIRouter, Request
from pydantic import TypeAdapter
from starlette.responses import Response

from cardtable import kings_corner as kc
from cardtable.fairness import new_seed
from cardtable.kings_corner.cpu import STRENGTHS, choose_move
from cardtable.server.core import retention
from cardtable.server.core.errors import damaged, illegal, invalid, responses, wrong_phase
from cardtable.server.core.models import VersionOnly
from cardtable.server.core.runtime import Runtime, RuntimeDep, StoreDep
from cardtable.server.core.store import GameRecord, Result, Store
from cardtable.server.devices.public import PlayerDep
from cardtable.server.games import service as games
from cardtable.server.games.kc_table import MAX_COMPUTER_STEPS, Entry, Table
from cardtable.server.games.models import (
    ComputerSeatOut,
    CustomRules,
    HumanSeatOut,
    KCConflict,
    KCEvent,
    KCGame,
    KCLogEntry,
    KCMatch,
    KCMatchResult,
    KCMove,
    KCNewGame,
    KCResults,
    KCRoundResult,
    KCStep,
    KCView,
)

KIND = "kings-corner"
RESULTS = 20
SEARCHING = frozenset({"strong"})
"""Computer strengths whose move is a search (milliseconds to tens of them); the others
choose in microseconds, cheaper than sending the view to another process."""

log = logging.getLogger("cardtable.server")
router = APIRouter(prefix="/api/kings-corner", tags=["kings-corner"])
_READ = responses(401, 404)
_WRITE = responses(401, 404, 409, 413, 422, conflict=KCConflict)
_EVENTS = TypeAdapter(list[KCEvent])


def render(record: GameRecord, step: KCStep | None = None) -> KCGame:
    """The saved game as its viewer sees it now (no events: nothing happened in this request)."""
    return _render(record.id, record.version, _table(record), step)


def _table(record: GameRecord) -> Table:
    """The saved table, checked beyond the engine's own validation (the server's fields)."""
    try:
        table = Table.from_dict(record.state)
        n = table.match.players
        ok = (
            len(table.seats) == n
            and table.seats[0] == ("human", None)
            and all(
                (k, s) == ("human", None) or (k == "computer" and s in STRENGTHS)
                for k, s in table.seats
            )
            and (table.revealed is None or table.revealed in range(n))
            and table.steps >= 0
        )
        for entry in table.log:
            KCLogEntry.model_validate(entry)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        ok = False
    if not ok:
        raise damaged("match")
    return table


def _render(
    game_id: str,
    version: int,
    table: Table,
    step: KCStep | None,
    events: list[kc.Event] | None = None,
) -> KCGame:
    """The answer: the table as its viewer sees it, and this request's events as the viewer
    may see them (a drawn card's face only in the drawer's own view)."""
    m = table.match
    results = [
        KCRoundResult(
            penalties=list(r.penalties), winners=list(r.winners), blocked=r.ending == "blocked"
        )
        for r in m.round_results
    ]
    return KCGame(
        id=game_id,
        version=version,
        seats=[seat_out(k, s) for k, s in table.seats],
        phase=table.phase,  # type: ignore[arg-type]
        viewer=table.viewer,
        view=KCView.model_validate(table.view()),
        match=KCMatch(
            round=m.round,
            rounds=m.rounds,
            totals=list(m.totals),
            results=results,
            winners=None if m.winners is None else list(m.winners),
        ),
        log=[KCLogEntry.model_validate(e) for e in table.log],
        step=step,
        events=_EVENTS.validate_python([e.seen_by(table.viewer) for e in events or ()]),
    )


def seat_out(kind: str, strength: str | None) -> HumanSeatOut | ComputerSeatOut:
    if kind == "computer":
        return ComputerSeatOut(kind="computer", strength=strength)  # type: ignore[arg-type]
    return HumanSeatOut(kind="human")


def _result(table: Table) -> Result | None:
    m = table.match
    if not m.is_over:
        return None
    return Result(
        variant=f"{m.players}p",
        total=None,  # lower is better in Kings Corner: no "best score" to keep
        practice=False,
        summary={
            "players": [{"kind": k, "strength": s} for k, s in table.seats],
            "rounds": m.rounds,
            "totals": list(m.totals),
            "winners": list(m.winners or ()),
        },
    )


def _open(
    store: Store, game_id: str, player: str, version: int, phase: str
) -> tuple[GameRecord, Table]:
    """The caller's game at that version, its table in that phase (else 404, 409 or 409)."""
    record = games.load(store, game_id, player, KIND)
    games.check(record, version, render)
    table = _table(record)
    if table.phase != phase:
        raise wrong_phase(_PHASE_HINT.get(table.phase, f"the game is in phase {table.phase}"))
    return record, table


def _save(
    store: Store,
    runtime: Runtime,
    record: GameRecord,
    table: Table,
    entries: list[Entry],
    step: KCStep | None = None,
    events: list[kc.Event] | None = None,
) -> Response:
    """Saves the changed table (its recent log trimmed) and answers with it."""
    table = table.trimmed(runtime.settings.log_recent)
    saved = games.save(
        store,
        record,
        table.to_dict(),
        render,
        finished=table.match.is_over,
        log=entries,
        result=_result(table),
    )
    return games.answer(_render(saved.id, saved.version, table, step, events))


_PHASE_HINT = {
    "computer": "a computer seat is to move: ask for its next step (computer-step)",
    "handoff": "the next person must reveal their hand first (reveal)",
    "round_over": "the round is over: deal the next round (next-round)",
    "match_over": "the match is over: start a new game",
    "play": "a person is to move",
}


def _rules(body: KCNewGame) -> kc.Rules:
    if isinstance(body.rules, CustomRules):
        return kc.Rules.from_options(body.rules.model_dump())
    return kc.Rules.from_options(body.rules.preset)


@router.post("/games", status_code=201, response_model=KCGame, responses=_WRITE)
def new_game(
    body: KCNewGame, player: PlayerDep, store: StoreDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Start a match; it replaces the caller's unfinished one. Seat 0 is the caller."""
    seats = tuple(
        (s.kind, getattr(s, "strength", None) if s.kind == "computer" else None) for s in body.seats
    )
    test_seed = games.requested_seed(runtime, request)
    seed = test_seed or secrets.randbits(63)
    # Rounds are dealt from a fair seed (docs/fairness.md); X-Test-Seed from the integer seed.
    fair_seed = None if test_seed else new_seed()
    table = Table.new(seats, _rules(body), body.rounds, seed, fair_seed)
    entry: dict[str, Any] = {"action": "deal", "seed": seed, "seats": [list(s) for s in seats]}
    record = store.create_game(player, KIND, table.to_dict(), finished=False, log=[entry])
    store.prune(player, KIND, retention.keep(runtime))
    return games.answer(_render(record.id, record.version, table, None), 201)


@router.get("/games/{game_id}", response_model=KCGame, responses=_READ)
def get_game(game_id: str, player: PlayerDep, store: StoreDep) -> Response:
    return games.answer(render(games.load(store, game_id, player, KIND)))


@router.post("/games/{game_id}/moves", response_model=KCGame, responses=_WRITE)
def move(
    game_id: str, body: KCMove, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """The person whose hand is shown plays ``"9H>N"``, moves a pile ``"E>NW"`` or ends the
    turn ``"end"``. Never plays a computer seat (see computer-step)."""
    record, table = _open(store, game_id, player, body.version, "play")
    try:
        parsed = kc.ENGINE.parse_move(body.move)
        table, entries, events = table.played(table.match.state.to_play, parsed, computer=False)
    except kc.MoveError as exc:
        raise invalid(f"move: {exc}") from None
    except kc.IllegalMove as exc:
        raise illegal(exc.reason) from None
    return _save(store, runtime, record, table, entries, events=events)


@router.post("/games/{game_id}/undo", response_model=KCGame, responses=_WRITE)
def undo(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """Take back the last play or pile move of this turn (never a draw, KC-8)."""
    record, table = _open(store, game_id, player, body.version, "play")
    try:
        table = table.undone()
    except kc.IllegalMove as exc:
        raise illegal(exc.reason) from None
    return _save(
        store, runtime, record, table, [{"seat": table.match.state.to_play, "move": "undo"}]
    )


@router.post("/games/{game_id}/reveal", response_model=KCGame, responses=_WRITE)
def reveal(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """Show the next person's hand after a hand-off (KC-7)."""
    record, table = _open(store, game_id, player, body.version, "handoff")
    table = table.revealed_to()
    return _save(
        store, runtime, record, table, [{"seat": table.match.state.to_play, "move": "reveal"}]
    )


@router.post("/games/{game_id}/computer-step", response_model=KCGame, responses=_WRITE)
def computer_step(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """One move of the computer seat to play; the answer's ``step`` says which."""
    record, table = _open(store, game_id, player, body.version, "computer")
    state = table.match.state
    seat = state.to_play
    strength = table.seats[seat][1] or "normal"
    chosen: kc.Move | str | None = None
    try:
        if table.steps >= MAX_COMPUTER_STEPS:
            raise ValueError("the computer's turn ran too long")
        args = (table.match.view(seat), strength, table.computer_rng())
        if strength in SEARCHING:
            # A search: admitted like a hint, run in the search pool (admission.py).
            with runtime.admission.reserve(record.id, player, rated=False):
                chosen = runtime.admission.run(choose_move, *args)
        else:
            chosen = choose_move(*args)
        table, entries, events = table.played(seat, chosen, computer=True)
    except ValueError as exc:
        # A computer player's mistake must not stall the game: log it and make the move
        # that changes least (end the turn, or place the compulsory King under kings-first).
        log.error("computer seat %d chose %r: %s", seat, chosen, exc)
        table, entries, events = table.played(seat, kc.default_move(state), computer=True)
    step = KCStep(seat=seat, move=entries[0]["move"])
    return _save(store, runtime, record, table, entries, step, events)


@router.post("/games/{game_id}/next-round", response_model=KCGame, responses=_WRITE)
def next_round(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """Deal the next round of the match (first seat rotates, KC-2)."""
    record, table = _open(store, game_id, player, body.version, "round_over")
    table = table.next_round()
    return _save(
        store, runtime, record, table, [{"action": "next-round", "round": table.match.round}]
    )


@router.get("/results", response_model=KCResults, responses=responses(401))
def results(player: PlayerDep, store: StoreDep) -> Response:
    """The caller's finished matches, newest first (at most 20)."""
    return games.answer(
        KCResults(
            matches=[
                KCMatchResult(
                    id=r.game_id,
                    players=[seat_out(p["kind"], p.get("strength")) for p in r.summary["players"]],
                    rounds=r.summary["rounds"],
                    totals=r.summary["totals"],
                    winners=r.summary["winners"],
                    finished_at=r.finished_at,
                )
                for r in store.results(player, KIND, limit=RESULTS)
            ]
        )
    )
