"""What the games feature does (docs/api.md, "Poker Squares" and "Kings Corner"): deal, read,
move, hint, a computer's step, the next round, best scores and results. The routes (`routes`)
parse and answer; the steps every game shares (find the caller's game, check its version,
save by compare-and-set) are `records`; the tables are the core store's.

**One move path.** A Poker Squares placement or undo and a Kings Corner play, undo, reveal or
next round on one device all go through `play_move`: one store transaction in which the
caller's credential and the game are read by one statement, the game's rules judge the move
(`Rule`: the engine's answer, or a refusal that writes nothing), and the changed game is
saved by compare-and-set (`records.change`). A computer's step is the one move outside it:
it may run a search, which must not hold a write transaction open.

Hidden cards never leave the server (docs/requirements.md C-8): every answer is a game's
view for its viewer, never its state.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter
from starlette.background import BackgroundTask

from cardtable import kings_corner as kc
from cardtable import poker_squares as ps
from cardtable.fairness import Fair, new_seed
from cardtable.interface import IllegalMove, MoveError
from cardtable.kings_corner.cpu import STRENGTHS, choose_move
from cardtable.poker_squares import ENGINE, INTERACTIVE_BUDGET, analyse
from cardtable.server.core import retention
from cardtable.server.core.errors import ApiError, damaged, illegal, invalid, wrong_phase
from cardtable.server.core.metrics import MOVES
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import Change, GameRecord, Result, Store
from cardtable.server.games import records
from cardtable.server.games.models import (
    CellEstimate,
    CellRef,
    ComputerSeatOut,
    CustomRules,
    HumanSeatOut,
    KCEvent,
    KCGame,
    KCLogEntry,
    KCMatch,
    KCMatchResult,
    KCNewGame,
    KCResults,
    KCRoundResult,
    KCStep,
    KCView,
    PresetRules,
    PSGame,
    PSHint,
    PSHistoryEntry,
    PSNewGame,
    PSScoreBoard,
    PSScores,
    PSTarget,
    PSView,
)
from cardtable.server.games.saved_match import MAX_COMPUTER_STEPS, SavedMatch

PS_KIND = "poker-squares"
KC_KIND = "kings-corner"
PS_HISTORY = 20
KC_RESULTS = 20
PS_SEAT = 0
"""Poker Squares has one seat: the caller's."""
SEARCHING = frozenset({"strong"})
"""Computer strengths whose move is a search; the others choose far faster than sending the
view to another process."""

log = logging.getLogger("cardtable.server")
GAME_LABELS = {PS_KIND: "poker_squares", KC_KIND: "kings_corner"}
"""The ``game`` label of ``cardtable_moves_total`` for each kind."""

# -- the one move path ----------------------------------------------------------------------

Rule = Callable[[GameRecord], tuple[Change, Any]]
"""A move judged by its game's rules: from the saved game, the change to save and what the
answer is drawn from (the game after the move); or it raises to refuse (nothing is written)."""


def play_move(
    runtime: Runtime,
    player_id: str,
    now: Any,
    game_id: str,
    kind: str,
    version: int,
    rule: Rule,
) -> tuple[GameRecord, Any]:
    """A move on the caller's game of ``kind`` made against ``version``, in one store
    transaction (`records.change`): 404 for a game missing or someone else's, 409 for a
    stale version or a replaced game, then ``rule`` judges it and the change is saved by
    compare-and-set. Returns the saved record and what ``rule`` made."""
    made: list[Any] = []

    def judged(record: GameRecord) -> Change:
        change, after = rule(record)
        made.append(after)
        return change

    render = ps_render if kind == PS_KIND else kc_render
    saved = records.change(runtime, player_id, now, game_id, kind, version, render, judged)
    MOVES.labels(game=GAME_LABELS[kind], by="person").inc()
    return saved, made[-1]


# -- Poker Squares --------------------------------------------------------------------------


def ps_render(record: GameRecord, game: ps.Game | None = None) -> PSGame:
    """The answer for a saved deal (``game``: its state, when already loaded)."""
    game = _ps_game(record) if game is None else game
    view = PSView.model_validate(ENGINE.view(game, PS_SEAT))
    return PSGame(id=record.id, version=record.version, view=view)


def _ps_game(record: GameRecord) -> ps.Game:
    try:
        return ENGINE.from_dict(record.state)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise damaged("deal") from None


def _ps_result(game: ps.Game) -> Result | None:
    if not game.is_over:
        return None
    return Result(
        variant=game.table,
        total=game.total,
        practice=game.practice,
        summary={
            "target": {"level": game.target, "points": game.target_points},
            "target_reached": game.target_reached,
        },
    )


def _ps_change(game: ps.Game, entry: dict[str, Any]) -> Change:
    return Change(ENGINE.to_dict(game), game.is_over, [entry], _ps_result(game))


def ps_deal(
    store: Store, runtime: Runtime, player: str, body: PSNewGame, test_seed: int | None
) -> PSGame:
    """Deal a new deal; it replaces the caller's unfinished one, after asking when that one
    is a counted attempt (409 ``replaces_counted`` unless ``replace_counted``). ``replay_of``
    deals the cards of an earlier deal of the caller's again, as practice."""
    records.replacing(store, player, PS_KIND, confirmed=body.replace_counted)
    if body.replay_of is not None:
        earlier = _ps_game(records.load(store, body.replay_of, player, PS_KIND))
        if earlier.seed is None and earlier.fair is None:
            raise illegal("that deal has no recorded seed, so it cannot be replayed")
        seed, fair = earlier.seed or 0, earlier.fair
    else:
        # A provably fair deal (docs/fairness.md); X-Test-Seed deals from an integer seed.
        seed = test_seed or 0
        fair = None if seed else Fair.new()
    options: dict[str, Any] = {
        "table": body.table,
        "target": body.target,
        "replay": body.replay_of is not None,
    }
    if fair is not None:
        options["fair"] = fair.saved()  # a daily deal's replay keeps its seed withheld
    game = ENGINE.new(seed, options)
    entry = {"action": "deal", "seed": seed or None, "replay_of": body.replay_of}
    record = store.create_game(player, PS_KIND, ENGINE.to_dict(game), finished=False, log=[entry])
    store.prune(player, PS_KIND, retention.keep(runtime))
    return ps_render(record, game)


def ps_place(row: int, col: int) -> Rule:
    """Put the current card on the empty cell (row, col)."""

    def rule(record: GameRecord) -> tuple[Change, ps.Game]:
        try:
            game = ENGINE.play(_ps_game(record), ps.Move(row, col))
        except MoveError as exc:
            raise invalid(f"cell: {exc}") from None
        except IllegalMove as exc:
            raise illegal(exc.reason) from None
        return _ps_change(game, {"action": "place", "row": row, "col": col}), game

    return rule


def ps_undo(record: GameRecord) -> tuple[Change, ps.Game]:
    """Take back the last placement; the deal becomes practice."""
    try:
        game = ENGINE.undo(_ps_game(record))
    except IllegalMove as exc:
        raise illegal(exc.reason) from None
    return _ps_change(game, {"action": "undo"}), game


def ps_after(store: Store, saved: GameRecord, game: ps.Game) -> BackgroundTask | None:
    """What runs after a move's answer: the finish hooks of a deal it finished."""
    return records.after_finish(store, PS_KIND, saved.player) if game.is_over else None


def ps_hint(store: Store, runtime: Runtime, player: str, game_id: str, version: int) -> PSHint:
    """A cell for the current card from what the player can see (docs/requirements.md PS-8),
    with the estimated final total for every empty cell. The deal becomes practice."""
    # A stale version is refused here, before any search (core/admission.py).
    record = records.load(store, game_id, player, PS_KIND)
    records.check(record, version, ps_render)
    game = _ps_game(record)
    if game.is_over:
        raise wrong_phase("the deal is over: there is no card to place")
    view = ENGINE.view(game, PS_SEAT)
    budget = runtime.settings.hint_budget
    budget = INTERACTIVE_BUDGET if budget is None else budget
    with runtime.admission.reserve(record.id, player):
        try:
            # The hint depends on the view alone: the same view always gets the same hint.
            (row, col), estimates = runtime.admission.run(analyse, view, budget=budget)
        except ValueError as exc:  # pragma: no cover - the view comes from the engine
            raise ApiError(409, "wrong_phase", str(exc)) from None
        game = ps.hinted(game)
        entry = {"action": "hint", "row": row, "col": col}
        saved = records.save(
            store,
            record,
            ENGINE.to_dict(game),
            ps_render,
            finished=game.is_over,
            log=[entry],
            result=_ps_result(game),
        )
    return PSHint(
        game=ps_render(saved, game),
        hint=CellRef(row=row, col=col),
        estimates=[CellEstimate.model_validate(e) for e in estimates],
    )


def ps_scores(store: Store, player: str) -> PSScoreBoard:
    """Best unassisted and best practice score per table, and the latest finished deals."""
    best = store.best_scores(player, PS_KIND)
    boards: dict[str, PSScores] = {}
    for table in ("american", "british"):
        history = [
            PSHistoryEntry(
                id=r.game_id,
                total=r.total or 0,
                practice=r.practice,
                target=PSTarget.model_validate(r.summary["target"]),
                target_reached=bool(r.summary["target_reached"]),
                finished_at=r.finished_at,
            )
            for r in store.results(player, PS_KIND, variant=table, limit=PS_HISTORY)
        ]
        boards[table] = PSScores(
            best=best.get((table, False)),
            best_practice=best.get((table, True)),
            history=history,
        )
    return PSScoreBoard(american=boards["american"], british=boards["british"])


# -- Kings Corner ---------------------------------------------------------------------------

_EVENTS = TypeAdapter(list[KCEvent])
_PHASE_HINT = {
    "computer": "a computer seat is to move: ask for its next step (computer-step)",
    "handoff": "the next person must reveal their hand first (reveal)",
    "round_over": "the round is over: deal the next round (next-round)",
    "match_over": "the match is over: start a new game",
    "play": "a person is to move",
}


def kc_render(record: GameRecord, step: KCStep | None = None) -> KCGame:
    """The saved match as its viewer sees it now (no events: nothing happened just now)."""
    return kc_answer(record.id, record.version, _saved_match(record), step)


def _saved_match(record: GameRecord) -> SavedMatch:
    """The saved match, checked beyond the engine's own validation (the server's fields)."""
    try:
        table = SavedMatch.from_dict(record.state)
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


def kc_answer(
    game_id: str,
    version: int,
    table: SavedMatch,
    step: KCStep | None,
    events: list[kc.Event] | None = None,
) -> KCGame:
    """The answer: the match as its viewer sees it, and this request's events as the viewer
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


def _kc_result(table: SavedMatch) -> Result | None:
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


def _kc_in_phase(record: GameRecord, phase: str) -> SavedMatch:
    """The saved match, which must be in ``phase`` (else 409 ``wrong_phase``, saying why)."""
    table = _saved_match(record)
    if table.phase != phase:
        raise wrong_phase(_PHASE_HINT.get(table.phase, f"the game is in phase {table.phase}"))
    return table


@dataclass(frozen=True)
class KCMoved:
    """What a Kings Corner move made, for its answer: the match (its recent log trimmed) and
    the move's events."""

    table: SavedMatch
    events: list[kc.Event]


def _kc_change(
    runtime: Runtime, table: SavedMatch, entries: list[Any], events: list[kc.Event] | None = None
) -> tuple[Change, KCMoved]:
    table = table.trimmed(runtime.settings.log_recent)
    change = Change(table.to_dict(), table.match.is_over, entries, _kc_result(table))
    return change, KCMoved(table=table, events=events or [])


def kc_rules(rules: CustomRules | PresetRules) -> kc.Rules:
    """The engine's rules for a request's ``rules`` (a preset's name, or every option);
    online tables take theirs the same way."""
    if isinstance(rules, CustomRules):
        return kc.Rules.from_options(rules.model_dump())
    return kc.Rules.from_options(rules.preset)


def kc_new_match(
    store: Store, runtime: Runtime, player: str, body: KCNewGame, test_seed: int | None
) -> KCGame:
    """Start a match; it replaces the caller's unfinished one. Seat 0 is the caller."""
    seats = tuple(
        (s.kind, getattr(s, "strength", None) if s.kind == "computer" else None) for s in body.seats
    )
    seed = test_seed or secrets.randbits(63)
    # Rounds are dealt from a fair seed (docs/fairness.md); X-Test-Seed from the integer seed.
    fair_seed = None if test_seed else new_seed()
    table = SavedMatch.new(seats, kc_rules(body.rules), body.rounds, seed, fair_seed)
    entry: dict[str, Any] = {"action": "deal", "seed": seed, "seats": [list(s) for s in seats]}
    record = store.create_game(player, KC_KIND, table.to_dict(), finished=False, log=[entry])
    store.prune(player, KC_KIND, retention.keep(runtime))
    return kc_answer(record.id, record.version, table, None)


def kc_play(runtime: Runtime, move: str) -> Rule:
    """The person whose hand is shown plays ``"9H>N"``, moves a pile ``"E>NW"`` or ends the
    turn ``"end"``. Never plays a computer seat (see `kc_computer_step`)."""

    def rule(record: GameRecord) -> tuple[Change, KCMoved]:
        table = _kc_in_phase(record, "play")
        try:
            parsed = kc.ENGINE.parse_move(move)
            table, entries, events = table.played(table.match.state.to_play, parsed, computer=False)
        except kc.MoveError as exc:
            raise invalid(f"move: {exc}") from None
        except kc.IllegalMove as exc:
            raise illegal(exc.reason) from None
        return _kc_change(runtime, table, entries, events)

    return rule


def kc_undo(runtime: Runtime) -> Rule:
    """Take back the last play or pile move of this turn (never a draw, KC-8)."""

    def rule(record: GameRecord) -> tuple[Change, KCMoved]:
        table = _kc_in_phase(record, "play")
        try:
            table = table.undone()
        except kc.IllegalMove as exc:
            raise illegal(exc.reason) from None
        return _kc_change(runtime, table, [{"seat": table.match.state.to_play, "move": "undo"}])

    return rule


def kc_reveal(runtime: Runtime) -> Rule:
    """Show the next person's hand after a hand-off (KC-7)."""

    def rule(record: GameRecord) -> tuple[Change, KCMoved]:
        table = _kc_in_phase(record, "handoff").revealed_to()
        return _kc_change(runtime, table, [{"seat": table.match.state.to_play, "move": "reveal"}])

    return rule


def kc_next_round(runtime: Runtime) -> Rule:
    """Deal the next round of the match (first seat rotates, KC-2)."""

    def rule(record: GameRecord) -> tuple[Change, KCMoved]:
        table = _kc_in_phase(record, "round_over").next_round()
        return _kc_change(runtime, table, [{"action": "next-round", "round": table.match.round}])

    return rule


def kc_computer_step(
    store: Store, runtime: Runtime, player: str, game_id: str, version: int
) -> KCGame:
    """One move of the computer seat to play; the answer's ``step`` says which. Outside
    `play_move`: a strong computer's search must not hold a write transaction open."""
    record = records.load(store, game_id, player, KC_KIND)
    records.check(record, version, kc_render)
    table = _kc_in_phase(record, "computer")
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
    table = table.trimmed(runtime.settings.log_recent)
    saved = records.save(
        store,
        record,
        table.to_dict(),
        kc_render,
        finished=table.match.is_over,
        log=entries,
        result=_kc_result(table),
    )
    MOVES.labels(game=GAME_LABELS[KC_KIND], by="computer").inc()
    return kc_answer(saved.id, saved.version, table, step, events)


def kc_results(store: Store, player: str) -> KCResults:
    """The caller's finished matches, newest first (at most `KC_RESULTS`)."""
    return KCResults(
        matches=[
            KCMatchResult(
                id=r.game_id,
                players=[seat_out(p["kind"], p.get("strength")) for p in r.summary["players"]],
                rounds=r.summary["rounds"],
                totals=r.summary["totals"],
                winners=r.summary["winners"],
                finished_at=r.finished_at,
            )
            for r in store.results(player, KC_KIND, limit=KC_RESULTS)
        ]
    )
