"""Placements are saved once and never lost (docs/ps-tables.md "Contention"): eight players
placing the same card at once each get their own row and the next card comes once; a player
and the hint racing for the same seat and card make one placement; and (deep) two server
processes over PostgreSQL, with the devices split between them, play a whole deal placing at
once: every grid is exactly what its device placed, every device's live channel ends on the
same table."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.core.errors import ApiError
from cardtable.server.devices.players import player_key
from cardtable.server.online.codes import table_key
from cardtable.server.pstables import service
from cardtable.server.pstables.driver import advance
from cardtable.server.pstables.lifecycle import tables_of
from cardtable.server.pstables.store import expire
from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess

from .helpers import Device, Live, cell, table_of


def placements(app: FastAPI, token: str) -> list[tuple[int, int, int, str | None]]:
    rows = tables_of(app).store._rows(
        "SELECT seat, card, cell, hint FROM ps_placements WHERE table_id = ? ORDER BY seat, card",
        (table_key(token),),
    )
    return [(int(r[0]), int(r[1]), int(r[2]), r[3]) for r in rows]


def test_eight_players_placing_at_once(client: TestClient, app: FastAPI) -> None:
    people = [Device(client, f"P{i}") for i in range(8)]
    token = table_of(people)
    people[0].act(token, "start")
    tables = tables_of(app)
    keys = [player_key(d.player_id) for d in people]
    for k in range(3):
        with ThreadPoolExecutor(8) as pool:
            answers = list(
                pool.map(
                    lambda i, k=k: service.place(tables, token, keys[i], k, cell(k + i)), range(8)
                )
            )
        assert len(answers) == 8
        assert people[0].get(token)["card"]["index"] == k + 1
    rows = placements(app, token)
    assert len(rows) == 24 and len({(s, c) for s, c, _, _ in rows}) == 24
    assert all(cell_ == (card + seat) % 25 for seat, card, cell_, _ in rows)
    seen = people[0].get(token)["version"]
    assert seen >= 24
    key = table_key(token)
    assert tables.store.versions([key, "no such table"]) == {key: seen}  # the fallback poll's


def test_a_player_and_the_hint_racing_make_one_placement(quiet: TestClient, app: FastAPI) -> None:
    ann, bea = Device(quiet, "Ann"), Device(quiet, "Bea")
    token = table_of([ann, bea], card_seconds=15)
    ann.act(token, "start")
    tables = tables_of(app)
    key = table_key(token)
    bea_key = player_key(bea.player_id)
    for _ in range(6):
        seen = bea.get(token)
        k = seen["card"]["index"]
        if not seen["players"][0]["placed"]:
            ann.act(token, "place", card=k, cell=ann.get(token)["game"]["legal_moves"][0])
        late = datetime.fromisoformat(seen["deadline"]).timestamp() + 1
        where = seen["game"]["legal_moves"][-1]

        def person(k: int = k, where: str = where) -> str:
            try:
                service.place(tables, token, bea_key, k, where)
            except ApiError as exc:
                return exc.code
            return "placed"

        with ThreadPoolExecutor(2) as pool:
            mine = pool.submit(person)
            hinted = pool.submit(advance, tables, key, late)
            outcome = mine.result()
            hinted.result()
        assert outcome in ("placed", "already_placed", "stale_card", "illegal_move")
        rows = [r for r in placements(app, token) if r[0] == 1 and r[1] == k]
        assert len(rows) == 1
        assert (rows[0][3] is None) == (outcome == "placed")
        assert ann.get(token)["card"]["index"] > k


# Deep: two real processes over PostgreSQL take ~20 s to start and play; the fast guards are
# the two tests above (one process, SQLite) and test_live.py's whole deal.
@pytest.mark.deep
def test_two_processes_over_postgresql_lose_and_double_nothing(
    postgres_url: str, tmp_path: Path
) -> None:
    with fresh_schema(postgres_url) as url:
        a = ServeProcess(tmp_path / "a", tmp_path / "a.log", url)
        b = ServeProcess(tmp_path / "b", tmp_path / "b.log", url)
        try:
            with ThreadPoolExecutor(2) as pool:
                for started in [pool.submit(p.start, 90) for p in (a, b)]:
                    started.result()
            _play_across(a.base, b.base)
        finally:
            a.stop()
            b.stop()


def _play_across(base_a: str, base_b: str) -> None:
    with (
        httpx.Client(base_url=base_a, timeout=10) as ha,
        httpx.Client(base_url=base_b, timeout=10) as hb,
    ):
        bases = [base_a, base_b, base_a, base_b]
        people = [
            Device(h, n) for h, n in zip((ha, hb, ha, hb), ("Ann", "Bea", "Cy", "Dee"), strict=True)
        ]
        token = table_of(people)
        lives = [Live(base, token, d) for base, d in zip(bases, people, strict=True)]
        try:
            people[0].act(token, "start")
            mine: list[list[tuple[int, str]]] = [[] for _ in people]
            for k in range(25):
                with ThreadPoolExecutor(4) as pool:
                    placed = [
                        pool.submit(d.act, token, "place", card=k, cell=cell((k * 7 + 3 * i) % 25))
                        for i, d in enumerate(people)
                    ]
                    for i, f in enumerate(placed):
                        f.result()
                        mine[i].append((k, cell((k * 7 + 3 * i) % 25)))
            ends = [live.until(lambda t: t["phase"] == "over") for live in lives]
            assert len({e["version"] for e in ends}) == 1
            result = ends[0]["result"]
            for i, ranked in enumerate(sorted(result["ranking"], key=lambda r: r["seat"])):
                grid = ranked["game"]["grid"]
                for k, where in mine[i]:
                    assert grid[int(where[1]) - 1]["abcde".index(where[0])] == result["cards"][k]
            assert not ends[0]["log"]  # nobody was placed for: nothing lost on the way
        finally:
            for live in lives:
                live.close()


def test_retention_deletes_old_tables_with_their_placements(
    client: TestClient, app: FastAPI
) -> None:
    ann, bea = Device(client, "Ann"), Device(client, "Bea")
    lobby = ann.create()["token"]
    token = table_of([ann, bea])
    ann.act(token, "start")
    ann.act(token, "place", card=0, cell="a1")
    runtime = app.state.runtime
    hours = runtime.settings.online
    assert expire(runtime, time.time()) == 0
    assert expire(runtime, time.time() + hours.lobby_hours * 3600 + 60) == 1  # the lobby
    ann.get(lobby, status=404)
    assert expire(runtime, time.time() + hours.idle_hours * 3600 + 60) == 1
    ann.get(token, status=404)
    assert placements(app, token) == []
