"""Turn-based tables (issue 40, docs/online.md "Turn-based tables"), on SQLite and on
PostgreSQL: two devices (players through the API) and a computer play a round over a moved
clock. The computer's turns come at once; a person's turn waits for its stored deadline (a
day), and after it the computer plays that one turn for them and the story says so; a closed
connection replaces no one; three missed turns in a row, and not before, let the host give the
seat to the computer for good; a turn the person plays starts the count again; and a new app on
the same store (a restart) takes up the stored deadlines where the old one left them.

The driver's rounds are direct `Driver.once()` calls with an injected clock, and the service's
clock (what stamps a move made through the API) is the same one; the apps' lifespans never
start, so no background driver runs beside the test."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable import kings_corner as kc
from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online import service
from cardtable.server.online.codes import table_key
from cardtable.server.online.room import MISSES_FOR_GOOD, Refused, Room
from cardtable.server.online.tables import OnlineTables
from tests.server.helpers import store_settings

from .helpers import Device
from .test_model import T0, A, B, roundtrip, started

DAY = 86400
JSON = Any


@pytest.fixture(params=["sqlite", "postgres"])
def turn_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        # No cap on the computer's steps: the test's clock stands still while they are made.
        online=OnlineSettings(
            computer_step_seconds=0.0, grace_seconds=60.0, computer_steps_rate=None
        ),
    ) as settings:
        yield settings


class Table:
    """The test's server (an app on the store, replaced by a new one on a restart), its two
    devices, and the clock its driver runs at."""

    def __init__(self, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
        self.settings = settings
        self.clock = time.time()
        # What the service stamps requests with (`time.time()` there) is the test's clock.
        monkeypatch.setattr(service, "time", SimpleNamespace(time=lambda: self.clock))
        self.app = create_app(settings)
        self.ann = Device(self.client())
        self.bob = Device(self.client())
        self.token = ""

    def client(self) -> TestClient:
        return TestClient(self.app, headers={"X-Test-Seed": "11"})

    @property
    def online(self) -> OnlineTables:
        tables: OnlineTables = self.app.state.online
        return tables

    def restart(self) -> None:
        """A new server on the same store: nothing of the old one's memory is kept."""
        self.app.state.runtime.close()
        self.app = create_app(self.settings)
        self.ann.http = self.client()
        self.bob.http = self.client()

    def drive(self, at: float | None = None) -> None:
        """The driver's rounds at ``at`` (by default the clock as it is), until the table has
        nothing due then."""
        self.clock = self.clock if at is None else at
        now = self.clock
        self.online.driver.clock = lambda: now
        # Each round makes one step per due table: rounds until the table has nothing due.
        for _ in range(200):
            self.online.driver.once()
            due = self.online.store.load(table_key(self.token))
            if due is None or not self._due(due.state, now):
                return
        raise AssertionError("the table was still due after 200 rounds")

    @staticmethod
    def _due(state: JSON, now: float) -> bool:
        times = [state["step_at"], state["turn_deadline"]]
        times += [s["deadline"] for s in state["seats"]]
        return any(t is not None and t <= now for t in times)

    def get(self) -> JSON:
        return self.ann.get(self.token)

    def close(self) -> None:
        self.app.state.runtime.close()


@pytest.fixture
def table(turn_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    t = Table(turn_settings, monkeypatch)
    try:
        yield t
    finally:
        t.close()


def play_turn(device: Device, token: str, seat: int) -> JSON:
    """``device`` plays its whole turn through the API: a card from the hand while it can,
    then ``end``."""
    game = device.get(token)
    for _ in range(60):
        if game["phase"] != "play" or game["turn"]["seat"] != seat:
            return game
        moves = game["view"]["legal_moves"]
        hand = set(game["view"]["hand"])
        cards = [m for m in moves if m.split(">")[0] in hand]
        move = cards[0] if cards else "end" if "end" in moves else moves[0]
        game = device.act(game, "moves", move=move)
    raise AssertionError("the turn never ended")


def for_good(host: Device, game: JSON, status: int = 200) -> JSON:
    """The host's "Computer for good" on Bob's seat (1)."""
    body = {"version": game["version"], "kind": "computer", "strength": "normal"}
    return host.call("POST", f"/api/kings-corner/online/{game['token']}/seats/1", body, status)


def missed(game: JSON, seat: int) -> list[JSON]:
    return [n for n in game["notes"] if n["kind"] == "missed" and n["seat"] == seat]


def test_a_turn_based_round_over_a_moved_clock(table: Table) -> None:
    ann, bob = table.ann, table.bob
    created = ann.create(
        seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "computer", "strength": "easy"}],
        pace="turn",
        turn_seconds=DAY,
        stand_in="easy",
    )
    token = table.token = created["token"]
    settings = created["table"]["settings"]
    assert settings["pace"] == "turn" and settings["turn_seconds"] == DAY
    assert settings["turn_timer"] == DAY
    # Not yet connected is not "reconnecting": nothing is counting down for anyone.
    assert created["table"]["seats"][0]["connection"] == "away"
    assert created["table"]["seats"][0]["deadline"] is None
    lobby = bob.act(created["table"], "join", name="Bob")
    assert lobby["seats"][1]["deadline"] is None
    game = ann.act(lobby, "start")
    key = table_key(token)

    # Bob's device connects, then closes: at a turn-based table no grace, no stand-in.
    assert service.arrive(table.online, "bob-1", key, bob.key, seated=True)
    assert table.get()["seats"][1]["connection"] == "online"
    service.depart(table.online, "bob-1", key, bob.key, seated=True)
    seat_b = table.get()["seats"][1]
    assert (seat_b["connection"], seat_b["stand_in"], seat_b["deadline"]) == ("away", False, None)
    assert not [n for n in table.get()["notes"] if n["kind"] in ("drop", "away")]

    seen = {"ann": 0, "bob_played": 0, "bob_missed": 0}
    restarted = False
    for _ in range(300):
        table.drive()  # whatever is due now: the computer's turns come at once
        game = table.get()
        if game["phase"] != "play":
            break
        seat, deadline = game["turn"]["seat"], game["turn"]["deadline"]
        assert seat != 2, "the computer's turn waited"
        # A person's turn waits for its stored deadline, a day from when it began.
        assert deadline == pytest.approx(table.clock + DAY)
        assert game["seats"][seat]["stand_in"] is False
        if seat == 0:
            play_turn(ann, token, 0)
            seen["ann"] += 1
            continue
        misses = game["seats"][1]["missed"]
        host = ann.get(token)
        if misses < MISSES_FOR_GOOD:
            # The host may not give the seat away yet: the option is not offered.
            refused = for_good(ann, host, status=409)
            assert refused["code"] == "seat_taken"
        if seen["bob_missed"] == 1 and seen["bob_played"] == 0:
            # Bob plays one turn himself: his count of missed turns starts again.
            assert misses == 1
            after = play_turn(bob, token, 1)
            assert after["seats"][1]["missed"] == 0
            seen["bob_played"] += 1
            continue
        # Bob misses his turn: a second before its end nothing happens ...
        version = game["version"]
        table.drive(deadline - 1)
        assert table.get()["version"] == version
        if seen["bob_missed"] == 1 and not restarted:
            # ... and a server restart between turns loses nothing: the new one plays it.
            table.restart()
            restarted = True
            assert table.get()["version"] == version
        # ... after it, the computer plays that one turn for him and the story says so.
        notes_before = len(missed(game, 1))
        table.drive(deadline + 1)
        after = table.get()
        assert len(missed(after, 1)) == notes_before + 1
        note = missed(after, 1)[-1]
        assert note["name"] == "Bob" and note["round"] == 1
        assert after["seats"][1]["missed"] == misses + 1
        assert after["seats"][1]["stand_in"] is False  # one turn, not the seat
        assert any(e["seat"] == 1 and e["by"] == "timer" for e in after["log"])
        seen["bob_missed"] += 1
        if after["seats"][1]["missed"] == MISSES_FOR_GOOD:
            break
    else:
        raise AssertionError("the round went on too long")

    game = table.get()
    # One miss, a turn Bob played (the count back to 0), then three misses in a row.
    assert restarted and seen["ann"] >= 1 and seen["bob_played"] == 1
    assert seen["bob_missed"] == 1 + MISSES_FOR_GOOD and game["phase"] == "play"
    # Three missed turns in a row: now the host may give Bob's seat to the computer.
    assert game["seats"][1]["missed"] == MISSES_FOR_GOOD
    handed = for_good(ann, game)
    assert handed["seats"][1]["kind"] == "computer"
    assert handed["notes"][-1]["kind"] == "computer"
    # The round plays on to its end with the computer at once for seats 1 and 2.
    for _ in range(300):
        table.drive()
        game = table.get()
        if game["phase"] != "play":
            break
        assert game["turn"]["seat"] == 0
        play_turn(ann, token, 0)
    assert game["phase"] in ("round_over", "match_over")


@pytest.mark.parametrize(
    "body",
    [
        {"pace": "turn"},  # a turn-based table needs its length
        {"pace": "turn", "turn_seconds": 60},
        {"pace": "turn", "turn_timer": 3600},
        {"pace": "live", "turn_seconds": DAY},
        {"pace": "turn", "turn_timer": DAY, "turn_seconds": 43200},
        {"pace": "daily", "turn_seconds": DAY},
    ],
)
def test_create_refuses_a_pace_it_does_not_offer(table: Table, body: JSON) -> None:
    refused = table.ann.create(status=422, **body)
    assert refused["code"] == "invalid_request"


def test_a_live_table_says_so(table: Table) -> None:
    made = table.ann.create(turn_timer=60)["table"]["settings"]
    assert (made["pace"], made["turn_seconds"], made["turn_timer"]) == ("live", 60, 60)
    made = table.ann.create(pace="turn", turn_timer=259200)["table"]["settings"]
    assert (made["pace"], made["turn_seconds"]) == ("turn", 259200)


# -- the room's rules at a turn-based table (pure: no store, no clock) ------------------------
def turn_room() -> Room:
    """Ann (host) and Bob, both on their own devices, and an easy computer: turn-based, a day a
    turn, dealt."""
    return started(seed=5, pace="turn", turn_timer=float(DAY))


def go(room: Room, now: float) -> Room:
    """One step: the computer's when one is due, else the person to play plays a card from
    their hand when one fits (the first), or ends their turn."""
    seat = room.to_play
    assert seat is not None and room.game is not None
    if room.driven(seat):
        return room.advance(now) or room
    state = room.game.match.state
    hand = {str(c) for c in state.hands[seat]}
    moves = [str(m) for m in kc.legal_moves(state)]
    cards = [m for m in moves if m.split(">")[0] in hand]
    player = room.seats[seat].player
    assert player is not None
    return room.move(player, cards[0] if cards else "end", now)


def missing(room: Room, seat: int, times: int, now: float = T0) -> tuple[Room, float]:
    """``seat``'s person lets ``times`` of their turns run out (every other turn played),
    from ``now``; the room and the time after."""
    for _ in range(times):
        for _ in range(400):
            if room.to_play == seat:
                break
            now += 1
            room = go(room, now)
        assert room.to_play == seat and room.turn_deadline is not None
        now = room.turn_deadline
        room = room.advance(now) or room
        for _ in range(400):
            if room.to_play != seat:
                break
            now += 1
            room = room.advance(now) or room
        assert room.to_play != seat
    return room, now


def test_a_room_saved_before_paces_is_live() -> None:
    state = started(seed=5).to_dict()
    del state["config"]["pace"], state["config"]["turn_seconds"]
    for seat in state["seats"]:
        del seat["missed"]
    room = Room.from_dict(state, 4)
    assert room.config.pace == "live" and all(s.missed == 0 for s in room.seats)


def test_the_host_may_give_a_seat_away_only_after_three_misses() -> None:
    room, now = missing(turn_room(), 1, MISSES_FOR_GOOD - 1)
    assert room.seats[1].missed == MISSES_FOR_GOOD - 1
    for change in (
        lambda r: r.hand_to_computer(A, 1, T0),
        lambda r: r.reopen(A, 1, T0),
        lambda r: r.seat_computer(A, 1, "easy", T0),
    ):
        with pytest.raises(Refused) as refused:
            change(room)
        assert refused.value.code == "seat_taken"
    room = roundtrip(missing(room, 1, 1, now)[0])
    assert room.seats[1].missed == MISSES_FOR_GOOD and not room.seats[1].stand_in
    assert room.reopen(A, 1, T0).seats[1].kind == "open"
    assert room.seat_computer(A, 1, "easy", T0).seats[1].kind == "computer"
    handed = room.hand_to_computer(A, 1, T0)
    assert handed.seats[1].stand_in  # the stand-in until Bob's device is back
    back = handed.connected(B, T0 + 1)
    assert back is not None and [n["kind"] for n in back.notes][-2:] == ["handed", "back"]


def test_only_leaving_hands_hosting_on_and_lets_the_seat_go() -> None:
    room = turn_room()
    assert room.seats[0].connection == room.seats[1].connection == "away"
    # Ann (the host) closing her page hands hosting to no one ...
    room = room.connected(A, T0) or room
    room = room.disconnected(A, T0 + 1) or room
    assert room.host == 0 and room.seats[0].connection == "away"
    # ... leaving does: Bob hosts, and the computer plays Ann's seat from now on.
    room = room.leave(A, T0 + 2)
    assert room.host == 1 and room.seats[0].stand_in
    # Someone who left may be replaced at once, missed turns or not.
    assert room.seats[0].missed == 0
    assert room.seat_computer(B, 0, "easy", T0 + 3).seats[0].kind == "computer"


def test_the_rematch_waits_for_everyone_who_did_not_leave() -> None:
    room = turn_room()
    now = T0
    for _ in range(2000):
        if room.phase == "match_over":
            break
        now += 1
        room = go(room, now)
    assert room.phase == "match_over"
    asked = room.rematch(A, 9, now)
    assert asked.phase == "match_over"  # Bob is away, as usual: he is waited for
    assert asked.rematch(B, 9, now).phase == "play"
