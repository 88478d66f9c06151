"""A Poker Squares move is one store transaction (issue 28), on SQLite and PostgreSQL: the
caller's credential and the game read by one statement, the move saved by the same
compare-and-set, no other read or write; a device signed out or a record deleted through
one app is refused by the very next move through a second app on the same store (another
server process); a move that loses its compare-and-set to a write committed meanwhile is
refused with the game as it is now and writes nothing."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.store import Caller, Change, GameRecord, StaleVersion
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api, Clock, store_settings

T0 = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=0) as settings:
        yield settings


def store_of(app: FastAPI) -> SqlStore:
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    return store


BACKGROUND = ("cardtable/server/online/", "cardtable/server/core/retention.py")
"""Where the app's background loops live: the online deadline driver reads the store on its
own every moment (due tables, presence), and under load one of its rounds can fall inside a
move. Those are not the move's."""


def _from_background() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename.replace("\\", "/")
        if any(part in name for part in BACKGROUND):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class Spy:
    """Counts the store's transactions and reads, and the statements run in them, other
    than the background loops' (`BACKGROUND`)."""

    def __init__(self, store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.transactions = 0
        self.reads = 0
        self.statements: list[str] = []
        monkeypatch.setattr(store, "transaction", self._wrap(store.transaction, "transactions"))
        monkeypatch.setattr(store, "reading", self._wrap(store.reading, "reads"))

    def _wrap(
        self, opener: Callable[[], AbstractContextManager[Any]], counter: str
    ) -> Callable[[], AbstractContextManager[Any]]:
        spy = self

        @contextmanager
        def opened() -> Iterator[Any]:
            if _from_background():
                with opener() as tx:
                    yield tx
                return
            setattr(spy, counter, getattr(spy, counter) + 1)
            with opener() as tx:
                yield _Counted(tx, spy.statements)

        return opened

    def reset(self) -> None:
        self.transactions = self.reads = 0
        self.statements.clear()


class _Counted:
    def __init__(self, tx: Any, statements: list[str]) -> None:
        self._tx = tx
        self._statements = statements

    def execute(self, sql: str, params: Any = ()) -> Any:
        self._statements.append(_what(sql))
        return self._tx.execute(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)


def _what(sql: str) -> str:
    """A statement's verb and table: ``SELECT credentials``, ``UPDATE games``, ..."""
    words = sql.split()
    verb = words[0].upper()
    if verb == "SELECT":
        return f"SELECT {words[[w.upper() for w in words].index('FROM') + 1]}"
    if verb == "INSERT":
        return f"INSERT {words[2]}"
    return f"{verb} {words[1]}"


def code_for(api: Api) -> str:
    code: str = api.post("/api/devices/transfer", status=201)["code"]
    return code


def second_device(client: TestClient, api: Api) -> Api:
    r = client.post("/api/devices/claim", json={"code": code_for(api)})
    assert r.status_code == 201, r.text
    return Api(client, r.json()["player_id"])


def versions(app: FastAPI, game_id: str) -> tuple[int, list[int]]:
    """The game row's version and the versions its move log holds."""
    store = store_of(app)
    with store.reading() as tx:
        tx.execute(store._sql("SELECT version FROM games WHERE id = ?"), (game_id,))
        version = int(tx.fetchone()[0])
        tx.execute(
            store._sql("SELECT version FROM moves WHERE game_id = ? ORDER BY version"),
            (game_id,),
        )
        return version, [int(r[0]) for r in tx.fetchall()]


def last_used(app: FastAPI, player_id: str) -> str:
    store = store_of(app)
    with store.reading() as tx:
        tx.execute(
            store._sql("SELECT last_used_at FROM credentials WHERE cred = ?"),
            (player_key(player_id),),
        )
        return str(tx.fetchone()[0])


# -- one transaction -------------------------------------------------------------------------
def test_the_spy_leaves_out_the_background_loops_reads(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The online driver's round (due tables, presence) is not counted; the same read from
    the test is."""
    spy = Spy(store_of(app), monkeypatch)
    app.state.online.driver.once()
    assert (spy.transactions, spy.reads) == (0, 0)
    with store_of(app).reading():
        pass
    assert (spy.transactions, spy.reads) == (0, 1)


def test_a_move_and_an_undo_are_one_transaction_each(
    app: FastAPI, client: TestClient, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(T0)
    app.state.devices_clock = clock
    game = api.ps_new()  # records the device's use at T0
    clock.at = T0 + timedelta(minutes=4)
    spy = Spy(store_of(app), monkeypatch)
    for cell in range(3):
        spy.reset()
        game = api.ps(game, "moves", row=0, col=cell)
        assert (spy.transactions, spy.reads) == (1, 0)
        assert game["version"] == 2 + cell
        # The credential's last use is under 5 minutes old: read, not written.
        assert spy.statements == ["SELECT credentials", "UPDATE games", "INSERT moves"]
    assert last_used(app, str(api.player_id)) == T0.isoformat(timespec="microseconds")
    spy.reset()
    game = api.ps(game, "undo")
    assert (spy.transactions, spy.reads, len(spy.statements)) == (1, 0, 3)
    assert versions(app, game["id"]) == (5, [1, 2, 3, 4, 5])
    # Six minutes on, a move records the use again, still in its one transaction.
    clock.at = T0 + timedelta(minutes=6)
    spy.reset()
    api.ps(game, "moves", row=0, col=2)
    assert (spy.transactions, spy.reads) == (1, 0)
    assert spy.statements == [
        "SELECT credentials",
        "UPDATE games",
        "INSERT moves",
        "UPDATE credentials",
    ]
    assert last_used(app, str(api.player_id)) == clock.at.isoformat(timespec="microseconds")


def test_refused_moves_write_nothing(
    app: FastAPI, client: TestClient, api: Api, other: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another player's game and an unknown id are 404, a filled cell 409, an old version
    409 with the game as it is: each in the one transaction, rolled back."""
    game = api.ps_new()
    moved = api.ps(game, "moves", row=0, col=0)
    spy = Spy(store_of(app), monkeypatch)
    assert other.ps(moved, "moves", status=404, row=0, col=1)["code"] == "not_found"
    assert api.post(
        "/api/poker-squares/games/no-such-game/moves", {"version": 2, "row": 0, "col": 1}, 404
    )["code"] == ("not_found")
    assert api.ps(moved, "moves", status=409, row=0, col=0)["code"] == "illegal_move"
    stale = api.ps(game, "moves", status=409, row=0, col=1)
    assert stale["code"] == "stale_version" and stale["current"] == moved
    assert (spy.transactions, spy.reads) == (4, 0)
    assert versions(app, game["id"]) == (2, [1, 2])


def test_requests_off_the_fast_lane_are_answered_as_before(client: TestClient, api: Api) -> None:
    """No id, a malformed id, an unknown id, a body the model refuses, another content
    type: FastAPI's own handler answers, as for every other route."""
    game = api.ps_new()
    path = f"/api/poker-squares/games/{game['id']}/moves"
    body = {"version": game["version"], "row": 0, "col": 0}
    for headers in ({}, {"X-Player-Id": "short"}, {"X-Player-Id": "u" * 32}):
        r = client.post(path, json=body, headers=headers)
        assert (r.status_code, r.json()["code"]) == (401, "no_player")
    for bad in ({**body, "row": 5}, {**body, "version": "2"}, {**body, "extra": 1}, [1]):
        r = client.post(path, json=bad, headers=api.headers)
        assert r.status_code == 422, r.text
    r = client.post(path, content=b"{", headers={**api.headers, "content-type": "application/json"})
    assert r.status_code == 422, r.text
    r = client.post(
        path,
        content=b'{"version": 1, "row": 0, "col": 0}',
        headers={**api.headers, "content-type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 200, r.text  # through FastAPI's handler: the same move
    assert r.json()["version"] == 2


def test_a_player_without_a_credential_row_is_adopted_by_a_move(
    app: FastAPI, client: TestClient
) -> None:
    """A player made by code from before migration 8 has no credential row: its first
    move makes the one it would have had, then plays."""
    legacy = "L" * 32
    store = store_of(app)
    with store.transaction() as tx:
        tx.execute(
            store._sql("INSERT INTO players (id, created_at) VALUES (?, ?)"),
            (player_key(legacy), T0.isoformat()),
        )
    # A real deal's state, saved as the legacy player's game.
    dealer = Api.new_player(client)
    made = dealer.ps_new()
    state = store.load_game(made["id"], player_key(str(dealer.player_id)))
    assert state is not None
    record = store.create_game(player_key(legacy), "poker-squares", state.state, finished=False)
    old = Api(client, legacy)
    moved = old.post(
        f"/api/poker-squares/games/{record.id}/moves", {"version": 1, "row": 2, "col": 2}
    )
    assert moved["version"] == 2
    assert [d["name"] for d in old.get("/api/devices")["devices"]] == ["Browser"]


# -- signed out and deleted, seen by another process -----------------------------------------
def test_a_signed_out_device_cannot_move_through_another_process(
    settings: Settings, client: TestClient, api: Api
) -> None:
    phone = second_device(client, api)
    game = phone.ps_new()
    with TestClient(create_app(settings)) as second:
        far = Api(second, phone.player_id)
        game = far.ps(game, "moves", row=0, col=0)  # the id just worked in that process
        target = next(d for d in api.get("/api/devices")["devices"] if not d["current"])
        assert (
            client.delete(f"/api/devices/{target['device']}", headers=api.headers).status_code
            == 204
        )
        for action, body in (("moves", {"row": 0, "col": 1}), ("undo", {})):
            refused = far.ps(game, action, status=401, **body)
            assert refused["code"] == "revoked"
        app = second.app
        assert isinstance(app, FastAPI)
        assert versions(app, game["id"]) == (2, [1, 2])
        # The record's other device still plays the game through that process.
        assert Api(second, api.player_id).ps(game, "moves", row=0, col=1)["version"] == 3


def test_a_deleted_record_cannot_move_through_another_process(
    settings: Settings, client: TestClient, api: Api
) -> None:
    game = api.ps_new()
    with TestClient(create_app(settings)) as second:
        far = Api(second, api.player_id)
        game = far.ps(game, "moves", row=0, col=0)
        assert client.delete("/api/stats/data", headers=api.headers).status_code == 204
        assert far.ps(game, "moves", status=401, row=0, col=1)["code"] == "no_player"


# -- the compare-and-set ---------------------------------------------------------------------
def test_a_move_that_loses_its_compare_and_set_is_refused(
    settings: Settings, app: FastAPI, client: TestClient, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a move's read and its write another process saves the game (PostgreSQL: a
    second connection commits meanwhile). The move writes nothing and answers 409
    ``stale_version`` with the other write's game. SQLite holds its write lock from the read
    on, so there the other writer waits instead: it then loses to the move."""
    game = api.ps_new()
    store = store_of(app)
    other = create_app(settings)
    with TestClient(other):
        rival_store = store_of(other)
        real = store.change_game
        rival: list[GameRecord] = []

        def racing(
            cred: str,
            game_id: str,
            admit: Callable[[Caller | None], str | None],
            play: Callable[[GameRecord | None], Change],
        ) -> GameRecord:
            def play_racing(record: GameRecord | None) -> Change:
                change = play(record)
                assert record is not None
                if store.dialect == "postgresql":
                    rival.append(
                        rival_store.save_game(
                            record, record.state, finished=False, log=[{"action": "rival"}]
                        )
                    )
                return change

            return real(cred, game_id, admit, play_racing)

        monkeypatch.setattr(store, "change_game", racing)
        if store.dialect == "postgresql":
            lost = api.ps(game, "moves", status=409, row=0, col=0)
            assert lost["code"] == "stale_version"
            assert lost["current"]["version"] == 2
            assert lost["current"]["view"] == game["view"]  # the rival wrote the same state
            assert versions(app, game["id"]) == (2, [1, 2])
            assert store.move_log(game["id"])[-1] == {"action": "rival"}
        else:
            moved = api.ps(game, "moves", row=0, col=0)
            assert moved["version"] == 2
            record = store.load_game(game["id"], player_key(str(api.player_id)))
            assert record is not None
            old = dataclasses.replace(record, version=1)
            with pytest.raises(StaleVersion):
                rival_store.save_game(old, record.state, finished=False)
            assert versions(app, game["id"]) == (2, [1, 2])
