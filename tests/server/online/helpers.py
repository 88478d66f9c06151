"""Devices for the online-table tests: one player id each, JSON over HTTP (a TestClient or a
real httpx client), the live channel over a real WebSocket with bounded waits, and a hidden
card check on every answer and every live message.

`Recorder` keeps every table the app saves, by (table key, version), so each answer is
checked against the table as it was at the version the answer shows: the cards hidden from
that device then (the stock, every hand but its viewer's) must not appear in it.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from websockets.sync.client import ClientConnection, connect

from cardtable.server.devices.players import player_key
from cardtable.server.online.codes import table_key
from cardtable.server.online.room import Room, RoomError
from cardtable.server.online.store import RoomRecord

JSON = Any
BASE = "/api/kings-corner/online"
TOKEN = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")
WAIT = 10.0


class Recorder:
    """Every table the app saves, by (key, version). It wraps the online store's save, which
    returns before the live connections are woken, so a version is known here before any
    device can be sent it."""

    def __init__(self, app: FastAPI) -> None:
        store = app.state.online.store
        self.rooms: dict[tuple[str, int], Room] = {}
        self.checked = 0
        save = store.save

        def recording_save(record: RoomRecord, state: JSON, **kw: Any) -> RoomRecord:
            saved: RoomRecord = save(record, state, **kw)
            with contextlib.suppress(RoomError):  # a damaged table is never sent
                self.rooms[(record.key, saved.version)] = Room.from_dict(state, saved.version)
            return saved

        store.save = recording_save

    def hidden(self, key: str, version: int, player: str) -> set[str]:
        room = self.rooms.get((key, version))
        if room is None or room.game is None:
            return set()
        state = room.game.match.state
        viewer = room.viewer(player)
        hidden = {str(c) for c in state.stock}
        if state.is_over:
            return hidden  # every hand is shown once the round is over (OnlineTable.hands)
        for seat, hand in enumerate(state.hands):
            if seat != viewer:
                hidden |= {str(c) for c in hand}
        return hidden

    def scan(self, text: str, table: JSON, player: str, what: str) -> None:
        if not isinstance(table, dict) or "token" not in table or "version" not in table:
            return
        key = table_key(table["token"])
        # PostgreSQL's NOTIFY can wake a device a moment before the save returns here.
        end = time.monotonic() + 5
        while table["version"] > 1 and (key, table["version"]) not in self.rooms:
            assert time.monotonic() < end, f"{what}: version never saved"
            time.sleep(0.01)
        hidden = self.hidden(key, table["version"], player)
        named = {("T" + t[2:] if t.startswith("10") else t) for t in TOKEN.findall(text)}
        quoted = {c for c in hidden if f'"{c}"' in text or f'"{c}>' in text}
        leaked = (named & hidden) | quoted
        assert not leaked, f"{what}: hidden cards in the answer: {sorted(leaked)}"
        self.checked += 1


def _table_of(data: JSON) -> JSON:
    if not isinstance(data, dict):
        return None
    for field in ("table", "current"):
        if isinstance(data.get(field), dict):
            return data[field]
    return data


class Device:
    """One browser: a player id, its requests, its live connections."""

    def __init__(self, http: httpx.Client, recorder: Recorder | None = None) -> None:
        self.http = http
        self.recorder = recorder
        r = http.post("/api/players")
        assert r.status_code == 201, r.text
        self.player_id: str = r.json()["player_id"]
        self.key = player_key(self.player_id)

    def call(self, method: str, path: str, body: JSON = None, status: int = 200) -> JSON:
        r = self.http.request(method, path, json=body, headers={"X-Player-Id": self.player_id})
        assert r.status_code == status, f"{method} {path} -> {r.status_code}: {r.text}"
        data = r.json()
        if self.recorder is not None:
            self.recorder.scan(r.text, _table_of(data), self.key, f"{method} {path}")
        return data

    def create(self, name: str = "Ann", status: int = 201, **body: Any) -> JSON:
        body.setdefault("seats", [{"kind": "me"}, {"kind": "invite"}])
        return self.call("POST", BASE, {"name": name, **body}, status)

    def get(self, token: str, status: int = 200) -> JSON:
        return self.call("GET", f"{BASE}/{token}", status=status)

    def act(self, table: JSON, action: str, status: int = 200, **body: Any) -> JSON:
        body.setdefault("version", table["version"])
        return self.call("POST", f"{BASE}/{table['token']}/{action}", body, status)

    @contextmanager
    def live(self, base: str, token: str, version: int | None = None) -> Iterator[Live]:
        url = base.replace("http://", "ws://") + f"{BASE}/{token}/live"
        with connect(url, open_timeout=WAIT, close_timeout=2) as ws:
            live = Live(ws, self)
            ws.send(json.dumps({"type": "hello", "player": self.player_id, "version": version}))
            yield live


class Live:
    """A device's live connection: every message is kept and scanned."""

    def __init__(self, ws: ClientConnection, device: Device) -> None:
        self.ws = ws
        self.device = device
        self.tables: list[JSON] = []

    def receive(self, timeout: float = WAIT) -> JSON:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        msg = json.loads(text)
        if msg.get("type") == "table":
            self.tables.append(msg["table"])
            if self.device.recorder is not None:
                self.device.recorder.scan(text, msg["table"], self.device.key, "live")
        return msg

    def until(self, test: Callable[[JSON], bool], timeout: float = WAIT) -> JSON:
        """The last table pushed if it passes ``test``, else the first later one that does."""
        if self.tables and test(self.tables[-1]):
            return self.tables[-1]
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, "no such table pushed in time"
            msg = self.receive(left)
            if msg.get("type") == "table" and test(msg["table"]):
                return msg["table"]

    @property
    def last(self) -> JSON:
        return self.tables[-1]
