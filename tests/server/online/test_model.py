"""The online table model (`cardtable.server.online.room`): pure transitions, deadlines and
what each device sees (`render.device_view`)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable import kings_corner as kc
from cardtable.server.online.render import device_view
from cardtable.server.online.room import Config, Refused, Room, RoomError, SeatSpec

A, B, C = "a" * 64, "b" * 64, "c" * 64
T0 = 1_000_000.0


def config(players: int = 3, **kw: Any) -> Config:
    base: dict[str, Any] = dict(
        players=players,
        rules=kc.Rules.preset("standard"),
        rounds=1,
        turn_timer=None,
        grace=60.0,
        stand_in="easy",
        step=0.5,
    )
    base.update(kw)
    return Config(**base)


def lobby(seats: list[SeatSpec] | None = None, **kw: Any) -> Room:
    seats = seats or [("me", None, None), ("invite", None, None), ("computer", "easy", None)]
    return Room.create(config(len(seats), **kw), seats, A, "Ann", T0, invite="tok")


def started(seed: int = 3, **kw: Any) -> Room:
    room = lobby(**kw).join(B, "Bob", None, T0)
    assert room is not None
    return room.start(A, seed, T0)


def roundtrip(room: Room) -> Room:
    return Room.from_dict(json.loads(json.dumps(room.to_dict())), room.version)


def play_turn(room: Room, now: float) -> Room:
    """The person to play ends their turn (their first legal move until "end")."""
    seat = room.to_play
    assert seat is not None
    player = room.seats[seat].player
    assert player is not None
    return room.move(player, "end", now)


def step(room: Room, now: float) -> Room:
    """The computer's step when one is due, else the person to play ends their turn."""
    seat = room.to_play
    assert seat is not None
    return room.advance(now) or room if room.driven(seat) else play_turn(room, now)


def test_create_join_start() -> None:
    room = lobby()
    assert room.phase == "lobby" and room.version == 1 and room.host == 0
    assert [s.kind for s in room.seats] == ["person", "open", "computer"]
    assert room.seats[0].connection == "reconnecting" and room.due_at == T0 + 60
    with pytest.raises(Refused) as err:
        room.start(A, 1, T0)
    assert err.value.code == "wrong_phase"
    joined = room.join(B, "Bob", None, T0 + 1)
    assert joined is not None and joined.version == 2 and joined.seats_of(B) == [1]
    assert joined.join(B, "Bob", None, T0) is None  # already seated
    with pytest.raises(Refused) as err:
        joined.join(C, "Cy", None, T0)
    assert err.value.code == "table_full"
    with pytest.raises(Refused) as err:
        room.join(C, "Cy", 2, T0)
    assert err.value.code == "seat_taken"
    with pytest.raises(Refused) as err:
        joined.start(B, 1, T0)
    assert err.value.code == "not_host"
    game = joined.start(A, 5, T0 + 2)
    assert game.phase == "play" and game.version == 3 and game.to_play is not None
    assert roundtrip(game) == game


def test_seat_computer_and_leave_in_lobby() -> None:
    room = lobby()
    with pytest.raises(Refused) as err:
        room.seat_computer(B, 1, "strong", T0)
    assert err.value.code == "not_host"
    with pytest.raises(Refused) as err:
        room.seat_computer(A, 0, "strong", T0)
    assert err.value.code == "seat_taken"
    room = room.seat_computer(A, 1, "strong", T0)
    assert room.seats[1].kind == "computer" and room.seats[1].strength == "strong"
    room = room.start(A, 1, T0)
    assert room.phase == "play"
    # A lobby where the host leaves: hosting passes on, and the last one out closes it.
    two = lobby().join(B, "Bob", None, T0)
    assert two is not None
    two = two.connected(B, T0)
    assert two is not None
    left = two.leave(A, T0)
    assert left.host == 1 and left.seats[0].kind == "open" and left.is_open
    gone = left.leave(B, T0)
    assert gone.closed and not gone.is_open and roundtrip(gone).to_dict()["invite"] is None


def test_only_the_seat_to_play_moves_and_sees_only_its_hand() -> None:
    room = started()
    seat = room.to_play
    assert seat is not None
    if room.seats[seat].kind == "computer":
        room = room.advance(T0 + 1) or room
    seat = room.to_play
    assert seat is not None and room.seats[seat].kind == "person"
    mover = room.seats[seat].player
    other = B if mover == A else A
    assert mover is not None
    with pytest.raises(Refused) as err:
        room.move(other, "end", T0)
    assert err.value.code == "not_your_turn"
    with pytest.raises(Refused) as err:
        room.move(mover, "nonsense", T0)
    assert err.value.code == "invalid_request"
    with pytest.raises(Refused) as err:
        room.move(mover, "KS>XX", T0)
    assert err.value.code == "invalid_request"
    state = room.game.match.state  # type: ignore[union-attr]
    for player in (A, B, None):
        view = device_view(room, player, token="t", code="C", now=T0)
        mine = room.seats_of(player)
        if player is None:
            assert view["me"] is None and view["view"]["hand"] == [] and view["viewer"] is None
        else:
            assert view["viewer"] == mine[0]
            assert view["view"]["hand"] == [str(c) for c in state.hands[mine[0]]]


def test_events_since_a_version_hide_others_drawn_cards() -> None:
    room = started(seed=11)
    seen_versions = room.version
    now = T0
    for _ in range(12):
        seat = room.to_play
        if seat is None:
            break
        now += 1
        if room.driven(seat):
            nxt = room.advance(now)
            assert nxt is not None
            room = nxt
        else:
            room = play_turn(room, now)
    events = room.events_since(seen_versions)
    draws = [e for e in events if e.kind == "draw"]
    assert draws, "draw-first deals a card at each turn"
    for player in (A, B):
        viewer = room.viewer(player)
        view = device_view(room, player, token="t", code=None, now=T0, since=seen_versions)
        for e, shown in zip(events, view["events"], strict=True):
            if e.kind == "draw":
                assert ("card" in shown) == (e.owner == viewer and "card" in e.private)


def test_computer_steps_are_paced_and_reproducible() -> None:
    room = started(seed=5)
    # Drive until a computer is to play.
    for _ in range(10):
        seat = room.to_play
        assert seat is not None
        if room.seats[seat].kind == "computer":
            break
        room = play_turn(room, T0)
    assert room.step_at == T0 + 0.5 and room.due_at == T0 + 0.5
    assert room.advance(T0 + 0.4) is None
    a = room.advance(T0 + 0.5)
    b = roundtrip(room).advance(T0 + 0.5)
    assert a is not None and b is not None and a.to_dict() == b.to_dict()
    assert a.version == room.version + 1 and a.game is not None and a.game.log


def test_grace_stand_in_and_return_at_next_turn() -> None:
    room = started(seed=5)
    room = room.connected(A, T0) or room
    room = room.connected(B, T0) or room
    assert all(s.connection in (None, "online") for s in room.seats)
    dropped = room.disconnected(B, T0 + 1)
    assert dropped is not None and dropped.seats[1].connection == "reconnecting"
    assert dropped.seats[1].deadline == T0 + 61 and dropped.due_at is not None
    early = dropped.advance(T0 + 30) or dropped
    assert early.seats[1].connection == "reconnecting"
    away = dropped.advance(T0 + 61)
    assert away is not None and away.seats[1].connection == "away" and away.seats[1].stand_in
    # The stand-in plays seat 1's turns: the table goes on without B.
    room, now = away, T0 + 61
    for _ in range(400):
        if room.to_play == 1 and room.game is not None and room.game.steps > 0:
            break
        seat = room.to_play
        assert seat is not None
        now += 1
        room = step(room, now)
    assert room.to_play == 1 and room.driven(1)
    # B comes back in the middle of the stand-in's turn: the seat stays with it until the turn
    # ends, then B has it back.
    back = room.connected(B, now)
    assert back is not None and back.seats[1].stand_in and back.seats[1].connection == "online"
    with pytest.raises(Refused):
        back.move(B, "end", now)
    room = back
    for _ in range(200):
        if room.to_play != 1:
            break
        now += 1
        room = room.advance(now) or room
    assert not room.seats[1].stand_in


def test_host_passes_when_the_host_is_away() -> None:
    room = started(seed=5)
    room = room.connected(A, T0) or room
    room = room.connected(B, T0) or room
    dropped = room.disconnected(A, T0)
    assert dropped is not None
    passed = dropped.advance(T0 + 60)
    assert passed is not None and passed.host == 1 and passed.is_host(B)
    # The new host can give the away seat to a computer.
    room = passed.seat_computer(B, 0, "normal", T0 + 61)
    assert room.seats[0].kind == "computer" and room.game is not None
    assert room.game.seats[0] == ("computer", "normal")


def test_turn_timer_hands_the_rest_of_the_turn_to_a_computer() -> None:
    room = started(seed=5, turn_timer=30.0)
    room = room.connected(A, T0) or room
    room = room.connected(B, T0) or room
    now = T0
    for _ in range(100):
        seat = room.to_play
        assert seat is not None
        if not room.driven(seat):
            break
        now += 1
        room = room.advance(now) or room
    seat = room.to_play
    assert seat is not None and room.turn_deadline is not None
    deadline = room.turn_deadline
    timed = room.advance(deadline)
    assert timed is not None and timed.covering == seat and timed.turn_deadline is None
    # The computer finishes the turn, then the next person's timer starts.
    room, now = timed, deadline
    for _ in range(200):  # the turn's computer
        if room.to_play != seat:
            break
        now += 1
        room = room.advance(now) or room
    assert room.covering is None
    nxt = room.to_play
    assert nxt is not None
    if not room.driven(nxt):
        assert room.turn_deadline is not None and room.turn_deadline > now


def test_local_seats_hand_off_and_reveal() -> None:
    seats: list[SeatSpec] = [("me", None, None), ("local", None, "Kim")]
    room = Room.create(config(2), seats, A, "Ann", T0).start(A, 2, T0)
    seat = room.to_play
    assert seat is not None and room.phase == "handoff"
    view = device_view(room, A, token="t", code=None, now=T0)
    assert view["viewer"] is None and view["view"]["hand"] == []
    with pytest.raises(Refused) as err:
        room.move(A, "end", T0)
    assert err.value.code == "wrong_phase"
    shown = room.reveal(A, T0)
    assert shown.phase == "play" and shown.viewer(A) == seat
    ended = shown.move(A, "end", T0)
    assert ended.phase == "handoff" and ended.viewer(A) is None
    with pytest.raises(Refused):
        ended.reveal(B, T0)


def test_undo_next_round_and_rematch() -> None:
    room = started(seed=7, grace=1e9)
    rng = random.Random(1)
    now = T0
    for _ in range(3000):
        phase = room.phase
        if phase == "match_over":
            break
        now += 1
        seat = room.to_play
        if phase == "round_over":
            room = room.next_round(A, now)
        elif seat is not None and room.driven(seat):
            room = room.advance(now) or room
        else:
            assert seat is not None
            player = room.seats[seat].player
            assert player is not None
            legal = kc.ENGINE.legal_moves(room.game.match.state)  # type: ignore[union-attr]
            move = rng.choice(legal)
            before = room
            room = room.move(player, str(move), now)
            if str(move) != "end" and rng.random() < 0.3:
                undone = room.undo(player, now)
                assert undone.game is not None and before.game is not None
                assert undone.game.match.state.to_dict() == before.game.match.state.to_dict()
                room = undone
    assert room.phase == "match_over" and not room.is_open
    with pytest.raises(Refused):
        room.next_round(A, now)
    ready = room.rematch(A, 99, now)
    assert ready.phase == "match_over" and ready.seats[0].rematch
    again = ready.rematch(B, 99, now)
    assert again.phase in ("play", "handoff") and not any(s.rematch for s in again.seats)
    assert again.game is not None and again.game.match.seed == 99


def test_leave_in_play_is_away_at_once_and_spectators_count() -> None:
    room = started(seed=5)
    left = room.leave(B, T0)
    assert left.seats[1].connection == "away" and left.seats[1].stand_in
    with pytest.raises(Refused) as err:
        left.leave(C, T0)
    assert err.value.code == "not_your_turn"
    assert left.with_spectators(0) is None
    crowd = left.with_spectators(3)
    assert (
        crowd is not None and device_view(crowd, C, token="t", code=None, now=T0)["spectators"] == 3
    )


def test_damaged_rooms_do_not_load() -> None:
    good = started().to_dict()
    for bad in (
        {},
        {**good, "format": "x"},
        {**good, "host": 9},
        {**good, "seats": good["seats"][:2]},
        {**good, "seats": [{**good["seats"][0], "kind": "dragon"}, *good["seats"][1:]]},
        {**good, "config": {**good["config"], "stand_in": "godlike"}},
        {**good, "events": "nope"},
    ):
        with pytest.raises(RoomError):
            Room.from_dict(bad, 3)


@given(st.integers(0, 2**40), st.lists(st.integers(0, 12), min_size=1, max_size=60))
def test_any_sequence_of_changes_keeps_the_room_loadable(seed: int, script: list[int]) -> None:
    """Random presence changes, moves, time and the host's actions on an absent seat (the
    computer now, invite someone new, who joins): every result saves and loads, versions rise
    by one, and no device's view names a card of another hand (until the round is over) or
    the stock."""
    room = started(seed=seed)
    now = T0
    for op in script:
        now += 7
        before = room.version
        new: Room | None
        try:
            if op == 0:
                new = room.disconnected(A, now)
            elif op == 1:
                new = room.connected(A, now)
            elif op == 2:
                new = room.disconnected(B, now)
            elif op == 3:
                new = room.connected(B, now)
            elif op in (4, 5, 6):
                seat = room.to_play
                player = None if seat is None else room.seats[seat].player
                new = room.move(player or A, "end", now)
            elif op == 7 and room.phase == "round_over":
                new = room.next_round(A, now)
            elif op == 10:
                new = room.hand_to_computer(room.seats[room.host].player or A, 1, now)
            elif op == 11:
                new = room.reopen(room.seats[room.host].player or A, 1, now)
            elif op == 12:
                new = room.join(C, "Cy", None, now)
            else:
                new = room.advance(now + 100)
        except Refused:
            new = None
        if new is not None:
            assert new.version == before + 1
            room = roundtrip(new)
        if room.game is not None:
            state = room.game.match.state
            for player in (A, B, C):
                viewer = room.viewer(player)
                text = json.dumps(device_view(room, player, token="t", code=None, now=now,
                                              since=before))  # fmt: skip
                hidden = {str(c) for c in state.stock}
                for i, hand in enumerate(state.hands):
                    if i != viewer and not state.is_over:
                        hidden |= {str(c) for c in hand}
                assert not {c for c in hidden if f'"{c}"' in text or f'"{c}>' in text}
