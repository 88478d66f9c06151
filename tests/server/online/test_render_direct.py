"""The online views encoded straight from their dicts (render.py `encode`) are exactly the JSON
the `OnlineTable` schema's models write, at every step of random matches, for every device;
`Views(check=True)`, which the whole suite runs with, catches a dict that drifts from the
schema."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable import kings_corner as kc
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online import render
from cardtable.server.online.models import OnlineTable
from cardtable.server.online.render import ViewMismatch, Views
from cardtable.server.online.room import Config, Room, SeatSpec

A, B, C, D = "a" * 64, "b" * 64, "c" * 64, "d" * 64
T0 = 1_000_000.0
FAIR = "0f" * 32


def _config(players: int, rounds: int, timer: float | None) -> Config:
    return Config(
        players=players,
        rules=kc.Rules.preset("standard"),
        rounds=rounds,
        turn_timer=timer,
        grace=60.0,
        stand_in="easy",
        step=0.5,
    )


def _history(
    seed: int, players: int, computers: int, rounds: int, fair: bool, timer: float | None
) -> Iterator[Room]:
    """Every version of one match: the lobby, the joins, then random legal moves, people
    dropping and coming back, stand-ins, turn timers, rounds and the end."""
    rng = random.Random(seed)
    people = players - computers
    specs: list[SeatSpec] = [("me", None, None)]
    specs += [("invite", None, None)] * (people - 1) + [("computer", "easy", None)] * computers
    room = Room.create(_config(players, rounds, timer), specs, A, "Ann", T0, invite="tok")
    now = T0
    yield room
    for joiner, name in list(zip((B, C, D), ("ボブ", "Cy", "Dee"), strict=True))[: people - 1]:
        joined = room.join(joiner, name, None, now)
        assert joined is not None
        room = joined
        yield room
    room = room.start(A, seed, now, FAIR if fair else None)
    for _ in range(600):
        yield room
        now += 1
        seat = room.to_play
        if room.phase == "match_over":
            return
        if seat is None:
            room = room.next_round(A, now)
            continue
        player = room.seats[seat].player
        roll = rng.random()
        if player is not None and roll < 0.04:
            room = room.disconnected(player, now) or room
        elif player is not None and roll < 0.08:
            room = room.connected(player, now) or room
        elif room.driven(seat) or player is None:
            now += 200  # past any grace, timer or step
            room = room.advance(now) or room
        else:
            view = render.seat_part(room, player, None)["view"]
            room = room.move(player, rng.choice(view["legal_moves"]), now)


def _parts(room: Room, rng: random.Random) -> Iterator[tuple[type[Any], dict[str, Any]]]:
    """Each seated device's part and a spectator's, with the events since one or three
    versions back, and the shared part."""
    for player in (*(s.player for s in room.seats if s.player is not None), None):
        yield render._SeatPart, render.seat_part(room, player, room.version - rng.choice((1, 3)))
    code = rng.choice(("K7Q2", None))
    yield render._TablePart, render.table_part(room, token="t0k", code=code)


@pytest.mark.untraced
@given(
    seed=st.integers(0, 2**31),
    players=st.integers(2, 4),
    computers=st.integers(0, 2),
    rounds=st.sampled_from([1, 3]),
    fair=st.booleans(),
    timer=st.sampled_from([None, 30.0]),
)
def test_direct_json_is_the_schemas_json_at_every_step(
    seed: int, players: int, computers: int, rounds: int, fair: bool, timer: float | None
) -> None:
    computers = min(computers, players - 1)
    rng = random.Random(seed)
    steps = 0
    for room in _history(seed, players, computers, rounds, fair, timer):
        steps += 1
        for model, part in _parts(room, rng):
            render.checked(model, part)  # raises ViewMismatch on any difference
    assert steps > players


def test_a_whole_view_from_the_cache_is_a_valid_online_table() -> None:
    """What a device receives (`Rendered.table`) validates as an `OnlineTable` and equals the
    model's own JSON of `device_view`, byte for byte but for the key order."""
    views = Views()
    for room in _history(7, 3, 1, 1, True, None):
        for player in (A, B, None):
            got = json.loads(views.get(room, player, token="t0k", code=None).table(T0))
            model = OnlineTable.model_validate(
                render.device_view(room, player, token="t0k", code=None, now=T0)
            )
            assert got == json.loads(model.model_dump_json())
            assert OnlineTable.model_validate(got) == model


def test_check_refuses_a_missing_default_and_an_extra_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    room = next(r for r in _history(3, 2, 0, 1, False, None) if r.phase == "play")
    part = render.seat_part(room, A, None)
    assert part["view"]["fairness"] is None
    render.checked(render._SeatPart, part)
    missing = {**part, "view": {k: v for k, v in part["view"].items() if k != "fairness"}}
    with pytest.raises(ViewMismatch, match=r"\.view\.fairness"):
        render.checked(render._SeatPart, missing)
    with pytest.raises(ViewMismatch, match=r"\.secret"):
        render.checked(render._SeatPart, {**part, "secret": "KS"})
    table = render.table_part(room, token="t0k", code=None)
    wrong = {**table, "version": True}  # a bool where the schema has an int
    with pytest.raises(ViewMismatch, match=r"\.version"):
        render.checked(render._TablePart, wrong)
    real = render.seat_part
    monkeypatch.setattr(render, "seat_part", lambda *a: {**real(*a), "secret": "KS"})
    with pytest.raises(ViewMismatch, match=r"SeatPart: \.secret"):
        Views(check=True).get(room, A, token="t0k", code=None)
    assert '"secret"' in Views().get(room, A, token="t0k", code=None).body  # not checked


def test_the_suite_runs_with_the_check_on() -> None:
    assert OnlineSettings().check_views
