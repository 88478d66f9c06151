"""The replay of a finished round of an online table (GET /{token}/rounds/{n}, docs/online.md
"Replay"): the review's replay (`KCReplay`) of the moves the room keeps (its log keeps only
the last `LOG_KEPT` entries), for anyone who may see the table, only once that round is over,
computed once per process and kept; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable import kings_corner as kc
from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.games import kc_replay
from cardtable.server.games.kc_replay import KCReplay, start_of, with_outcomes
from cardtable.server.online.codes import table_key
from cardtable.server.online.room import LOG_KEPT, Config, Room
from tests.support.postgres import fresh_schema

from .helpers import BASE, JSON, Device, Recorder

QUICK = OnlineSettings(computer_step_seconds=0.0, grace_seconds=3600.0)
"""Computers at once; a grace period no test outlasts: the devices here use the API only and
never connect live, so after the grace their seats turn "away" and the table's version moves
on under the test (it did at 60 s: a round on a loaded machine took longer)."""


@pytest.fixture(params=["sqlite", "postgresql"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FastAPI]:
    url: AbstractContextManager[str | None] = nullcontext(None)
    if request.param == "postgresql":
        url = fresh_schema(request.getfixturevalue("postgres_url"))
    with url as database_url:
        yield create_app(
            Settings(
                data_dir=tmp_path / "data",
                database_url=database_url,
                allow_seed_for_tests=True,
                player_rate=None,
                signup_rate=None,
                online=replace(QUICK),
                search_processes=0,  # the engine's work in this thread: a test counts it
            )
        )


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def stored(app: FastAPI, token: str) -> Room:
    record = app.state.online.store.load(table_key(token))
    assert record is not None
    return Room.from_dict(record.state, record.version)


def logged_moves(recorder: Recorder, key: str, upto: int) -> list[str]:
    """The round's moves as the table's log showed them, version by version (each version
    keeps the last `LOG_KEPT` entries, numbered by ``log_total``; an undo takes its entry
    back): independent of the room's own record of moves."""
    entries: dict[int, dict[str, Any]] = {}
    for version in range(1, upto + 1):
        room = recorder.rooms.get((key, version))
        if room is None or room.game is None:
            continue
        if room.game.match.round != 1:
            break
        log = room.game.log
        first = room.log_total - len(log)
        for n in [n for n in entries if n >= room.log_total]:
            del entries[n]
        for i, entry in enumerate(log):
            entries[first + i] = entry
    assert sorted(entries) == list(range(len(entries))), "a log entry was never seen"
    moves = [entries[n]["move"] for n in sorted(entries)]
    return [m for m in moves if not m.startswith(("reveal", "draw-king"))]


def play_until(ann: Device, token: str, done: Callable[[JSON], bool]) -> tuple[JSON, bool]:
    """Ann plays her first legal move but "end" (else "end"), takes back her first play once,
    until ``done``; the computers move on the server."""
    undone = False
    for _ in range(3000):
        table = ann.get(token)
        if done(table):
            return table, undone
        if table["phase"] != "play" or table["turn"]["seat"] != 0:
            continue
        moves = table["view"]["legal_moves"]
        move = next((m for m in moves if m != "end"), "end")
        table = ann.act(table, "moves", move=move)
        if move != "end" and not undone:
            table = ann.act(table, "undo")
            undone = True
    raise AssertionError(f"the round did not end: {table['phase']} {table['turn']}")


def test_a_finished_round_replays_for_everyone_who_sees_the_table(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder(app)
    ann, spectator = Device(client, recorder), Device(client, recorder)
    created = ann.create(
        seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"},
               {"kind": "computer", "strength": "normal"}],
        rounds=3, rules={"preset": "simple"},
    )  # fmt: skip
    token = created["token"]
    table = ann.act(created["table"], "start")
    path = f"{BASE}/{token}/rounds/1"

    # While round 1 is played nothing of it is shown: 409, no card.
    early = ann.call("GET", path, status=409)
    assert early["code"] == "wrong_phase" and "TH" not in str(early)
    assert spectator.call("GET", path, status=409)["code"] == "wrong_phase"

    table, undone = play_until(ann, token, lambda t: t["phase"] == "round_over")
    assert undone
    room = stored(app, token)
    assert room.game is not None and len(room.moves) == 1
    moves = logged_moves(recorder, table_key(token), room.version)
    assert list(room.moves[0]) == moves
    assert room.log_total == len(room.game.log) or room.log_total > LOG_KEPT

    # The engine's replay of those moves, and who sat where.
    expected = KCReplay.model_validate(
        with_outcomes(start_of(room.game.match), [moves], 1)
        | {"seats": ["human", "computer", "computer"], "finished_rounds": 1}
    ).model_dump(mode="json")

    calls = {"n": 0}
    real = kc_replay.replay_round

    def counted(*args: Any) -> Any:
        calls["n"] += 1
        return real(*args)

    monkeypatch.setattr(kc_replay, "replay_round", counted)
    before = kc_replay.REPLAYS.computed
    mine = ann.call("GET", path)
    assert calls["n"] == 1 and kc_replay.REPLAYS.computed == before + 1

    assert {k: v for k, v in mine.items() if k not in ("names", "me")} == expected
    assert mine["names"] == ["Ann", None, None] and mine["me"] == [0]
    assert mine["result"]["penalties"] == table["match"]["results"][0]["penalties"]
    assert mine["final"]["hands"] == table["hands"]

    # A spectator (the table's link, no seat) sees it too, from the cache.
    seen = spectator.call("GET", path)
    assert seen["me"] == [] and seen["turns"] == mine["turns"]
    assert ann.call("GET", path) == mine
    assert calls["n"] == 1 and kc_replay.REPLAYS.computed == before + 1

    # No access without the table's token, nor without a player id.
    assert spectator.call("GET", f"{BASE}/{'x' * 24}/rounds/1", status=404)["code"] == "not_found"
    assert client.get(path).status_code == 401
    assert ann.call("GET", f"{BASE}/{token}/rounds/6", status=422)["code"] == "invalid_request"

    # Round 2 dealt: round 1 still replays (its moves are kept), round 2 is not over.
    table = ann.act(table, "next-round")
    assert ann.call("GET", f"{BASE}/{token}/rounds/2", status=409)["code"] == "wrong_phase"
    again = ann.call("GET", path)
    assert again["turns"] == mine["turns"] and calls["n"] == 1
    room = stored(app, token)
    assert len(room.moves) == 2 and list(room.moves[0]) == moves and room.matches == 1


def test_a_room_saved_before_it_kept_moves_loads_and_says_it_cannot_replay(
    app: FastAPI, client: TestClient
) -> None:
    ann = Device(client)
    created = ann.create(
        seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"}], rules={"preset": "simple"}
    )
    token = created["token"]
    ann.act(created["table"], "start")
    play_until(ann, token, lambda t: t["phase"] == "match_over")
    store = app.state.online.store
    record = store.load(table_key(token))
    old = {k: v for k, v in record.state.items() if k not in ("moves", "matches")}
    room = Room.from_dict(old, record.version)
    assert room.moves == () and room.matches == 0
    store.save(record, old, due_at=None, keep_code=False)
    refused = ann.call("GET", f"{BASE}/{token}/rounds/1", status=409)
    assert refused["code"] == "wrong_phase" and "not all kept" in refused["message"]


def test_the_room_keeps_each_move_and_takes_an_undone_one_back() -> None:
    config = Config(2, kc.Rules.preset("standard"), 1, None, 60.0, "normal", 0.0)
    room = Room.create(config, [("me", None, None), ("computer", "easy", None)], "p", "Ann", 0.0)
    room = room.start("p", seed=7, now=0.0)
    assert room.moves == ((),) and room.matches == 1
    assert room.game is not None
    for _ in range(50):
        if room.to_play == 0:
            break
        room = room.advance(1.0) or room
    assert room.to_play == 0 and room.game is not None
    legal = [m for m in room.game.match.view(0)["legal_moves"] if m != "end"]
    assert legal, "seed 7 gives seat 0 a play"
    played = room.move("p", legal[0], 1.0)
    assert played.moves[-1][-1] == legal[0]
    undone = played.undo("p", 1.0)
    assert undone.moves == room.moves
    ended = room.move("p", "end", 1.0)
    assert ended.moves[-1][-1] == "end"
    assert Room.from_dict(ended.to_dict(), ended.version).moves == ended.moves
