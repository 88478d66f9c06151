"""Hidden-information scanner (SPEC C-8): many whole games of both kinds through HTTP, with
undo, reloads, "continue", stale versions, replays, hints, same-device play, computer
turns and a second device of the same record (a transfer code) with the device endpoints.
After every answer the scanner reads the saved state straight from the store, works
out which cards that caller could not see at that moment, and checks that none appears in the
raw body (as a quoted JSON string ``"TH"`` or inside a move such as ``"TH>N"``). Every static
page and asset is then checked for the card lists of the live games."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable import poker_squares as ps
from cardtable.fairness import round_fair
from cardtable.server.devices.players import player_key
from cardtable.server.devices.store import DeviceStore
from cardtable.server.games.saved_match import SavedMatch
from tests.server.helpers import Api
from tests.server.kc_driver import simple_person
from tests.support.tiers import Sample

from .test_headers import site_paths

PS_GAMES = 20
KC_MATCHES = 15
# A card as the API writes it: alone in a string or in a move ("TH>N"). Ids are URL-safe
# base64, so "-" and "_" count as part of a word: "x-QH_y" in a game id is not a card.
TOKEN = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")
SEAT_MIXES: list[tuple[list[str], dict[str, Any], int]] = [
    (["human", "easy"], {"preset": "standard"}, 1),
    (["human", "normal"], {"preset": "draw-last"}, 1),
    (["human", "human"], {"preset": "standard"}, 1),  # two people on one device
    (["human", "easy", "easy"], {"preset": "simple"}, 1),
    (["human", "human", "normal"], {"preset": "standard"}, 1),
    (["human", "easy", "normal", "easy"], {"preset": "draw-last"}, 1),
    (["human", "human", "human"], {"preset": "simple"}, 1),
    (["human", "strong"], {"preset": "standard"}, 1),
    (["human", "human", "easy", "easy"], {"preset": "standard"}, 1),
    (["human", "easy"], {"preset": "standard"}, 3),
    (["human", "human", "human", "human"], {"preset": "draw-last"}, 1),
    (
        ["human", "normal", "human"],
        {"draw": "last", "pile_moves": False, "kings": "first", "dealt_kings": "corner"},
        1,
    ),
    (["human", "easy", "strong"], {"preset": "simple"}, 1),
    (["human", "human"], {"preset": "simple"}, 3),
    (["human", "normal", "normal", "normal"], {"preset": "standard"}, 1),
]


CREATE = {"/api/poker-squares/games": "ps", "/api/kings-corner/games": "kc"}


class Scanner(Api):
    """An `Api` that checks every raw answer against what the caller may see right now."""

    def __init__(self, client: TestClient, player_id: str | None) -> None:
        super().__init__(client, player_id)
        self.checked = 0
        self.game: tuple[str, str] | None = None  # (kind, id) the next answers are about

    def call(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        kwargs: dict[str, Any] = {"headers": self.headers}
        if body is not None:
            kwargs["json"] = body
        r = self.client.request(method, path, **kwargs)
        assert r.status_code == status, f"{method} {path} -> {r.status_code}: {r.text}"
        data = r.json()
        if r.status_code == 201 and path in CREATE:  # the answers are now about this game
            self.game = (CREATE[path], data["id"])
        self.scan(r.text, f"{method} {path}")
        return data

    def player(self) -> str:
        """The record this device's credential belongs to (a transferred device's id is
        not the player key)."""
        store = self.client.app.state.runtime.store  # type: ignore[attr-defined]
        assert self.player_id is not None
        found = DeviceStore(store).resolve(player_key(self.player_id))
        assert found is not None
        return found.player

    def hidden(self) -> set[str]:
        return {c for cards in self.hidden_lists() for c in cards}

    def hidden_lists(self) -> list[list[str]]:
        """The hidden cards in their saved order: the coming cards of a deal; the stock and
        every hand but the viewer's."""
        if self.game is None:
            return []
        kind, game_id = self.game
        store = self.client.app.state.runtime.store  # type: ignore[attr-defined]
        record = store.load_game(game_id, self.player())
        assert record is not None
        if kind == "ps":
            game = ps.Game.from_dict(record.state)
            return [[str(c) for c in game.cards[game.placed + 1 :]]]
        table = SavedMatch.from_dict(record.state)
        state = table.match.state
        hidden = [[str(c) for c in state.stock]]
        for seat, hand in enumerate(state.hands):
            if seat != table.viewer:
                hidden.append([str(c) for c in hand])
        return hidden

    def hidden_secrets(self) -> list[str]:
        """Fair seeds and salts not yet revealed (docs/fairness.md): a deal's until it is
        over; a match's own seed always; a round's until that round is over."""
        if self.game is None:
            return []
        kind, game_id = self.game
        store = self.client.app.state.runtime.store  # type: ignore[attr-defined]
        record = store.load_game(game_id, self.player())
        assert record is not None
        if kind == "ps":
            game = ps.Game.from_dict(record.state)
            fair = None if game.is_over else game.fair
            return [] if fair is None else [fair.seed, fair.salt]
        match = SavedMatch.from_dict(record.state).match
        if match.fair_seed is None:
            return []
        first = match.round + (1 if match.state.is_over else 0)
        later = [round_fair(match.fair_seed, k) for k in range(first, match.rounds + 1)]
        return [match.fair_seed, *(s for f in later for s in (f.seed, f.salt))]

    def scan(self, text: str, what: str) -> None:
        hidden = self.hidden()
        named = {("T" + t[2:] if t.startswith("10") else t) for t in TOKEN.findall(text)}
        quoted = {c for c in hidden if f'"{c}"' in text or f'"{c}>' in text}
        leaked = (named & hidden) | quoted
        assert not leaked, f"{what}: hidden cards in the answer: {sorted(leaked)}"
        secrets = [s for s in self.hidden_secrets() if s in text]
        assert not secrets, f"{what}: a fair seed or salt before its deal or round is over"
        self.checked += 1


def live_hidden_lists(scanner: Scanner) -> list[str]:
    """Fragments that would give a hidden card list away: three hidden cards in a row, in
    their hidden order. (Two in a row is not enough: the home page's four sample cards
    "AS", "KH", "TD", "7C" are two in a row of some live deal about once in a few hundred
    stocks, by chance; three in a row, about once in a hundred thousand.)"""
    runs = []
    for cards in scanner.hidden_lists():
        for a, b, c in zip(cards, cards[1:], cards[2:], strict=False):
            runs += [f'"{a}","{b}","{c}"', f'"{a}", "{b}", "{c}"', f"{a}{b}{c}", f"{a} {b} {c}"]
    return runs


def play_poker_squares(scanner: Scanner, rng: random.Random, table: str) -> dict[str, Any]:
    game = scanner.ps_new(table=table, target=rng.choice(["easy", "normal", "hard"]))
    hinted = False
    for _ in range(80):
        v = game["view"]
        if v["is_over"]:
            break
        roll = rng.random()
        if roll < 0.12 and v["can_undo"]:
            game = scanner.ps(game, "undo")
        elif roll < 0.16 and not hinted:
            game, hinted = scanner.ps(game, "hint")["game"], True
        elif roll < 0.22:
            game = scanner.get(f"/api/poker-squares/games/{game['id']}")  # a reload
            scanner.get("/api/continue")
        elif roll < 0.26:
            scanner.ps(game, "moves", status=409, version=game["version"] + 1, row=0, col=0)
        else:
            empty = [(r, c) for r in range(5) for c in range(5) if v["grid"][r][c] is None]
            row, col = rng.choice(empty)
            if roll < 0.3:  # an occupied cell, refused
                full = [(r, c) for r in range(5) for c in range(5) if v["grid"][r][c]]
                if full:
                    scanner.ps(game, "moves", status=409, row=full[0][0], col=full[0][1])
            game = scanner.ps(game, "moves", row=row, col=col)
    return game


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_poker_squares_games_never_show_coming_cards(client: TestClient, sample: Sample) -> None:
    rng = sample.rng("ps-scan")
    games = sample.size(fast=5, deep=PS_GAMES)
    scanner = Scanner.new_player(client)
    assert isinstance(scanner, Scanner)
    finished = None
    for i in range(games):
        if finished is not None and i % 5 == 4:
            scanner.ps_new(replay_of=finished["id"])
        end = play_poker_squares(scanner, rng, "american" if i % 2 else "british")
        if end["view"]["is_over"]:
            finished = end
        scanner.get("/api/poker-squares/scores")
    # A live deal half played: no static page or asset carries its coming cards.
    game = scanner.ps_new()
    scanner.game = ("ps", game["id"])
    for i in range(10):
        game = scanner.ps(game, "moves", row=i // 5, col=i % 5)
    check_static(client, scanner)
    assert scanner.checked >= games * 25


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_kings_corner_matches_never_show_hidden_cards(client: TestClient, sample: Sample) -> None:
    rng = sample.rng("kc-scan")
    # The fast tier: three of the seat mixes, chosen by the run seed; the deep tier all.
    mixes = sample.pick(SEAT_MIXES[:KC_MATCHES], fast=3, salt="kc-mixes")
    scanner = Scanner.new_player(client)
    assert isinstance(scanner, Scanner)
    for seats, rules, rounds in mixes:
        body = [
            {"kind": "human"} if s == "human" else {"kind": "computer", "strength": s}
            for s in seats
        ]
        game = scanner.kc_new(seats=body, rules=rules, rounds=rounds)
        play_kings_corner(scanner, game, rng)
        scanner.get("/api/kings-corner/results")
    game = scanner.kc_new(seats=[{"kind": "human"}, {"kind": "human"}])
    scanner.game = ("kc", game["id"])
    check_static(client, scanner)
    assert scanner.checked >= len(mixes) * 20


def play_kings_corner(scanner: Scanner, game: dict[str, Any], rng: random.Random) -> None:
    for _ in range(3000):
        phase = game["phase"]
        if phase == "match_over":
            return
        roll = rng.random()
        if roll < 0.05:
            game = scanner.get(f"/api/kings-corner/games/{game['id']}")  # a reload
            scanner.get("/api/continue")
        elif roll < 0.08:
            scanner.kc(game, "undo", status=409, version=game["version"] + 1)
        elif phase == "round_over":
            game = scanner.kc(game, "next-round")
        elif phase == "computer":
            game = scanner.kc(game, "computer-step")
        elif phase == "handoff":
            if roll < 0.15:  # acting before the reveal is refused and shows nothing
                scanner.kc(game, "moves", status=409, move="end")
            game = scanner.kc(game, "reveal")
        elif game["view"]["can_undo"] and roll < 0.2:
            game = scanner.kc(game, "undo")
        else:
            game = scanner.kc(game, "moves", move=simple_person(game))
    raise AssertionError("the match did not end")


def check_static(client: TestClient, scanner: Scanner) -> None:
    fragments = live_hidden_lists(scanner)
    hidden = scanner.hidden()
    assert hidden
    for path in site_paths():
        r = client.get(path)
        assert r.status_code == 200, path
        text = r.content.decode("utf-8", "replace")
        assert not any(f in text for f in fragments), path
        if path.endswith((".html", ".json")):
            # Pages and translations name no card of a live game as a value.
            quoted = {c for c in hidden if f'"{c}"' in text}
            assert len(quoted) < 4, (path, sorted(quoted))


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_second_device_of_the_record_sees_only_what_its_player_may(
    client: TestClient, sample: Sample
) -> None:
    """A device made by a transfer code plays the record's match and deal to the end; every
    answer, and every answer of the device endpoints on both devices, is scanned."""
    rng = sample.rng("second-device")
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runtime.stored_limits["transfer"] = None  # more codes than a person makes
    owner = Scanner.new_player(client)
    assert isinstance(owner, Scanner)
    match = owner.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "normal"}])
    code = owner.post("/api/devices/transfer", status=201)["code"]
    claimed = owner.post("/api/devices/claim", {"code": code}, status=201)
    phone = Scanner(client, claimed["player_id"])
    assert phone.player() == owner.player()
    phone.game = ("kc", match["id"])

    def devices_endpoints(scanner: Scanner) -> None:
        scanner.get("/api/devices")
        scanner.call("PATCH", "/api/devices/current", {"name": "Phone"})
        scanner.post("/api/devices/recovery", status=201)
        scanner.post("/api/devices/transfer", status=201)

    devices_endpoints(phone)
    phone.get("/api/continue")  # (only Kings Corner so far: the scan knows one game at a time)
    play_kings_corner(phone, phone.get(f"/api/kings-corner/games/{match['id']}"), rng)
    # (The deal is played with no unfinished match: "continue" then shows one game.)
    deal = play_poker_squares(phone, rng, "british")
    owner.game = phone.game
    owner.get(f"/api/poker-squares/games/{deal['id']}")
    devices_endpoints(owner)
    live = owner.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}])
    phone.game = owner.game = ("kc", live["id"])
    phone.get(f"/api/kings-corner/games/{live['id']}")
    devices_endpoints(phone)
    devices_endpoints(owner)
    half = phone.ps_new()
    for i in range(8):
        half = phone.ps(half, "moves", row=i // 5, col=i % 5)
    owner.game = phone.game
    owner.get(f"/api/poker-squares/games/{half['id']}")
    devices_endpoints(owner)
    devices_endpoints(phone)
    assert phone.checked >= 60 and owner.checked >= 10
