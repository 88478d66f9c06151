"""Every GET route and the live channel, for one player holding every kind of secret at once
(SPEC C-8, SE-1; issue 26): an unfinished Poker Squares deal, an unfinished daily deal, a
Kings Corner match mid-round, an online table mid-round and a Poker Squares table mid-deal
(docs/ps-tables.md: the cards after the one on show, the seed, and the other player's grid).

The routes are not listed here: they are read from the app's OpenAPI schema, so a route added
later is scanned without anyone remembering to add it. Each path parameter is filled from the
player's own ids (every game id, the table's token and room code, each table variant, round
numbers); a parameter the scanner cannot fill fails the test, and so does a GET route the
app serves that is neither in the schema nor in the small `SKIPPED` list (each with its
reason). Every answer (any status) is checked for:

- a card hidden in one of the games and shown in none (the coming cards of both deals, the
  stock and the other hands of both matches), as the API writes cards (``"9H"``, ``"9H>N"``,
  ``10`` or ``T``);
- three hidden cards in a row in their hidden order (a dealing order or a stock given away);
- a seed or salt before it is due: the deal's, the day's (kept in the daily row), the
  match's secret and every round seed still to come, the integer seeds of both matches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute
from starlette.testclient import TestClient

from cardtable import poker_squares as ps
from cardtable.fairness import round_fair
from cardtable.kings_corner import Match
from cardtable.server.daily.store import DailyStore
from cardtable.server.devices.players import player_key
from cardtable.server.games.saved_match import SavedMatch
from cardtable.server.online.codes import table_key
from cardtable.server.online.room import Room
from cardtable.server.pstables.room import Room as PSRoom
from tests.server.helpers import Api

BASE = "/api/kings-corner/online"
TOKEN = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")

SKIPPED: dict[str, str] = {
    "/openapi.json": "the schema itself: the same text for every caller, no player data",
    "/": "a page: test_hidden_scan.check_static scans every page and asset",
    "/{page}.html": "pages: test_hidden_scan.check_static scans every page and asset",
    "/manifest.webmanifest": "the app's manifest: one text for every caller, made from the "
    "release and the page names, no player data (tests/web/test_app_install.py)",
    "/sw.js": "the service worker's script: one file for every caller with the release in it, "
    "no player data (tests/web/test_app_install.py)",
}
"""GET routes the app serves that this scanner deliberately does not call."""
LIVE = f"{BASE}/{{token}}/live"
"""The live channel: not a GET route, read by `test_the_live_channel_shows_no_secret`."""
PS_BASE = "/api/poker-squares/tables"
PS_LIVE = f"{PS_BASE}/{{token}}/live"
"""The Poker Squares tables' live channel (`test_the_ps_live_channel_shows_no_secret`)."""


@dataclass
class Secrets:
    """What the player must not see now, from the store (the truth, not the answers)."""

    hidden: set[str] = field(default_factory=set)
    visible: set[str] = field(default_factory=set)
    orders: list[list[str]] = field(default_factory=list)
    strings: dict[str, str] = field(default_factory=dict)

    def add_match(self, what: str, match: Match, viewer: int | None) -> None:
        state = match.state
        self.visible |= {str(c) for pile in state.piles.values() for c in pile}
        lists = [list(state.stock)] + [h for i, h in enumerate(state.hands) if i != viewer]
        if viewer is not None:
            self.visible |= {str(c) for c in state.hands[viewer]}
        for cards in lists:
            self.hidden |= {str(c) for c in cards}
            self.orders.append([str(c) for c in cards])
        self.strings[f"{what}: integer match seed"] = str(match.seed)
        if match.fair_seed is not None:
            self.strings[f"{what}: match secret"] = match.fair_seed
            first = match.round + (1 if state.is_over else 0)
            for k in range(first, match.rounds + 1):
                fair = round_fair(match.fair_seed, k)
                self.strings[f"{what}: round {k} seed"] = fair.seed
                self.strings[f"{what}: round {k} salt"] = fair.salt

    def add_deal(self, what: str, game: ps.Game) -> None:
        shown = game.placed + (0 if game.is_over else 1)
        self.visible |= {str(c) for c in game.cards[:shown]}
        coming = [str(c) for c in game.cards[shown:]]
        self.hidden |= set(coming)
        self.orders.append(coming)
        if game.fair is not None:
            self.strings[f"{what}: seed"] = game.fair.seed
            self.strings[f"{what}: salt"] = game.fair.salt

    @property
    def cards(self) -> set[str]:
        """Hidden in some game and shown in none (a card on show in one game may be hidden
        in another: naming it proves nothing)."""
        return self.hidden - self.visible

    def runs(self) -> list[str]:
        out = []
        for cards in self.orders:
            for a, b, c in zip(cards, cards[1:], cards[2:], strict=False):
                out += [f'"{a}","{b}","{c}"', f'"{a}", "{b}", "{c}"']
        return out

    def leaks(self, text: str) -> list[str]:
        named = {("T" + t[2:] if t.startswith("10") else t) for t in TOKEN.findall(text)}
        found = [f"hidden card {c}" for c in sorted(named & self.cards)]
        found += [f"hidden order {r}" for r in self.runs() if r in text]
        found += [what for what, s in self.strings.items() if s in text]
        return found


@dataclass
class Player:
    api: Api
    bob: Api
    deal: str
    daily: str
    match: str
    token: str
    code: str
    day: str
    ps_token: str
    ps_code: str
    ps_other_row: str
    """Bob's grid row at the Poker Squares table, as JSON (another player's grid)."""

    @property
    def key(self) -> str:
        assert self.api.player_id is not None
        return player_key(self.api.player_id)

    def secrets(self) -> Secrets:
        app = self.api.client.app
        store = app.state.runtime.store  # type: ignore[attr-defined]
        found = Secrets()
        for what, game_id in (("deal", self.deal), ("daily", self.daily)):
            record = store.load_game(game_id, self.key)
            assert record is not None and not record.finished
            found.add_deal(what, ps.Game.from_dict(record.state))
        record = store.load_game(self.match, self.key)
        assert record is not None and not record.finished
        table = SavedMatch.from_dict(record.state)
        found.add_match("match", table.match, table.viewer)
        room_record = app.state.online.store.load(table_key(self.token))  # type: ignore[attr-defined]
        room = Room.from_dict(room_record.state, room_record.version)
        assert room.game is not None and not room.game.match.state.is_over
        found.add_match("online table", room.game.match, room.viewer(self.key))
        deal = DailyStore(store).stored(self.day, "american")
        assert deal is not None and deal.fair is not None
        ps_record = app.state.pstables.store.read(table_key(self.ps_token))  # type: ignore[attr-defined]
        ps_room = PSRoom.from_dict(ps_record.row.state)
        assert ps_room.card is not None
        cards = [str(c) for c in ps_room.cards()]
        found.visible |= set(cards[: ps_room.card + 1])
        found.hidden |= set(cards[ps_room.card + 1 :])
        found.orders.append(cards[ps_room.card + 1 :])
        found.strings["ps table: seed"] = ps_room.fair.seed
        found.strings["ps table: salt"] = ps_room.fair.salt
        found.strings["Bob's grid at the ps table"] = self.ps_other_row
        found.strings["the day's seed"] = deal.fair.seed
        found.strings["the day's salt"] = deal.fair.salt
        assert len(found.cards) >= 10 and len(found.strings) >= 10, found
        return found


def make_player(client: TestClient) -> Player:
    api, bob = Api.new_player(client), Api.new_player(client)
    deal = api.ps_new(table="american", target="normal")
    for i in range(6):
        deal = api.ps(deal, "moves", row=i // 5, col=i % 5)
    match = api.kc_new(
        seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}], rounds=3
    )
    for _ in range(40):  # to the person's turn, mid-round
        if match["phase"] == "play":
            break
        match = api.kc(match, "computer-step")
    assert match["phase"] == "play" and match["match"]["round"] == 1
    created = api.post(BASE, {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}]}, 201)
    joined = bob.post(
        f"{BASE}/{created['token']}/join", {"name": "Bob", "version": created["table"]["version"]}
    )
    started = api.post(f"{BASE}/{created['token']}/start", {"version": joined["version"]})
    assert started["phase"] == "play"
    # The daily last: dealing it makes it the player's current Poker Squares game.
    ps_made = api.post(PS_BASE, {"name": "Ann"}, 201)
    ps_token = ps_made["token"]
    bob.post(f"{PS_BASE}/{ps_token}/join", {"name": "Bob"})
    first = api.post(f"{PS_BASE}/{ps_token}/start", {})["card"]
    bob.post(f"{PS_BASE}/{ps_token}/place", {"card": 0, "cell": "e5"})
    api.post(f"{PS_BASE}/{ps_token}/place", {"card": 0, "cell": "a1"})
    api.post(f"{PS_BASE}/{ps_token}/place", {"card": 1, "cell": "b1"})  # Bob has not yet
    other_row = json.dumps([None, None, None, None, first["card"]], separators=(",", ":"))
    played = api.post("/api/daily/american/play", status=201)
    daily = played["game"]
    for i in range(4):
        daily = api.ps(daily, "moves", row=4, col=i)
    return Player(api, bob, deal["id"], daily["id"], match["id"], created["token"],
                  created["code"], played["day"], ps_token, ps_made["code"],
                  other_row)  # fmt: skip


@pytest.fixture
def player(client: TestClient) -> Player:
    return make_player(client)


def _values(name: str, schema: dict[str, Any], player: Player) -> list[str]:
    """The values to try for a path parameter, from the player's own ids."""
    if "enum" in schema:
        return [str(v) for v in schema["enum"]]
    known = {
        "game_id": [player.deal, player.daily, player.match],
        "token": [player.token, player.ps_token],
        "code": [player.code, player.ps_code],
        "number": ["1", "2"],
    }
    assert name in known, f"the scanner cannot fill path parameter {name!r}: teach it"
    return known[name]


def _calls(app_schema: dict[str, Any], player: Player) -> Iterator[tuple[str, str]]:
    """(route, URL) for every GET route of the schema, every filling of its parameters."""
    components = app_schema.get("components", {}).get("schemas", {})
    for path, operations in app_schema["paths"].items():
        op = operations.get("get")
        if op is None or path in SKIPPED:
            continue
        names, choices, queries = [], [], [""]
        for p in op.get("parameters", []):
            schema = p.get("schema", {})
            if "$ref" in schema:
                schema = components[schema["$ref"].rsplit("/", 1)[1]]
            if p["in"] == "path":
                names.append(p["name"])
                choices.append(_values(p["name"], schema, player))
            elif p["in"] == "query":
                # A required one is always sent; an optional one both left out and sent.
                value = {
                    "day": player.day,
                    "month": player.day[:7],  # the daily archive's calendar
                    "origin": "http://testserver",
                }.get(p["name"])
                assert value is not None, f"the scanner cannot fill {path}?{p['name']}"
                sent = [f"{q}{'&' if q else '?'}{p['name']}={value}" for q in queries]
                queries = sent if p.get("required") else queries + sent
            else:
                assert p["in"] == "header" and p["name"].lower() == "x-player-id", (path, p)
        for filled in product(*choices):
            url = path
            for name, value in zip(names, filled, strict=True):
                url = url.replace("{" + name + "}", value)
            for query in queries:
                yield path, url + query


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_every_get_route_is_in_the_schema_or_skipped_with_a_reason(client: TestClient) -> None:
    schema_paths = set(client.app.openapi()["paths"])  # type: ignore[attr-defined]
    served = set()
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, APIWebSocketRoute):
            assert route.path in (LIVE, PS_LIVE), f"a live channel not scanned: {route.path}"
            continue
        path = getattr(route, "path", None)
        methods = getattr(route, "methods", None) or set()
        if path and "GET" in methods:
            served.add(path)
            if isinstance(route, APIRoute) and route.include_in_schema:
                assert path in schema_paths
    unscanned = served - schema_paths - set(SKIPPED)
    assert not unscanned, f"GET routes neither scanned nor skipped: {sorted(unscanned)}"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_no_get_route_shows_a_hidden_card_or_a_secret(client: TestClient, player: Player) -> None:
    secrets = player.secrets()
    seen: dict[str, set[int]] = {}
    failures = []
    for route, url in _calls(client.app.openapi(), player):  # type: ignore[attr-defined]
        r = client.get(url, headers=player.api.headers)
        assert r.status_code not in (401, 405, 422), f"GET {url} -> {r.status_code}: {r.text}"
        seen.setdefault(route, set()).add(r.status_code)
        failures += [f"GET {url} ({r.status_code}): {leak}" for leak in secrets.leaks(r.text)]
    assert not failures, "\n".join(failures)
    # Every route was reached, and with a real object at least once (not only 404s).
    schema = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    expected = {p for p, ops in schema.items() if "get" in ops and p not in SKIPPED}
    assert set(seen) == expected
    found = {route for route, codes in seen.items() if codes - {404}}
    assert found == expected, f"only 404 for {sorted(expected - found)}"
    assert 200 in seen["/api/stats/export"]


def test_the_live_channel_shows_no_secret(client: TestClient, player: Player) -> None:
    """The table's pushes over the live channel, before and after a move, and a reaction."""
    texts = []
    with client.websocket_connect(LIVE.replace("{token}", player.token)) as ws:
        ws.send_text(json.dumps({"type": "hello", "player": player.api.player_id, "version": None}))
        first = ws.receive_text()
        assert json.loads(first)["type"] == "table"
        texts.append((first, player.secrets()))
        table = json.loads(first)["table"]
        mover = player.api if table["turn"]["seat"] in table["me"]["seats"] else player.bob
        current = mover.get(f"{BASE}/{player.token}")
        moved = mover.post(
            f"{BASE}/{player.token}/moves", {"move": "end", "version": current["version"]}
        )
        for _ in range(10):
            text = ws.receive_text()
            msg = json.loads(text)
            if msg["type"] == "table":
                texts.append((text, player.secrets()))
                if msg["table"]["version"] >= moved["version"]:
                    break
        else:
            raise AssertionError("the move was never pushed")
        # A reaction from Bob's seat (online/reactions.py): its four keys, nothing else.
        reactions = f"{BASE}/{player.token}/reactions"
        said = player.bob.post(reactions, {"key": "well_played"}, status=201)
        for _ in range(10):
            text = ws.receive_text()
            if json.loads(text)["type"] == "reaction":
                break
        else:
            raise AssertionError("the reaction never arrived")
        assert json.loads(text) == said and set(said) == {"type", "seat", "key", "at"}
        texts.append((text, player.secrets()))
    for text, secrets in texts:
        assert not secrets.leaks(text), secrets.leaks(text)


def test_the_ps_live_channel_shows_no_secret(client: TestClient, player: Player) -> None:
    """A Poker Squares table's pushes to Ann before and after Bob places the card on show:
    no later card, no seed, not Bob's grid (tests/server/pstables/test_hidden.py scans every
    message of whole deals)."""
    texts = []
    with client.websocket_connect(PS_LIVE.replace("{token}", player.ps_token)) as ws:
        ws.send_text(json.dumps({"type": "hello", "player": player.api.player_id, "version": None}))
        texts.append((ws.receive_text(), player.secrets()))
        assert json.loads(texts[0][0])["table"]["card"]["index"] == 1
        player.bob.post(f"{PS_BASE}/{player.ps_token}/place", {"card": 1, "cell": "d5"})
        for _ in range(10):
            text = ws.receive_text()
            texts.append((text, player.secrets()))
            if json.loads(text)["table"]["card"]["index"] == 2:
                break
        else:
            raise AssertionError("the next card was never pushed")
    for text, secrets in texts:
        assert json.loads(text)["type"] == "table"
        assert not secrets.leaks(text), secrets.leaks(text)
