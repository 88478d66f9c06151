"""An online round through the proxy, with one device's socket on each process: one process
is killed mid-round (SIGKILL, as a machine going away), the device that was on it reconnects
through the proxy to the other within the grace period, the round is played to its end, and
every move the server acknowledged before the kill is in the table afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.server.online.helpers import JSON, Device, Live

from .conftest import Site

ROUND_MOVES = 600
"""More than any round takes (a turn ends after at most a hand's worth of moves)."""


class Seat:
    """A device at the table and its live connection, opened again when it is closed."""

    def __init__(self, device: Device, site: Site, token: str, stack: ExitStack) -> None:
        self.device, self.site, self.token, self.stack = device, site, token, stack
        self.reconnects = 0
        self.live = self.connect()

    def connect(self, version: int | None = None) -> Live:
        live = self.stack.enter_context(self.device.live(self.site.base, self.token, version))
        live.until(lambda t: True)
        return live

    def until(self, version: int) -> JSON:
        """The table at ``version`` or later, reconnecting (through the proxy) if the
        process this device's socket was on has gone."""
        while True:
            try:
                return self.live.until(lambda t: t["version"] >= version)
            except ConnectionClosed:
                self.reconnects += 1
                self.live = self.connect()


def act(device: Device, table: JSON, action: str, **body: Any) -> JSON | None:
    """``action`` on the table as it is: a 409 ``stale_version`` (a seat's connection
    changed meanwhile, which is a new version) is tried again on the version it returns.
    None for a 502: the proxy had sent the request to the process as it was killed (nginx
    never sends a move twice), so whether it was made is not known, as for a page whose
    request failed; the table says."""
    for _ in range(10):
        r = device.http.post(
            f"/api/kings-corner/online/{table['token']}/{action}",
            json={**body, "version": table["version"]},
            headers={"X-Player-Id": device.player_id},
        )
        if r.status_code == 200:
            answer: JSON = r.json()
            return answer
        if r.status_code == 502:
            return None
        assert r.status_code == 409 and r.json()["code"] == "stale_version", r.text
        table = r.json()["current"]
    raise AssertionError(f"{action}: the table kept changing")


def sockets_on(site: Site, token: str) -> tuple[int, int]:
    """How many live connections to the table each process has accepted so far (its log)."""
    line = f'{token}/live" [accepted]'
    return site.a.output().count(line), site.b.output().count(line)


@pytest.fixture
def http(site: Site) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site.base, timeout=30) as client:
        yield client


def _connect_on(site: Site, seat: Seat, token: str) -> str:
    """Open ``seat``'s live connection again; the process that took it (``a`` or ``b``)."""
    before = sockets_on(site, token)
    seat.live.ws.close()
    seat.live = seat.connect()
    after = sockets_on(site, token)
    return "a" if after[0] > before[0] else "b"


def _split(site: Site, seats: list[Seat], token: str) -> None:
    """Open the devices' sockets again until they are on different processes (the proxy
    hands connections to the processes in turn, so it nearly always takes one try)."""
    for _ in range(8):
        if _connect_on(site, seats[0], token) != _connect_on(site, seats[1], token):
            return
    raise AssertionError(f"the proxy put every socket on one process: {sockets_on(site, token)}")


def test_a_round_goes_on_through_the_other_process_when_one_is_killed(
    site: Site, http: httpx.Client
) -> None:
    ann, bob = Device(http), Device(http)
    created = ann.create()
    token = created["token"]
    bob.act(created["table"], "join", name="Bob")
    acknowledged: list[dict[str, Any]] = []
    with ExitStack() as stack:
        seats = [Seat(ann, site, token, stack), Seat(bob, site, token, stack)]
        _split(site, seats, token)
        table = seats[0].live.until(
            lambda t: all(s["connection"] == "online" for s in t["seats"] if s["kind"] == "person")
        )
        started = act(ann, table, "start")
        assert started is not None
        table = started
        killed = False
        for _ in range(ROUND_MOVES):
            if table["phase"] != "play":
                break
            if not killed and len(acknowledged) >= 6:
                site.a.kill()
                killed = True
            seat = table["turn"]["seat"]
            mine = seats[seat].until(table["version"])
            cards = [m for m in mine["view"]["legal_moves"] if m != "end"]
            done = act(seats[seat].device, mine, "moves", move=cards[0] if cards else "end")
            if done is None:
                table = ann.get(token)
                continue
            table = done
            acknowledged.append(table["log"][-1])
        else:
            raise AssertionError("the round did not end")
        assert killed, "the round ended before the kill"
        # Both devices see the round's end; the one whose socket was on the killed process
        # comes back through the other (here, if the round ended before it had to play again).
        final = seats[0].until(table["version"])
        assert seats[1].until(table["version"])["version"] == final["version"]
        assert sum(s.reconnects for s in seats) >= 1
    # Both seats are still the people's: the reconnect came within the grace period.
    assert [s["kind"] for s in final["seats"]] == ["person", "person"]
    assert final["phase"] in ("round_over", "match_over")
    # Every acknowledged move is in the table's log (numbered entries, never rewritten).
    kept = {e["n"]: e for e in final["log"]}
    assert max(kept) >= max(e["n"] for e in acknowledged)
    for entry in acknowledged:
        if entry["n"] >= min(kept):
            assert kept[entry["n"]] == entry
    site.a.start(90, same_port=True)
