"""`device_view`: the OnlineTable one device may see (docs/online.md). Pure.

Only the engine's `view` for the device's viewer leaves the server (a spectator's view when
it has none), and each event as that viewer may see it (`Event.seen_by`), so no other hand,
no stock order and no other person's drawn card is ever in it. A fair match's view carries
the round's commitment, and its seed and salt once the round is over (docs/fairness.md).

`Views` renders once, sends many (docs/online.md "Render once"): a table at one stored
version looks the same to every device that holds the same seats (or none: a spectator), so
its view is validated against the `OnlineTable` schema and encoded to JSON once per (token,
version, room code, seats, host or not, events since) in a process, and the text is shared
by every live connection that sees it and by the HTTP answer of the change. The part every
device sees alike (`table_part`: settings, seats, turn, match, log ...) is validated and
encoded once per (token, version, room code) for all of them; only the device's own part
(`seat_part`: ``me``, ``viewer``, its ``view`` and ``events``) once per seat. The keys hold
everything `device_view` reads of the device, so two devices share a text only when
`device_view` would give them the same view: a seat's hand never reaches another seat's
connection. A version is never changed once stored (every save makes a new one), so an
entry never goes stale; only ``now``, the server's clock, is added at each send
(`Rendered.table`).

The parts are encoded straight from the dicts `table_part` and `seat_part` build (`encode`),
which hold exactly the schema's fields with its defaults written out: validating them through
the models cost four to six times as much as encoding them (docs/online.md "Render once").
`Views(check=True)`, which the test suite turns on (``CARDTABLE_CHECK_VIEWS=1``), also
validates every part against its model and raises `ViewMismatch` on any difference, so a new
field or default in the schema that the dicts miss fails the tests, never reaches a device.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, create_model

from cardtable import kings_corner as kc
from cardtable.server.core import jsontext
from cardtable.server.online.models import OnlineTable
from cardtable.server.online.room import Room

VIEWS = 2048
"""Rendered views kept per process (least recently used go first): a few KiB each, so about
10 MiB; 200 busy tables of 3 devices need about 600 at a time."""
SEAT_FIELDS = ("me", "viewer", "view", "events")
"""The fields of `OnlineTable` that depend on the device (`seat_part`)."""


def _part(name: str, fields: list[str]) -> type[BaseModel]:
    """A model of some of `OnlineTable`'s fields, exactly as `OnlineTable` declares them."""
    spec: Any = {f: (OnlineTable.model_fields[f].annotation, OnlineTable.model_fields[f])
                 for f in fields}  # fmt: skip
    part: type[BaseModel] = create_model(name, **spec)
    return part


_SeatPart = _part("SeatPart", list(SEAT_FIELDS))
_TablePart = _part(
    "TablePart", [f for f in OnlineTable.model_fields if f not in SEAT_FIELDS and f != "now"]
)


@dataclass(frozen=True)
class Rendered:
    """One view as JSON text without its ``now`` (the rest never changes)."""

    version: int
    body: str
    """The `OnlineTable` JSON object without ``now``: ``{"me": ...}``."""

    def table(self, now: float) -> str:
        """The `OnlineTable` JSON with ``now`` (epoch seconds) put first."""
        return f'{{"now":{json.dumps(now)},{self.body[1:]}'

    def message(self, now: float) -> str:
        """The live channel's ``{"type": "table", "table": ...}`` message."""
        return f'{{"type":"table","table":{self.table(now)}}}'


TableKey = tuple[str, int, str | None]
Key = tuple[str, int, str | None, tuple[int, ...], bool, int | None]


class ViewMismatch(RuntimeError):
    """A part encoded directly differs from the same part validated by its model."""


def encode(part: dict[str, Any]) -> str:
    """``part`` as compact JSON, as pydantic writes a model (UTF-8 text kept as is)."""
    return jsontext.dumps(part)


def _difference(direct: Any, model: Any, path: str = "") -> str | None:
    """The first path where two decoded JSON values differ (a number's int or float form
    aside: JavaScript reads both alike), or None."""
    if isinstance(direct, dict) and isinstance(model, dict):
        for key in direct.keys() | model.keys():
            if key not in direct or key not in model:
                return f"{path}.{key}"
            found = _difference(direct[key], model[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(direct, list) and isinstance(model, list) and len(direct) == len(model):
        for i, (a, b) in enumerate(zip(direct, model, strict=True)):
            found = _difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    same = direct == model and isinstance(direct, bool) == isinstance(model, bool)
    return None if same else path or "."


def checked(model: type[BaseModel], part: dict[str, Any]) -> str:
    """`encode` of ``part``, first compared with ``model``'s validated JSON of it."""
    text = encode(part)
    expected = json.loads(model.model_validate(part).model_dump_json())
    found = _difference(json.loads(text), expected)
    if found is not None:
        raise ViewMismatch(f"{model.__name__}: {found} differs from the schema's JSON")
    return text


def _direct(model: type[BaseModel], part: dict[str, Any]) -> str:
    """`encode` of ``part`` (the model is for `checked` only)."""
    return encode(part)


class Views:
    """The bounded cache of rendered views of one process (see the module's docstring)."""

    def __init__(self, size: int = VIEWS, *, check: bool = False) -> None:
        self.size = size
        self._encode = checked if check else _direct
        self._views: OrderedDict[Key, Rendered] = OrderedDict()
        self._tables: OrderedDict[TableKey, str] = OrderedDict()
        self._lock = threading.Lock()
        self._rendering = threading.Lock()
        self.renders = 0
        """Device parts rendered (cache misses), for tests and the benchmark."""
        self.tables = 0
        """Shared parts rendered (once per table, version and room code)."""
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
        found = self._hit(key)
        if found is not None:
            return found
        # One render at a time, the key looked up again inside: the move's answer (a thread)
        # and its pushes (the event loop), or two connections of one device, that miss the
        # same key at once render it once between them (a render is about a millisecond).
        with self._rendering:
            found = self._hit(key)
            if found is not None:
                return found
            shared = self._table(room, token, code)
            own = self._encode(_SeatPart, seat_part(room, player, since))
            rendered = Rendered(room.version, f"{own[:-1]},{shared[1:]}")
            with self._lock:
                self.renders += 1
                self._views[key] = rendered
                while len(self._views) > self.size:
                    self._views.popitem(last=False)
        return rendered

    def _hit(self, key: Key) -> Rendered | None:
        """The view kept under ``key``, counted as a hit, or None."""
        with self._lock:
            found = self._views.get(key)
            if found is not None:
                self._views.move_to_end(key)
                self.hits += 1
            return found

    def _table(self, room: Room, token: str, code: str | None) -> str:
        key: TableKey = (token, room.version, code)
        with self._lock:
            found = self._tables.get(key)
            if found is not None:
                self._tables.move_to_end(key)
                return found
        text = self._encode(_TablePart, table_part(room, token=token, code=code))
        with self._lock:
            self.tables += 1
            self._tables[key] = text
            while len(self._tables) > self.size // 2:
                self._tables.popitem(last=False)
        return text


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
    view = table_part(room, token=token, code=code)
    view["now"] = now
    view.update(seat_part(room, player, since))
    return {name: view[name] for name in OnlineTable.model_fields}


def table_part(room: Room, *, token: str, code: str | None) -> dict[str, Any]:
    """What every device sees alike of ``room`` (every field but ``now`` and `SEAT_FIELDS`)."""
    game = room.game
    state = None if game is None else game.match.state
    seat = room.to_play
    return {
        "token": token,
        "code": code if room.is_open else None,
        "version": room.version,
        "phase": room.phase,
        "host": room.host,
        "settings": {
            "players": room.config.players,
            "rules": room.config.rules.to_dict(),
            "rounds": room.config.rounds,
            "turn_timer": room.config.turn_timer,
            "grace": room.config.grace,
            "stand_in": room.config.stand_in,
            "pace": room.config.pace,
            "turn_seconds": room.config.turn_timer,
            "quick": room.config.quick,
            "rated": room.config.rated,
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
                "missed": s.missed,
            }
            for i, s in enumerate(room.seats)
        ],
        "turn": None if seat is None else {"seat": seat, "deadline": room.turn_deadline},
        "match": None if game is None else _match(game.match),
        "log": [] if game is None else _log(room),
        "notes": [dict(n) for n in room.notes],
        "hands": _hands(state),
        "spectators": room.spectators,
    }


def seat_part(room: Room, player: str | None, since: int | None) -> dict[str, Any]:
    """What ``player``'s device sees of ``room`` that another device may not (`SEAT_FIELDS`):
    its seats, whose hand it shows, that hand's view and the events since ``since``."""
    mine = room.seats_of(player)
    viewer = room.viewer(player)
    game = room.game
    return {
        "me": {"seats": mine, "host": room.is_host(player)} if mine and player else None,
        "viewer": viewer,
        "view": None if game is None else _view(game.match, viewer),
        "events": [] if since is None else [e.seen_by(viewer) for e in room.events_since(since)],
    }


def _view(m: kc.Match, viewer: int | None) -> dict[str, Any]:
    """The round as ``viewer`` sees it; a fair match adds the round's ``fairness`` exactly as a
    local match does (docs/fairness.md): the commitment from the round's first card, its seed
    and salt once the round is over. The match's own seed, from which every round's is
    derived, never leaves the server."""
    view = kc.ENGINE.view(m.state, viewer)
    fair = m.round_fair
    view["fairness"] = None if fair is None else fair.public(m.state.is_over) | {"round": m.round}
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


def _hands(state: kc.State | None) -> list[list[str]] | None:
    """Every hand's cards once the round is over (each seat's own view of it then); before
    that no hand but the viewer's own ever leaves the server (SPEC C-8)."""
    if state is None or not state.is_over:
        return None
    return [list(kc.ENGINE.view(state, i)["hand"]) for i in range(state.players)]


def _log(room: Room) -> list[dict[str, Any]]:
    assert room.game is not None
    entries = room.game.log
    first = room.log_total - len(entries) + 1
    return [{"n": first + i, "by": None, **e} for i, e in enumerate(entries)]
