"""The live channel of a Poker Squares table on a real server (uvicorn on loopback, real
WebSockets): every device hears of each placement and gets the next card when everyone has
placed; presence and the grace; and a whole deal of three devices, one of them late once
(the hint places for it when the timer runs out), with every answer and every live message
scanned for hidden information (a card after the one on show, another player's grid)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import FastAPI

from cardtable.server.online.codes import table_key
from cardtable.server.pstables.driver import advance
from cardtable.server.pstables.lifecycle import tables_of
from tests.support.live_server import live_server

from .helpers import JSON, Device, Live, scan, table_of


@pytest.fixture
def server(app: FastAPI) -> Iterator[tuple[str, httpx.Client]]:
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        yield base, http


def until(check: Callable[[], bool]) -> None:
    """Wait for ``check`` to hold (what another thread makes happen), at most 10 s."""
    end = time.monotonic() + 10
    while not check():
        assert time.monotonic() < end, "never happened"
        time.sleep(0.01)


def card_is(index: int) -> Callable[[JSON], bool]:
    return lambda t: t["card"] is not None and t["card"]["index"] == index


def test_every_device_gets_the_next_card_when_all_have_placed(
    server: tuple[str, httpx.Client],
) -> None:
    base, http = server
    ann, bea = Device(http, "Ann"), Device(http, "Bea")
    token = table_of([ann, bea])
    lives = [Live(base, token, d) for d in (ann, bea)]
    try:
        for live in lives:
            live.until(lambda t: all(p["presence"] == "here" for p in t["players"]))
        ann.act(token, "start")
        for live in lives:
            assert live.until(card_is(0))["placed"] == 0
        done = ann.act(token, "place", card=0, cell="a1")
        for live in lives:
            seen = live.until(lambda t: t["version"] >= done["version"])
            assert seen["placed"] == 1 and seen["card"]["index"] == 0
        bea.act(token, "place", card=0, cell="e5")
        shown = [live.until(card_is(1)) for live in lives]
        assert shown[0]["card"] == shown[1]["card"] and shown[0]["placed"] == 0
        assert shown[0]["game"]["grid"][0][0] and shown[1]["game"]["grid"][4][4]
        assert shown[0]["game"]["grid"][4][4] is None  # Bea's card is not on Ann's grid
    finally:
        for live in lives:
            live.close()


def test_a_dropped_player_is_away_after_the_grace(
    server: tuple[str, httpx.Client], app: FastAPI
) -> None:
    base, http = server
    ann, bea = Device(http, "Ann"), Device(http, "Bea")
    token = table_of([ann, bea])
    ann.act(token, "start")
    stays = Live(base, token, ann)
    drops = Live(base, token, bea)
    try:
        until(lambda: [p["presence"] for p in ann.get(token)["players"]] == ["here", "here"])
        drops.close()
        until(lambda: ann.get(token)["players"][1]["presence"] == "reconnecting")
        tables = tables_of(app)
        key = table_key(token)
        grace = tables.settings.grace_seconds
        ann.act(token, "place", card=0, cell="a1")
        assert not advance(tables, key, time.time() + grace / 2)
        assert advance(tables, key, time.time() + grace + 1)  # away; the hint places card 0
        after = ann.get(token)
        assert after["players"][1]["presence"] == "away" and after["card"]["index"] == 1
        entry = after["log"][0]
        assert (entry["seat"], entry["card"], entry["reason"]) == (1, 0, "away")
        back = Live(base, token, bea)  # coming back: here again
        until(lambda: ann.get(token)["players"][1]["presence"] == "here")
        back.close()
    finally:
        stays.close()


def test_a_whole_deal_shows_no_device_what_it_may_not_see(
    server: tuple[str, httpx.Client], app: FastAPI
) -> None:
    base, http = server
    people = [Device(http, n) for n in ("Ann", "Bea", "Cy")]
    watcher = Device(http, "Watcher")
    token = table_of(people, card_seconds=30)
    lives = [Live(base, token, d) for d in (*people, watcher)]
    tables = tables_of(app)
    try:
        people[0].act(token, "start")
        for live in lives:
            live.until(card_is(0))
        for k in range(25):
            for i, d in enumerate(people):
                if k == 7 and i == 2:
                    continue  # Cy is late for card 7: the timer runs out
                free = lives[i].table["game"]["legal_moves"]
                d.act(token, "place", card=k, cell=free[(3 * k + i) % len(free)])
            if k == 7:
                deadline = people[0].get(token)["deadline"]
                assert deadline is not None
                assert advance(tables, table_key(token), time.time() + 31)
            for live in lives:
                live.until(card_is(k + 1) if k < 24 else (lambda t: t["phase"] == "over"))
        over = people[0].get(token)
        assert any(e["reason"] == "timer" and e["card"] == 7 for e in over["log"])
        result, seed = over["result"], over["fairness"]["seed"]
        for seat, d in enumerate(people):
            assert scan(d.sent, seat, result, seed) > 40
        assert scan(watcher.sent, None, result, seed) >= 25
        finals = {live.table["version"] for live in lives}
        assert len(finals) == 1  # the same last table everywhere, ranking and all
    finally:
        for live in lives:
            live.close()
