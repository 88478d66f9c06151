"""Web Push under a wave of deadlines: 1,000 turn-based tables whose turn deadlines fall due
at the same moment, each player's device subscribed on a push service on loopback.

    python -m bench.push [--tables 1000] [--deadline 240]

The tables are built in the store directly (a 2-seat turn-based table, 12 hours a turn, both
seats people who are not at the table, the match dealt as if 12 hours ago, so every first turn
runs out at T, some 25 s after the server starts), and both players' devices are subscribed
(English, "your turn") with keys made here as a browser makes them. Then one real
``cardtable serve`` process (SQLite in a temporary folder) is started; its driver plays each
missed turn for its person at T (a computer plays the turn, docs/online.md), which passes the
turn to the other person, whose device is told: one notification per table, signed (VAPID)
and encrypted (aes128gcm), checked and decrypted by the push service
(tests/support/push_service.py) in this process.

Beside it an ordinary live table of two players over HTTP passes the turn ("end") back and
forth, one move at a time: its move latency is measured before T (idle) and from T until the
last notification arrived (under the wave), p50/p99 each.

Figures: seconds from T until every missed turn was played (no table left due), and until
every notification arrived; the ordinary move's idle and loaded p99 (goal: loaded at most 3x
idle); notifications lost (a table's device told nothing) and doubled (told twice), and the
answers the push service gave. Bounded: ``--deadline`` seconds after T at most.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from cardtable import kings_corner as kc
from cardtable.server import Settings
from cardtable.server.core.runtime import Runtime
from cardtable.server.online import codes
from cardtable.server.online.room import Config, Room
from cardtable.server.online.store import OnlineStore
from cardtable.server.push.store import PushStore

PACE = 43200.0
LEAD = 25.0
"""Seconds from the server's start to T: its start, and the idle measurement, fit in it."""


def build(data: Path, tables: int, due: float, service: Any) -> dict[str, tuple[str, str]]:
    """The tables and subscriptions, in the store: {table key: (the subscription id of the
    device whose turn comes after the missed one, that of the other device)}."""
    runtime = Runtime(Settings(data_dir=data, database_url=None))
    store = runtime.store
    online, push = OnlineStore(store), PushStore(store)
    config = Config(2, kc.Rules(), 1, PACE, 60.0, "normal", 0.0, pace="turn")
    expect: dict[str, tuple[str, str]] = {}
    made = due - PACE
    for i in range(tables):
        host, guest = os.urandom(32).hex(), os.urandom(32).hex()
        store.create_player(host)
        store.create_player(guest)
        token = codes.new_token()
        room = Room.create(config, [("me", None, None), ("invite", None, None)], host, "Ana",
                           made, invite=token)  # fmt: skip
        joined = room.join(guest, "Bob", None, made)
        assert joined is not None
        room = joined.start(host, i, made)
        assert room.turn_deadline == due, room.turn_deadline
        key = codes.table_key(token)
        online.create(key, room.to_dict(), at=made, code_until=made + 3600, due_at=room.due_at)
        first = room.to_play
        assert first is not None
        subs = {}
        for player in (host, guest):
            sub = service.new_subscription()
            j = sub.as_json()
            keys = j["keys"]
            push.subscribe(player, player, j["endpoint"], keys["p256dh"], keys["auth"],
                           lang="en", all_tables=True, events=["turn", "over"],
                           table=None)  # fmt: skip
            subs[player] = sub.id
        # The missed turn passes to the other seat: that person's device is told (or, when
        # the computer's turn ended the match, both are told it is over).
        other = room.seats[1 - first].player
        assert other is not None
        expect[key] = (subs[other], subs[room.seats[first].player or ""])
    runtime.close()
    return expect


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mover:
    """The ordinary table: two players passing the turn, each move's latency recorded."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        ids = [self.http.post("/api/players").json()["player_id"] for _ in range(2)]
        self.ids = ids
        api = "/api/kings-corner/online"
        body = {"name": "Cy", "seats": [{"kind": "me"}, {"kind": "invite"}]}
        made = self.http.post(api, json=body, headers={"X-Player-Id": ids[0]}).json()
        self.url = f"{api}/{made['token']}"
        table = self.get(0)
        self.http.post(f"{self.url}/join", json={"version": table["version"], "name": "Di"},
                       headers={"X-Player-Id": ids[1]}).raise_for_status()  # fmt: skip
        table = self.get(0)
        self.http.post(f"{self.url}/start", json={"version": table["version"]},
                       headers={"X-Player-Id": ids[0]}).raise_for_status()  # fmt: skip
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def get(self, who: int) -> dict[str, Any]:
        r = self.http.get(self.url, headers={"X-Player-Id": self.ids[who]})
        r.raise_for_status()
        found: dict[str, Any] = r.json()
        return found

    def run(self) -> None:
        table = self.get(0)
        while not self.stop.is_set():
            who = table["turn"]["seat"]
            began = time.perf_counter()
            move = {"move": "end", "version": table["version"]}
            r = self.http.post(f"{self.url}/moves", json=move,
                               headers={"X-Player-Id": self.ids[who]})  # fmt: skip
            took = time.perf_counter() - began
            if r.status_code == 200:
                self.samples.append((time.time(), took))
                table = r.json()
            else:
                table = self.get(0)
            time.sleep(0.05)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--deadline", type=float, default=240.0)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.push_service import PushService

    service = PushService().start()
    with tempfile.TemporaryDirectory(prefix="bench-push-") as tmp:
        data = Path(tmp) / "data"
        t0 = time.perf_counter()
        due = time.time() + LEAD + args.tables * 0.02 + 10
        expect = build(data, args.tables, due, service)
        print(f"built {args.tables} tables in {time.perf_counter() - t0:.1f} s; "
              f"T in {due - time.time():.1f} s", flush=True)  # fmt: skip
        port = free_port()
        env = {**os.environ, "CARDTABLE_PUSH_HOSTS": "127.0.0.1", "CARDTABLE_PUSH_ALLOW_HTTP": "1"}
        env.pop("DATABASE_URL", None)
        log = open(Path(tmp) / "serve.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [sys.executable, "-m", "cardtable.cli.main", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--data", str(data)],
            env=env, stdout=log, stderr=log,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
            assert time.time() < due - 5, "the server started too late: raise LEAD"
            mover = Mover(base)
            thread = threading.Thread(target=mover.run, daemon=True)
            thread.start()
            runtime = Runtime(Settings(data_dir=data, database_url=None))
            online = OnlineStore(runtime.store)
            played_at = delivered_at = None
            end = due + args.deadline
            while time.time() < end:
                now = time.time()
                if now > due and played_at is None and not online.due(due + 1, 1):
                    played_at = now
                if len({r.sub for r in service.received}) >= len(expect) and delivered_at is None:
                    # At least one device per table; the end counts exactly who was told.
                    delivered_at = now
                if played_at is not None and delivered_at is not None:
                    break
                time.sleep(0.1)
            time.sleep(1.0)  # late duplicates would arrive now
            mover.stop.set()
            thread.join(timeout=10)
            wanted: dict[str, int] = {}
            ended = 0
            for key, (told, other) in expect.items():
                record = online.load(key)
                assert record is not None
                if Room.from_dict(record.state, record.version).phase == "match_over":
                    ended += 1
                    wanted[told] = wanted[other] = 1
                else:
                    wanted[told] = 1
            print(f"outbox left: {PushStore(runtime.store).waiting()}")
            runtime.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.close()
            service.stop()
        got: dict[str, int] = {}
        for r in service.received:
            got[r.sub] = got.get(r.sub, 0) + 1
        lost = sum(1 for s in wanted if got.get(s, 0) == 0)
        doubled = sum(1 for n in got.values() if n > 1)
        stray = sum(1 for s in got if s not in wanted)
        stop = delivered_at or time.time()
        idle = [d for at, d in mover.samples if at < due]
        loaded = [d for at, d in mover.samples if due <= at <= stop]
        played = (played_at - due) if played_at else float("nan")
        delivered = (delivered_at - due) if delivered_at else float("nan")
        print(f"tables {args.tables}; missed turns all played after {played:.1f} s; "
              f"notifications all delivered after {delivered:.1f} s")  # fmt: skip
        print(f"matches the missed turn ended: {ended} (both devices told it is over)")
        print(f"delivered {len(service.received)} of {len(wanted)}: lost {lost}, doubled "
              f"{doubled}, to an unexpected device {stray}; push service answers "
              f"{service.answered}; refused {len(service.refused)}")  # fmt: skip
        print(f"ordinary move: idle n={len(idle)} p50 {statistics.median(idle) * 1000:.1f} ms "
              f"p99 {pct(idle, 0.99) * 1000:.1f} ms; under the wave n={len(loaded)} p50 "
              f"{statistics.median(loaded) * 1000 if loaded else float('nan'):.1f} ms p99 "
              f"{pct(loaded, 0.99) * 1000:.1f} ms "
              f"({pct(loaded, 0.99) / pct(idle, 0.99):.2f}x idle)")  # fmt: skip


if __name__ == "__main__":
    main()
