"""Devices for the Poker Squares table tests: one player id each, JSON over HTTP, and the
hidden-information scan of everything a device was sent (`scan`)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.sync.client import connect

from cardtable.fairness import fair_deck

JSON = Any
WAIT = 10.0
BASE = "/api/poker-squares/tables"
CARD = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")


@dataclass
class Device:
    client: httpx.Client
    name: str
    player_id: str = ""
    sent: list[str] = field(default_factory=list)
    """Every table text this device was answered or sent (for `scan`)."""

    def __post_init__(self) -> None:
        r = self.client.post("/api/players")
        assert r.status_code == 201, r.text
        self.player_id = r.json()["player_id"]

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Player-Id": self.player_id}

    def call(self, method: str, path: str, body: JSON = None, status: int = 200) -> JSON:
        r = self.client.request(method, path, json=body, headers=self.headers)
        assert r.status_code == status, f"{method} {path} -> {r.status_code}: {r.text}"
        if status < 300:
            data = r.json()
            table = data.get("table", data)
            if isinstance(table, dict) and "phase" in table:
                self.sent.append(json.dumps(table))
            return data
        return r.json()

    def create(self, status: int = 201, **body: Any) -> JSON:
        return self.call("POST", BASE, {"name": self.name, **body}, status)

    def act(self, token: str, action: str, status: int = 200, **body: Any) -> JSON:
        return self.call("POST", f"{BASE}/{token}/{action}", body, status)

    def get(self, token: str, status: int = 200) -> JSON:
        return self.call("GET", f"{BASE}/{token}", status=status)

    def hello(self) -> str:
        return json.dumps({"type": "hello", "player": self.player_id, "version": None})


class Live:
    """A device's live connection (a real WebSocket): its hello, then every table it is sent
    (kept in the device's ``sent`` for `scan`)."""

    def __init__(self, base: str, token: str, device: Device) -> None:
        url = base.replace("http", "ws", 1) + f"{BASE}/{token}/live"
        self.device = device
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(url, open_timeout=WAIT, close_timeout=2))
        self.ws.send(device.hello())
        self.table: JSON = None

    def next(self) -> JSON:
        text = self.ws.recv(timeout=WAIT)
        assert isinstance(text, str)
        message = json.loads(text)
        assert message["type"] == "table" and set(message) == {"type", "table"}
        self.device.sent.append(text)
        self.table = message["table"]
        return self.table

    def until(self, check: Callable[[JSON], bool]) -> JSON:
        """Read tables until one passes ``check`` (each must come within `WAIT` seconds)."""
        while True:
            table = self.next()
            if check(table):
                return table

    def close(self) -> None:
        self._stack.close()


def cell(n: int) -> str:
    return f"{'abcde'[n % 5]}{n // 5 + 1}"


def table_of(devices: list[Device], **settings: Any) -> str:
    """A table the first device hosts, every other device seated; its token (lobby)."""
    token: str = devices[0].create(**settings)["token"]
    for d in devices[1:]:
        d.act(token, "join", name=d.name)
    return token


def scan(texts: list[str], seat: int | None, result: JSON, seed: str) -> int:
    """Check every table a device (at ``seat``) was sent before the end against the deal's
    end (``result``): no card after the one on show, no grid but its own (each of its cards
    where its own final grid has it), no result, no seed or salt. How many were checked."""
    cards = [str(c) for c in fair_deck(seed)[:25]]
    assert result["cards"] == cards
    mine = next((r["game"]["grid"] for r in result["ranking"] if r["seat"] == seat), None)
    checked = 0
    for text in texts:
        table = json.loads(text)
        table = table.get("table", table)
        if table["phase"] == "over":
            continue
        checked += 1
        assert table["result"] is None and table["fairness"]["seed"] is None
        assert seed not in text
        shown = -1 if table["card"] is None else table["card"]["index"]
        named = {("T" + t[2:] if t.startswith("10") else t) for t in CARD.findall(text)}
        later = set(cards[shown + 1 :])
        assert not named & later, f"later cards sent: {sorted(named & later)}"
        assert text.count('"grid"') <= 1, "more than one grid sent"
        for entry in table["log"]:
            assert entry["seat"] == seat or entry["cell"] is None, "another grid's cell sent"
        game = table["game"]
        if game is None:
            assert seat is None or table["phase"] == "lobby"
            continue
        for r, row in enumerate(game["grid"]):
            for c, card in enumerate(row):
                assert card is None or mine[r][c] == card, f"a grid not this device's: {card}"
    return checked
