"""`device_view`: the OnlineTable one device may see (docs/online.md). Pure.

Only the engine's `view` for the device's viewer leaves the server (a spectator's view when
it has none), and each event as that viewer may see it (`Event.seen_by`), so no other hand,
no stock order and no other person's drawn card is ever in it. A fair match's view carries
the round's commitment, and its seed and salt once the round is over (docs/fairness.md).

`Views` renders once, sends many (docs/online.md "Render once"): a table at one stored
version looks the same to every device that holds the same seats (or none: a spectator), so
the view is validated against `OnlineTable` and encoded to JSON once per (token, version,
room code, seats, host or not, events since) in a process and the text is shared by every
live connection that sees it and by the HTTP answer of the change. The key holds everything
`device_view` reads of the device, so two devices share a text only when `device_view` would
give them the same view: a seat's hand never reaches another seat's connection. A version
is never changed once stored (every save makes a new one), so an entry never goes stale;
only ``now``, the server's clock, is added at each send (`Rendered.table`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from cardtable import kings_corner as kc
from cardtable.server.online.model import Room
from cardtable.server.online.schema import OnlineTable

VIEWS = 2048
"""Rendered views kept per process (least recently used go first): a few KiB each, so about
10 MiB; 200 busy tables of 3 devices need about 600 at a time."""


@dataclass(frozen=True)
class Rendered:
    """One view as JSON text without its ``now`` (the rest never changes)."""

    version: int
    body: str
    """The `OnlineTable` JSON object without ``now``: ``{"token": ...}``."""

    def table(self, now: float) -> str:
        """The `OnlineTable` JSON with ``now`` (epoch seconds) put first."""
        return f'{{"now":{json.dumps(now)},{self.body[1:]}'

    def message(self, now: float) -> str:
        """The live channel's ``{"type": "table", "table": ...}`` message."""
        return f'{{"type":"table","table":{self.table(now)}}}'


Key = tuple[str, int, str | None, tuple[int, ...], bool, int | None]


class Views:
    """The bounded cache of rendered views of one process (see the module's docstring)."""

    def __init__(self, size: int = VIEWS) -> None:
        self.size = size
        self._views: OrderedDict[Key, Rendered] = OrderedDict()
        self._lock = threading.Lock()
        self.renders = 0
        """Views rendered (cache misses), for tests and the benchmark."""
        self.hits = 0

    def __len__(self) -> int:
        return len(self._views)

    def get(
        self,
        room: Room,
        player: str | None,
        *,
        token: str,
        code: str | None,
        since: int | None = None,
    ) -> Rendered:
        """``device_view`` of ``room`` for ``player``'s device as JSON text, rendered once per
        key. Any thread."""
        mine = tuple(room.seats_of(player))
        host = bool(mine) and player is not None and room.is_host(player)
        key: Key = (token, room.version, code, mine, host, since)
        with self._lock:
            found = self._views.get(key)
            if found is not None:
                self._views.move_to_end(key)
                self.hits += 1
                return found
        view = device_view(room, player, token=token, code=code, now=0.0, since=since)
        body = OnlineTable.model_validate(view).model_dump_json(exclude={"now"})
        rendered = Rendered(room.version, body)
        with self._lock:
            self.renders += 1
            self._views[key] = rendered
            while len(self._views) > self.size:
                self._views.popitem(last=False)
        return rendered


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
