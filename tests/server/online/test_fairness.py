"""Online tables deal like local ones (docs/fairness.md): every device's and the spectator's
view carries the round's commitment from its first card, the seed and salt only once the round
is over, and those recompute the very position each device was dealt. The match seed never
leaves the server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.codes import table_key
from cardtable.server.online.room import Room
from tests.support.live_server import live_server

from .helpers import JSON, Device, Recorder


class Watched(Device):
    """A device that keeps the text of every answer it got."""

    texts: list[str]

    def call(self, method: str, path: str, body: JSON = None, status: int = 200) -> JSON:
        data = super().call(method, path, body, status)
        self.__dict__.setdefault("texts", []).append(json.dumps(data))
        return data


def _room(app: FastAPI, token: str) -> Room:
    """The table as the store holds it (the test reads the match seed the server keeps)."""
    record = app.state.online.store.load(table_key(token))
    assert record is not None
    return Room.from_dict(record.state, record.version)


def _fair(table: JSON) -> dict[str, Any]:
    fair = table["view"]["fairness"]
    assert fair is not None, "an online round must carry its commitment"
    assert fair["algorithm"] == fairness.ALGORITHM
    return dict(fair)


def _without_fairness(view: JSON) -> JSON:
    return {k: v for k, v in view.items() if k != "fairness"}


def _play_round(devices: dict[int, Device], token: str, done: Callable[[JSON], bool]) -> JSON:
    """Every person plays their first legal move but "end" (else "end") until ``done``;
    every answer on the way must keep the round's seed and salt back."""
    any_device = next(iter(devices.values()))
    for _ in range(2000):
        table = any_device.get(token)
        if done(table):
            return table
        fair = _fair(table)
        assert fair["seed"] is None and fair["salt"] is None, table["phase"]
        seat = table["turn"]["seat"]
        device = devices[seat]
        mine = device.get(token)
        if mine["turn"] is None or mine["turn"]["seat"] != seat:
            continue
        moves = mine["view"]["legal_moves"]
        played = device.act(mine, "moves", move=next((m for m in moves if m != "end"), "end"))
        if played["phase"] == "play":
            assert _fair(played)["seed"] is None
    raise AssertionError("the round did not end")


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_an_online_round_commits_first_and_reveals_at_its_end(
    app: FastAPI, client: TestClient
) -> None:
    recorder = Recorder(app)
    ann, bob, sam = (Watched(client, recorder) for _ in range(3))
    created = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}], rounds=3,
                         rules={"preset": "standard"})  # fmt: skip
    token = created["token"]
    assert created["table"]["view"] is None  # the lobby: no deal, nothing to commit to yet
    lobby = bob.act(created["table"], "join", name="Bob")
    assert lobby["view"] is None

    # The first card: every device and the spectator get the same commitment, no seed.
    started = ann.act(lobby, "start")
    first = {0: started, 1: bob.get(token), None: sam.get(token)}
    assert {t["version"] for t in first.values()} == {started["version"]}
    assert [t["viewer"] for t in first.values()] == [0, 1, None]
    commitments = set()
    for table in first.values():
        fair = _fair(table)
        assert fair["seed"] is None and fair["salt"] is None and fair["round"] == 1
        commitments.add(fair["commitment"])
    assert len(commitments) == 1
    committed = commitments.pop()

    # The server's own record: round 1 is dealt from round_fair(match seed, 1).
    match_seed = _room(app, token).game.match.fair_seed  # type: ignore[union-attr]
    assert match_seed is not None
    assert fairness.round_fair(match_seed, 1).commitment == committed

    over = _play_round({0: ann, 1: bob}, token, lambda t: t["phase"] == "round_over")
    revealed = {0: ann.get(token), 1: bob.get(token), None: sam.get(token)}
    for table in (over, *revealed.values()):
        fair = _fair(table)
        assert fair["commitment"] == committed and fair["round"] == 1
        assert fair["seed"] is not None and fair["salt"] is not None
    fair = _fair(over)
    assert fairness.commitment(fair["seed"], fair["salt"]) == committed
    assert fairness.verify(fair["seed"], fair["salt"], committed).ok

    # The revealed seed deals exactly the position each device and the spectator were shown.
    dealt = kc.deal(2, kc.Rules.preset("standard"), 0, first=started["view"]["to_play"],
                    fair=fairness.Fair(fair["seed"], fair["salt"]))  # fmt: skip
    for seat, table in first.items():
        assert kc.ENGINE.view(dealt, seat) == _without_fairness(table["view"])
    deck = [str(c) for c in fairness.fair_deck(fair["seed"])]
    assert set(deck[7:14]) <= set(first[1]["view"]["hand"])  # Bob was dealt cards 8-14

    # Round 2: a new commitment at once, its seed and salt held back again.
    second = bob.act(revealed[1], "next-round")
    assert second["match"]["round"] == 2
    fair2 = _fair(second)
    assert fair2["round"] == 2 and fair2["seed"] is None and fair2["salt"] is None
    assert fair2["commitment"] == fairness.round_fair(match_seed, 2).commitment != committed
    assert _fair(sam.get(token))["commitment"] == fair2["commitment"]

    # The match seed, and round 2's seed and salt, appeared in no answer to anyone.
    secret2 = fairness.round_fair(match_seed, 2)
    texts = [text for device in (ann, bob, sam) for text in device.texts]
    assert len(texts) > 20
    for secret in (match_seed, secret2.seed, secret2.salt):
        assert not any(secret in text for text in texts)


def test_a_table_dealt_with_a_test_seed_has_no_fairness(client: TestClient) -> None:
    """X-Test-Seed deals from the integer seed (as local games do): nothing to verify."""
    ann_client = Device(client)
    created = ann_client.create(seats=[{"kind": "me"}, {"kind": "computer"}])
    table = ann_client.http.post(
        f"/api/kings-corner/online/{created['token']}/start",
        json={"version": created["table"]["version"]},
        headers={"X-Player-Id": ann_client.player_id, "X-Test-Seed": "7"},
    )
    assert table.status_code == 200, table.text
    assert table.json()["view"]["fairness"] is None


def test_the_live_channel_carries_the_commitment_and_the_reveal(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data", database_url=None, allow_seed_for_tests=True,
        player_rate=None, signup_rate=None,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0),
    )  # fmt: skip
    app = create_app(settings)

    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        recorder = Recorder(app)
        ann, bob, sam = (Device(http, recorder) for _ in range(3))
        created = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}], rules={"preset": "simple"})
        token = created["token"]
        bob.act(created["table"], "join", name="Bob")
        with ann.live(base, token) as live_a, sam.live(base, token) as live_s:
            settled = live_a.until(
                lambda t: t["seats"][0]["connection"] == "online" and t["spectators"] == 1
            )
            started = ann.act(settled, "start")
            pushed_a = live_a.until(lambda t: t["version"] >= started["version"])
            pushed_s = live_s.until(lambda t: t["version"] >= started["version"])
            assert pushed_s["viewer"] is None and pushed_a["viewer"] == 0
            committed = _fair(started)["commitment"]
            for pushed in (pushed_a, pushed_s):
                fair = _fair(pushed)
                assert fair["commitment"] == committed and fair["seed"] is None
            over = _play_round({0: ann, 1: bob}, token, lambda t: t["phase"] == "match_over")
            for live in (live_a, live_s):
                end = live.until(lambda t: t["version"] >= over["version"])
                fair = _fair(end)
                assert fair["commitment"] == committed
                assert fairness.commitment(fair["seed"], fair["salt"]) == committed
            # Every pushed table before the end kept the seed back.
            for live in (live_a, live_s):
                for pushed in live.tables:
                    if pushed["view"] is not None and pushed["phase"] != "match_over":
                        assert _fair(pushed)["seed"] is None
        assert recorder.checked > 10
