"""The table's story (issue 29, docs/online.md "The table's story"): drops, returns, stand-ins
and timer expiries become notes every device sees; the stand-in's steps are marked in the log;
the host hands an absent seat to the computer before the grace ends or opens it for someone
new; every hand is shown once the round is over, never before (SPEC C-8). Pure model and
render tests, plus the two new routes over HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.models import OnlineTable
from cardtable.server.online.render import device_view
from cardtable.server.online.room import Refused, Room
from tests.server.online.test_model import T0, A, B, C, roundtrip, started, step


def seated() -> Room:
    """A, B and a computer, both devices online, the match started (seed 5)."""
    room = started(seed=5)
    room = room.connected(A, T0) or room
    return room.connected(B, T0) or room


def kinds(room: Room) -> list[tuple[str, int]]:
    return [(n["kind"], n["seat"]) for n in room.notes]


def view(room: Room, player: str | None) -> dict[str, Any]:
    out = device_view(room, player, token="tok", code=None, now=T0)
    OnlineTable.model_validate(out)  # the schema lists exactly what leaves the server
    return out


def until(room: Room, now: float, done: Any, most: int = 400) -> tuple[Room, float]:
    for _ in range(most):
        if done(room):
            return room, now
        now += 1
        room = step(room, now)
    raise AssertionError("never happened")


def test_drop_away_stand_in_steps_and_return_are_noted() -> None:
    room = seated()
    assert room.notes == ()  # connecting before the first move is not news
    dropped = room.disconnected(B, T0 + 1)
    assert dropped is not None and kinds(dropped) == [("drop", 1)]
    note = dropped.notes[0]
    assert note == {"v": dropped.version, "kind": "drop", "seat": 1, "name": "Bob",
                    "round": 1, "after": dropped.log_total}  # fmt: skip
    away = dropped.advance(T0 + 61)
    assert away is not None and kinds(away) == [("drop", 1), ("away", 1)]
    # The stand-in plays seat 1: its steps say so; the computer seat's do not.
    room, now = until(away, T0 + 61, lambda r: r.to_play == 1 and r.game.steps > 0)
    assert room.game is not None
    by_seat = {(e["seat"], e.get("by")) for e in room.game.log}
    assert (1, "stand_in") in by_seat and (1, None) not in by_seat
    assert (2, None) in by_seat and (2, "stand_in") not in by_seat
    seen = view(room, A)
    assert {(e["seat"], e.get("by")) for e in seen["log"]} >= {(1, "stand_in"), (2, None)}
    back = room.connected(B, now)
    assert back is not None and kinds(back)[-1] == ("back", 1)
    assert back.notes[-1]["after"] == back.log_total
    # Notes survive saving and loading, and every device (a spectator too) sees them.
    assert roundtrip(back).notes == back.notes
    assert view(back, None)["notes"] == view(back, A)["notes"] == [dict(n) for n in back.notes]


def test_turn_timer_expiry_is_noted_and_its_steps_marked() -> None:
    room = started(seed=5, turn_timer=30.0)
    room = room.connected(A, T0) or room
    room = room.connected(B, T0) or room
    room, _ = until(room, T0, lambda r: r.to_play in (0, 1) and not r.driven(r.to_play))
    seat = room.to_play
    assert seat is not None and room.turn_deadline is not None
    timed = room.advance(room.turn_deadline)
    assert timed is not None and kinds(timed) == [("timer", seat)]
    stepped = timed.advance(timed.turn_deadline or (room.turn_deadline + 1)) or timed
    stepped = stepped.advance(room.turn_deadline + 5) or stepped
    assert stepped.game is not None
    assert any(e["seat"] == seat and e.get("by") == "timer" for e in stepped.game.log)


def test_host_hands_a_reconnecting_seat_to_the_computer_before_the_grace_ends() -> None:
    room = seated()
    dropped = room.disconnected(B, T0 + 1)
    assert dropped is not None
    with pytest.raises(Refused) as err:
        dropped.hand_to_computer(B, 0, T0 + 2)  # not the host
    assert err.value.code == "not_host"
    with pytest.raises(Refused) as err:
        room.hand_to_computer(A, 1, T0 + 2)  # B is online
    assert err.value.code == "seat_taken"
    with pytest.raises(Refused) as err:
        dropped.hand_to_computer(A, 0, T0 + 2)  # the host's own seat
    assert err.value.code == "seat_taken"
    handed = dropped.hand_to_computer(A, 1, T0 + 2)
    seat = handed.seats[1]
    assert seat.connection == "away" and seat.stand_in and seat.deadline is None
    assert handed.driven(1) and kinds(handed)[-1] == ("handed", 1)
    with pytest.raises(Refused) as err:
        handed.hand_to_computer(A, 1, T0 + 3)  # already the computer's
    assert err.value.code == "wrong_phase"
    # Long before the 60 s grace would have ended, the stand-in plays seat 1's turn.
    room, now = until(handed, T0 + 2, lambda r: r.to_play == 1 and r.game.steps > 0, most=60)
    assert now < T0 + 60


def test_host_opens_an_absent_seat_for_someone_new() -> None:
    room = seated()
    dropped = room.disconnected(B, T0 + 1)
    assert dropped is not None
    with pytest.raises(Refused) as err:
        room.reopen(A, 1, T0 + 2)
    assert err.value.code == "seat_taken"
    opened = dropped.reopen(A, 1, T0 + 2)
    assert opened.seats[1].kind == "open" and opened.driven(1)
    assert opened.seats_of(B) == [] and kinds(opened)[-1] == ("reopened", 1)
    assert opened.notes[-1]["name"] == "Bob"
    assert opened.is_open  # the room code still leads here
    # B's device lost the seat: it is a spectator now, and cannot move for seat 1.
    assert view(opened, B)["me"] is None
    # The stand-in keeps playing the open seat meanwhile.
    room, now = until(opened, T0 + 2, lambda r: r.to_play == 1 and r.game.steps > 0)
    joined = room.join(C, "Cy", None, now)
    assert joined is not None and joined.seats_of(C) == [1]
    assert joined.seats[1].name == "Cy" and joined.seats[1].stand_in
    assert kinds(joined)[-1] == ("joined", 1) and joined.notes[-1]["name"] == "Cy"
    live = joined.connected(C, now)
    assert live is not None
    room, now = until(live, now, lambda r: r.to_play != 1)
    assert not room.seats[1].stand_in  # Cy has the seat from their first full turn
    with pytest.raises(Refused) as err:
        room.join(B, "Bob", None, now)  # no open seat left: B watches
    assert err.value.code == "table_full"
    assert roundtrip(room).seats == room.seats


def test_every_hand_is_shown_only_once_the_round_is_over() -> None:
    room = seated()
    playing = view(room, A)
    assert playing["hands"] is None
    assert "hands" not in json.dumps(playing["view"]).replace('"hand_sizes"', "")
    # Both people leave: the stand-in plays every seat to the end of the round.
    room = room.leave(B, T0).leave(A, T0)
    room, _ = until(room, T0, lambda r: r.phase in ("round_over", "match_over"), most=3000)
    assert room.game is not None
    state = room.game.match.state
    for player in (A, B, None):
        hands = view(room, player)["hands"]
        assert hands is not None and [len(h) for h in hands] == list(state.hand_sizes)
    assert any(view(room, None)["hands"])


@pytest.fixture
def client(tmp_path: Any) -> Any:
    online = OnlineSettings(grace_seconds=60.0, computer_step_seconds=5.0, lookup_rate=None,
                            join_rate=None, table_rate=None)  # fmt: skip
    settings = Settings(data_dir=tmp_path, database_url=None, online=online,
                        allow_seed_for_tests=True)  # fmt: skip
    with TestClient(create_app(settings)) as c:
        yield c


def test_the_host_routes_over_http(client: Any) -> None:
    def player() -> str:
        return str(client.post("/api/players").json()["player_id"])

    ana, ben = player(), player()
    api = "/api/kings-corner/online"
    made = client.post(api, json={"name": "Ana", "seats": [{"kind": "me"}, {"kind": "invite"}]},
                       headers={"X-Player-Id": ana}).json()  # fmt: skip
    token = made["token"]

    def post(who: str, path: str, body: dict[str, Any], **headers: str) -> Any:
        version = client.get(f"{api}/{token}", headers={"X-Player-Id": who}).json()["version"]
        return client.post(f"{api}/{token}/{path}", json={"version": version, **body},
                           headers={"X-Player-Id": who, **headers})  # fmt: skip

    assert post(ben, "join", {"name": "Ben"}).status_code == 200
    assert post(ana, "start", {}, **{"X-Test-Seed": "5"}).status_code == 200
    # Ben's device never connected: his seat is "reconnecting" (within the grace period).
    refused = post(ben, "seats/0/stand-in", {})
    assert refused.status_code == 403 and refused.json()["code"] == "not_host"
    handed = post(ana, "seats/1/stand-in", {})
    assert handed.status_code == 200, handed.text
    table = handed.json()
    assert table["seats"][1]["stand_in"] and table["seats"][1]["connection"] == "away"
    assert [(n["kind"], n["seat"]) for n in table["notes"]] == [("handed", 1)]
    opened = post(ana, "seats/1/invite", {})
    assert opened.status_code == 200, opened.text
    assert opened.json()["seats"][1]["kind"] == "open"
    assert client.get(f"{api}/{token}", headers={"X-Player-Id": ben}).json()["me"] is None
    carl = player()
    rejoined = post(carl, "join", {"name": "Carl"})
    assert rejoined.status_code == 200 and rejoined.json()["me"]["seats"] == [1]


def test_the_hosts_seat_actions_apply_to_the_table_as_it_is_now(client: Any) -> None:
    """The computers keep playing while the host decides: a hand-over or an invitation asked
    at an older version is made on the table as it is now, and refused only when the seat no
    longer fits it; a move at that version is still stale."""

    def player() -> str:
        return str(client.post("/api/players").json()["player_id"])

    ana, ben, cy = player(), player(), player()
    api = "/api/kings-corner/online"
    seats = [{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"}]
    token = client.post(api, json={"name": "Ana", "seats": seats},
                        headers={"X-Player-Id": ana}).json()["token"]  # fmt: skip

    def post(who: str, path: str, version: int, **body: Any) -> Any:
        return client.post(f"{api}/{token}/{path}", json={"version": version, **body},
                           headers={"X-Player-Id": who, "X-Test-Seed": "5"})  # fmt: skip

    def version() -> int:
        return int(client.get(f"{api}/{token}", headers={"X-Player-Id": ana}).json()["version"])

    assert post(ben, "join", version(), name="Ben").status_code == 200
    assert post(cy, "join", version(), name="Cy").status_code == 200
    assert post(ana, "start", version()).status_code == 200
    seen = version()  # what the host's page shows: Ben and Cy reconnecting
    assert post(ana, "seats/2/stand-in", seen).status_code == 200  # the table moves on
    handed = post(ana, "seats/1/stand-in", seen)
    assert handed.status_code == 200, handed.text
    table = handed.json()
    assert table["version"] == seen + 2
    assert [s["connection"] for s in table["seats"][1:]] == ["away", "away"]
    again = post(ana, "seats/1/stand-in", seen)  # already done: refused, not made twice
    assert again.status_code == 409 and again.json()["code"] == "wrong_phase"
    opened = post(ana, "seats/2/invite", seen)
    assert opened.status_code == 200 and opened.json()["seats"][2]["kind"] == "open"
    stale = post(ana, "moves", seen, move="end")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    future = post(ana, "seats/1/invite", version() + 5)
    assert future.status_code == 409 and future.json()["code"] == "stale_version"
