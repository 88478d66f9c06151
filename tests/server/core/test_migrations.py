"""Schema versions: stores written before versions existed are upgraded and lose nothing, on
SQLite and on PostgreSQL; each migration runs once, completely or not at all; a database
from newer code is refused.

The old stores are `tests/server/core/data/store_layout*.json`: the schema statements an earlier
commit ran and every row its API wrote, made by `tests/server/core/data/make_legacy_store.py`
with that commit's code. Layout 1 is the first (one `results` row per game), layout 2 the
last before versions (`finishes`, one row per finish, beside an emptied `results`).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.store import StoreError, open_store
from cardtable.server.core.store import migrations as m
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.core.store.sqlite import SqliteStore
from tests.server.helpers import Api
from tests.server.kc_driver import play_match
from tests.support.postgres import fresh_schema

NO_GAMES = {"poker_squares": None, "kings_corner": None, "poker_squares_counted": None}

DATA = Path(__file__).parent / "data"
LAYOUTS = {n: json.loads((DATA / f"store_layout{n}.json").read_text()) for n in (1, 2)}
TABLES = (
    "players",
    "games",
    "moves",
    "finishes",
    "schema_version",
    "online_tables",
    "online_presence",
    "reviews",
    "maintenance",
    "daily_deals",
    "daily_entries",
    "daily_scores",
    "player_names",
    "credentials",
    "transfer_codes",
    "rate_limits",
    "online_seats",
    "push_keys",
    "push_subscriptions",
    "push_tables",
    "push_outbox",
    "quick_queue",
    "quick_seated",
    "quick_blocks",
    "quick_cooldowns",
    "ratings",
    "rating_history",
    "rated_matches",
    "rating_leavers",
    "ps_tables",
    "ps_placements",
    "ps_presence",
    "daily_practice",
)
KINDS = ("poker-squares", "kings-corner")
LATEST = m.MIGRATIONS[-1].version

Row = tuple[Any, ...]


@dataclass
class Db:
    """One empty database, reachable by the store (``settings``) and by plain SQL."""

    dialect: str
    settings: Settings
    connect: Callable[[], Any]

    def open(self) -> SqlStore:
        store = open_store(self.settings)
        assert isinstance(store, SqlStore)
        return store

    def execute(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Run ``statements`` in one transaction, as an old store's code did."""
        conn = self.connect()
        try:
            cur = conn.cursor()
            if self.dialect == "sqlite":
                cur.execute("BEGIN")
            for sql, params in statements:
                cur.execute(self._sql(sql), tuple(params)) if params else cur.execute(sql)
            conn.commit()
        finally:
            conn.close()

    def query(self, sql: str) -> list[Row]:
        conn = self.connect()
        try:
            return [tuple(r) for r in conn.execute(sql).fetchall()]
        finally:
            conn.close()

    def tables(self) -> set[str]:
        if self.dialect == "sqlite":
            sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
        else:
            sql = "SELECT table_name FROM information_schema.tables "
            sql += "WHERE table_schema = current_schema()"
        return {r[0] for r in self.query(sql)}

    def layout(self) -> dict[str, list[Row]]:
        """Every table's columns (name, type, nullable, default) and every index."""
        found: dict[str, list[Row]] = {}
        for table in sorted(self.tables()):
            if self.dialect == "sqlite":
                found[table] = self.query(
                    "SELECT name, type, [notnull], dflt_value, pk "
                    f"FROM pragma_table_info('{table}')"
                )
            else:
                found[table] = self.query(
                    "SELECT column_name, data_type, is_nullable, column_default "
                    f"FROM information_schema.columns WHERE table_schema = current_schema() "
                    f"AND table_name = '{table}' ORDER BY ordinal_position"
                )
        if self.dialect == "sqlite":
            sql = "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
        else:
            sql = "SELECT indexname, indexdef FROM pg_indexes "
            sql += "WHERE schemaname = current_schema() ORDER BY indexname"
        schema = "" if self.dialect == "sqlite" else self.query("SELECT current_schema()")[0][0]
        found["(indexes)"] = [
            (name, " ".join(str(d).replace(f"{schema}.", "").split()))
            for name, d in self.query(sql)
        ]
        return found

    def rows(self, table: str) -> list[Row]:
        """Every row, in an order that does not depend on the database (by `repr`, so
        `(10, ...)` comes before `(2, ...)`: sort again where the order is the point)."""
        return sorted(self.query(f"SELECT * FROM {table}"), key=repr)

    def snapshot(self) -> dict[str, list[Row]]:
        return {t: self.rows(t) for t in sorted(self.tables())}

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Db]:
    if request.param == "sqlite":
        settings = Settings(data_dir=tmp_path / "data", database_url=None, hint_budget=4)
        path = settings.sqlite_path
        path.parent.mkdir()
        yield Db("sqlite", settings, lambda: sqlite3.connect(path))
        return
    with fresh_schema(request.getfixturevalue("postgres_url")) as url:
        settings = Settings(data_dir=tmp_path, database_url=url, hint_budget=4, pg_pool_size=4)
        yield Db("postgresql", settings, lambda: psycopg.connect(url))


def write_old_store(db: Db, layout: dict[str, Any]) -> None:
    """The database exactly as the old code left it: its schema statements, then its rows."""
    statements: list[tuple[str, Sequence[Any]]] = [(s, ()) for s in layout["schema"]]
    for table, content in layout["tables"].items():
        columns = content["columns"]
        marks = ", ".join("?" * len(columns))
        insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        statements += [(insert, row) for row in content["rows"]]
    db.execute(statements)


def old_rows(layout: dict[str, Any], table: str) -> list[Row]:
    return sorted((tuple(r) for r in layout["tables"][table]["rows"]), key=repr)


def expected_finishes(layout: dict[str, Any]) -> list[Row]:
    """Layout 2 keeps its `finishes`; layout 1's `results` rows become each game's finish 1."""
    if "finishes" in layout["tables"]:
        return old_rows(layout, "finishes")
    return sorted(((r[0], 1, *r[1:]) for r in old_rows(layout, "results")), key=repr)


@pytest.mark.parametrize("n", sorted(LAYOUTS))
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_an_unversioned_store_is_upgraded_and_loses_nothing(db: Db, n: int) -> None:
    layout = LAYOUTS[n]
    write_old_store(db, layout)
    assert "schema_version" not in db.tables()

    store = db.open()
    try:
        assert store.migrate() == []  # opening applied everything
    finally:
        store.close()

    assert [r[:2] for r in sorted(db.rows("schema_version"))] == [
        (mig.version, mig.name) for mig in m.MIGRATIONS
    ]
    assert max(r[0] for r in db.rows("schema_version")) == LATEST
    assert db.tables() == set(TABLES)  # `results` is gone, its rows are in `finishes`
    for table in ("players", "games", "moves"):
        assert db.rows(table) == old_rows(layout, table), table
    assert db.rows("finishes") == expected_finishes(layout)

    # Opening again changes nothing at all.
    upgraded = db.snapshot()
    again = db.open()
    try:
        assert again.migrate() == []
        assert db.snapshot() == upgraded
        check_store_reads_everything(again, layout)
    finally:
        again.close()
    assert db.snapshot() == upgraded

    play_on_through_the_api(db, layout)


def check_store_reads_everything(store: SqlStore, layout: dict[str, Any]) -> None:
    games = layout["tables"]["games"]
    columns = games["columns"]
    for values in games["rows"]:
        row = dict(zip(columns, values, strict=True))
        game = store.load_game(row["id"], row["player"])
        assert game is not None
        assert (game.id, game.player, game.kind, game.version, game.created_at) == (
            row["id"], row["player"], row["kind"], row["version"], row["created_at"],
        )  # fmt: skip
        assert game.state == json.loads(row["state"]) and game.state
        assert (game.finished, game.current) == (bool(row["finished"]), bool(row["current"]))
        assert game.updated_at == row["updated_at"]
        log = [r for r in old_rows(layout, "moves") if r[0] == row["id"]]
        log.sort(key=lambda r: (r[1], r[2]))
        assert store.move_log(row["id"]) == [json.loads(r[3]) for r in log]
        assert len(log) > 0
    finishes = expected_finishes(layout)
    players = {r[0] for r in old_rows(layout, "players")}
    for player in players:
        assert store.has_player(player)
        for kind in KINDS:
            current = [r for r in games["rows"] if (r[1], r[2], r[6], r[5]) == (player, kind, 1, 0)]
            found = store.current_game(player, kind)
            assert (found.id if found else None) == (current[0][0] if current else None)
            mine = [f for f in finishes if (f[2], f[3]) == (player, kind)]
            results = store.results(player, kind, limit=100)
            assert sorted((r.game_id, r.total, r.practice, r.finished_at) for r in results) == (
                sorted((f[0], f[5], bool(f[6]), f[8]) for f in mine)
            )
            best: dict[tuple[str, bool], int] = {}
            for f in mine:
                if f[5] is not None:
                    key = (f[4], bool(f[6]))
                    best[key] = max(best.get(key, f[5]), f[5])
            assert dict(store.best_scores(player, kind)) == best


def play_on_through_the_api(db: Db, layout: dict[str, Any]) -> None:
    """The old games load, continue and finish through the API, and new results count."""
    ids, games = layout["players"], layout["games"]
    with TestClient(create_app(db.settings)) as client:
        alice, bob, carol = (Api(client, ids[p]) for p in ("alice", "bob", "carol"))
        shown = alice.get("/api/continue")
        assert shown["poker_squares"]["id"] == games["alice_ps_current"]
        assert shown["kings_corner"]["id"] == games["alice_kc_current"]
        assert carol.get("/api/continue") == NO_GAMES

        for name, game_id in games.items():
            who = alice if name.startswith("alice") else bob
            path = "poker-squares" if "_ps_" in name else "kings-corner"
            game = who.get(f"/api/{path}/games/{game_id}")
            if "finished" in name:
                over = game["view"]["is_over"] if path == "poker-squares" else (
                    game["phase"] == "match_over"
                )  # fmt: skip
                assert over, name

        # A Poker Squares deal carries on to its end and its result is recorded.
        game = alice.get(f"/api/poker-squares/games/{games['alice_ps_current']}")
        while not game["view"]["is_over"]:
            grid = game["view"]["grid"]
            row, col = next((r, c) for r in range(5) for c in range(5) if grid[r][c] is None)
            game = alice.ps(game, "moves", row=row, col=col)
        history = alice.get("/api/poker-squares/scores")["american"]["history"]
        assert history[0]["id"] == game["id"] and history[0]["total"] == game["view"]["total"]
        assert {h["id"] for h in history} >= {games["alice_ps_finished"], game["id"]}

        # Kings Corner: a match with hand-offs between two people plays to its end.
        match = bob.get(f"/api/kings-corner/games/{games['bob_kc_current']}")
        end = play_match(bob, match)
        results = bob.get("/api/kings-corner/results")["matches"]
        assert [r["id"] for r in results[:2]] == [end["id"], games["bob_kc_finished"]]
        # ... and the three-round match against the computer takes a few more steps.
        match = alice.get(f"/api/kings-corner/games/{games['alice_kc_current']}")
        for _ in range(5):
            if match["phase"] == "computer":
                match = alice.kc(match, "computer-step")
            elif match["phase"] == "play":
                match = alice.kc(match, "moves", move=match["view"]["legal_moves"][0])
        assert match["version"] > 1

        # The untouched games are as they were.
        for name in ("bob_ps_replaced", "bob_ps_current", "alice_kc_finished"):
            row = next(r for r in layout["tables"]["games"]["rows"] if r[0] == games[name])
            path = "poker-squares" if "_ps_" in name else "kings-corner"
            who = alice if name.startswith("alice") else bob
            assert who.get(f"/api/{path}/games/{games[name]}")["version"] == row[3]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_new_store_gets_the_same_schema_as_an_upgraded_one(
    db: Db, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db.open().close()
    fresh = db.layout()
    assert [r[0] for r in sorted(db.rows("schema_version"))] == list(range(1, LATEST + 1))
    assert set(fresh) == {*TABLES, "(indexes)"}
    if db.dialect == "sqlite":
        settings = Settings(data_dir=tmp_path / "old", database_url=None)
        settings.data_dir.mkdir()
        other = Db("sqlite", settings, lambda: sqlite3.connect(settings.sqlite_path))
        write_old_store(other, LAYOUTS[1])
        other.open().close()
        assert other.layout() == fresh
    else:
        with fresh_schema(request.getfixturevalue("postgres_url")) as url:
            other = Db("postgresql", Settings(database_url=url), lambda: psycopg.connect(url))
            write_old_store(other, LAYOUTS[1])
            other.open().close()
            assert other.layout() == fresh


def test_a_store_from_newer_code_is_refused(db: Db) -> None:
    store = db.open()
    store.create_player("alice")
    store.close()
    db.execute(
        [("INSERT INTO schema_version VALUES (?, ?, ?)", (LATEST + 1, "future", "2099-01-01"))]
    )
    before = db.snapshot()
    with pytest.raises(StoreError, match=f"schema version {LATEST + 1}, newer than this code"):
        db.open()
    with TestClient(create_app(db.settings)) as client:  # the server runs, but will not serve
        answer = client.post("/api/players")
        assert (answer.status_code, answer.json()["code"]) == (503, "unavailable")
    assert db.snapshot() == before


def test_a_failing_migration_changes_nothing(db: Db, monkeypatch: pytest.MonkeyPatch) -> None:
    store = db.open()
    store.create_player("alice")
    store.close()
    before = db.snapshot()
    broken = m.Migration(
        LATEST + 1,
        "half done",
        steps=("CREATE TABLE extra (x INTEGER)", "INSERT INTO extra VALUES (1)"),
        sqlite=("INSERT INTO no_such_table VALUES (1)",),
        postgresql=("INSERT INTO no_such_table VALUES (1)",),
    )
    monkeypatch.setattr(m, "MIGRATIONS", (*m.MIGRATIONS, broken))
    with pytest.raises(StoreError, match="no_such_table"):
        db.open()
    assert db.snapshot() == before and "extra" not in db.tables()

    monkeypatch.undo()
    store = db.open()
    try:
        assert store.has_player("alice")
    finally:
        store.close()


def test_a_new_migration_with_a_data_move_runs_once(
    db: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = db.open()
    store.create_player("alice")
    store.create_player("bob")
    store.close()
    calls: list[str] = []

    def count_players(tx: m.MigrationTx) -> None:
        calls.append(tx.dialect)
        n = tx.execute("SELECT COUNT(*) FROM players WHERE id <> ?", ("nobody",)).fetchone()[0]
        tx.execute("INSERT INTO player_count (n) VALUES (?)", (n,))

    added = m.Migration(
        LATEST + 1, "player count", steps=("CREATE TABLE player_count (n INTEGER)", count_players)
    )
    monkeypatch.setattr(m, "MIGRATIONS", (*m.MIGRATIONS, added))
    for _ in range(2):
        db.open().close()
    assert calls == [db.dialect]
    assert db.rows("player_count") == [(2,)]
    assert max(r[0] for r in db.rows("schema_version")) == LATEST + 1


def racing(opener: Callable[[], None], n: int = 4) -> list[BaseException]:
    """Runs `opener` in `n` threads released at the same instant; what each raised."""
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def one() -> None:
        barrier.wait()
        try:
            opener()
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_openers_racing_on_an_old_store_run_each_migration_once(db: Db) -> None:
    write_old_store(db, LAYOUTS[1])
    assert racing(lambda: db.open().close()) == []
    assert [r[0] for r in sorted(db.rows("schema_version"))] == list(range(1, LATEST + 1))
    assert db.rows("finishes") == expected_finishes(LAYOUTS[1])


def test_migrations_are_numbered_in_order() -> None:
    m.check(m.MIGRATIONS)
    with pytest.raises(AssertionError, match="numbered"):
        m.check((*m.MIGRATIONS, m.Migration(LATEST + 2, "gap")))
    with pytest.raises(AssertionError, match="numbered"):
        m.check((m.MIGRATIONS[1], m.MIGRATIONS[0]))


def test_openers_of_one_old_sqlite_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Four openers of one rollback-journal file in the same instant: SQLite answers the
    switch to write-ahead logging with "database is locked" at once, without its busy
    handler; the store tries again within its busy timeout (about one race in eight lost an
    opener before)."""
    for attempt in range(40):
        path = tmp_path / f"{attempt}.sqlite3"
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("CREATE TABLE kept (n INTEGER)")
            conn.commit()
        assert racing(functools.partial(open_and_close, path)) == [], attempt


def open_and_close(path: Path) -> None:
    SqliteStore(path).close()
