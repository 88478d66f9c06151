"""`device_view`: the OnlineTable one device may see (docs/online.md). Pure.

Only the engine's `view` for the device's viewer leaves the server (a spectator's view when
it has none), and each event as that viewer may see it (`Event.seen_by`), so no other hand,
no stock order and no other person's drawn card is ever in it. A fair match's view carries
the round's commitment, and its seed and salt once the round is over (docs/fairness.md).
"""

from __future__ import annotations

from typing import Any

from cardtable import kings_corner as kc
from cardtable.server.online.model import Room


def device_view(
    room: Room,
    player: str | None,
    *,
    token: str,
    code: str | None,
    now: float,
    since: int | None = None,
) -> dict[str, Any]:
    """The table as ``player``'s device sees it (None or a device without a seat: a
    spectator), with the events of the versions after ``since`` (None: no events)."""
    mine = room.seats_of(player)
    viewer = room.viewer(player)
    game = room.game
    state = None if game is None else game.match.state
    seat = room.to_play
    return {
        "token": token,
        "code": code if room.is_open else None,
        "version": room.version,
        "now": now,
        "phase": room.phase,
        "host": room.host,
        "me": {"seats": mine, "host": room.is_host(player)} if mine and player else None,
        "settings": {
            "players": room.config.players,
            "rules": room.config.rules.to_dict(),
            "rounds": room.config.rounds,
            "turn_timer": room.config.turn_timer,
            "grace": room.config.grace,
            "stand_in": room.config.stand_in,
        },
        "seats": [
            {
                "kind": s.kind,
                "name": s.name,
                "strength": s.strength,
                "local": s.local,
                "connection": s.connection,
                "deadline": s.deadline,
                "stand_in": s.stand_in,
                "cards": None if state is None else len(state.hands[i]),
                "rematch": s.rematch,
            }
            for i, s in enumerate(room.seats)
        ],
        "turn": None if seat is None else {"seat": seat, "deadline": room.turn_deadline},
        "viewer": viewer,
        "view": None if game is None else _view(game.match, viewer),
        "match": None if game is None else _match(game.match),
        "log": [] if game is None else _log(room),
        "spectators": room.spectators,
        "events": [] if since is None else [e.seen_by(viewer) for e in room.events_since(since)],
    }


def _view(m: kc.Match, viewer: int | None) -> dict[str, Any]:
    """The round as ``viewer`` sees it; a fair match adds the round's ``fairness`` exactly as a
    local match does (docs/fairness.md): the commitment from the round's first card, its seed
    and salt once the round is over. The match's own seed, from which every round's is
    derived, never leaves the server."""
    view = kc.ENGINE.view(m.state, viewer)
    fair = m.round_fair
    if fair is not None:
        view["fairness"] = fair.public(m.state.is_over) | {"round": m.round}
    return view


def _match(m: kc.Match) -> dict[str, Any]:
    return {
        "round": m.round,
        "rounds": m.rounds,
        "totals": list(m.totals),
        "results": [
            {
                "penalties": list(r.penalties),
                "winners": list(r.winners),
                "blocked": r.ending == "blocked",
            }
            for r in m.round_results
        ],
        "winners": None if m.winners is None else list(m.winners),
    }


def _log(room: Room) -> list[dict[str, Any]]:
    assert room.game is not None
    entries = room.game.log
    first = room.log_total - len(entries) + 1
    return [{"n": first + i, **e} for i, e in enumerate(entries)]
