"""The daily leaderboard at 100,000 entries of one day (docs/daily.md, "Query plan").

    python -m bench.daily_board [--entries 100000] [--runs 50] [--sqlite | --postgres | --both]

Fills one day and table with ``--entries`` ranked entries (totals drawn around 100 points,
finish times over the day) plus a tenth as many unranked ones (new ids, practice), with the
score counts the server keeps beside them, then times what a board read does: the top 100
(`DailyStore.top`), one player's rank (`DailyStore.rank`, a sum over the score counts) and
the histogram (`DailyStore.counts`). Prints the median and 95th percentile of ``--runs`` reads
in milliseconds, and each query's plan. PostgreSQL is ``DATABASE_URL`` if set, else a private
throwaway server started the way the tests start theirs (tests/support/postgres.py).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cardtable.server.core.store.postgres import PostgresStore
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.core.store.sqlite import SqliteStore
from cardtable.server.daily.public import DailyStore

DAY = "2030-01-01"
TABLE = "american"
BATCH = 5000


def fill(store: SqlStore, entries: int, seed: int) -> str:
    """Write the day's entries and score counts; the key of one player in the middle."""
    rng = random.Random(seed)
    start = datetime(2030, 1, 1, tzinfo=UTC)
    counts: Counter[int] = Counter()
    rows: list[tuple[Any, ...]] = []
    middle = ""
    unranked = entries // 10
    for i in range(entries + unranked):
        ranked = i < entries
        total = max(0, min(400, round(rng.gauss(100, 25))))
        at = (start + timedelta(seconds=rng.uniform(0, 86_399))).isoformat()
        player = f"{i:064x}"
        if ranked:
            counts[total] += 1
            if i == entries // 2:
                middle = player
        rows.append(
            (DAY, TABLE, player, f"g{i}", int(ranked), "counted", int(ranked), total, "[]", at, at)
        )
    sql = store._sql(
        "INSERT INTO daily_entries (day, variant, player, game_id, eligible, status, ranked, "
        "total, lines, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    for begin in range(0, len(rows), BATCH):
        with store.transaction() as tx:
            tx.executemany(sql, rows[begin : begin + BATCH])  # type: ignore[attr-defined]
    with store.transaction() as tx:
        tx.executemany(  # type: ignore[attr-defined]
            store._sql("INSERT INTO daily_scores (day, variant, total, n) VALUES (?, ?, ?, ?)"),
            [(DAY, TABLE, t, n) for t, n in counts.items()],
        )
    with store.transaction() as tx:
        tx.execute("ANALYZE")
    return middle


def timed(fn: Callable[[], object], runs: int) -> dict[str, float]:
    fn()  # warm the caches once
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.95))], 2),
    }


def plans(store: SqlStore) -> dict[str, list[str]]:
    sqlite = isinstance(store, SqliteStore)
    explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
    queries = {
        "top": "SELECT e.total, e.player, n.name FROM daily_entries e "
        "LEFT JOIN player_names n ON n.player = e.player "
        "WHERE e.day = ? AND e.variant = ? AND e.ranked = 1 "
        "ORDER BY e.total DESC, e.finished_at, e.player LIMIT 100",
        "rank": "SELECT COALESCE(SUM(CASE WHEN total > ? THEN n ELSE 0 END), 0), "
        "COALESCE(SUM(n), 0) FROM daily_scores WHERE day = ? AND variant = ?",
    }
    params = {"top": (DAY, TABLE), "rank": (100, DAY, TABLE)}
    out = {}
    for name, sql in queries.items():
        with store.reading() as tx:
            tx.execute(store._sql(explain + sql), params[name])
            out[name] = [str(r[-1] if sqlite else r[0]) for r in tx.fetchall()]
    return out


def measure(store: SqlStore, label: str, entries: int, runs: int, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    middle = fill(store, entries, seed)
    filled = time.perf_counter() - t0
    daily = DailyStore(store)
    mine = daily.entry(middle, DAY, TABLE)
    assert mine is not None and mine.total is not None
    total = mine.total
    top = daily.top(DAY, TABLE, middle)
    assert len(top) == 100 and top[0].total >= top[-1].total
    rank, players, _ = daily.rank(DAY, TABLE, total)
    assert players == entries
    return {
        "store": label,
        "entries": entries,
        "fill_s": round(filled, 1),
        "top100": timed(lambda: daily.top(DAY, TABLE, middle), runs),
        "rank": timed(lambda: daily.rank(DAY, TABLE, total), runs),
        "histogram": timed(lambda: daily.counts(DAY, TABLE), runs),
        "rank_of_middle_player": rank,
        "plans": plans(store),
    }


@contextlib.contextmanager
def sqlite_store() -> Iterator[SqlStore]:
    with tempfile.TemporaryDirectory() as root:
        store = SqliteStore(Path(root) / "bench.sqlite3")
        try:
            yield store
        finally:
            store.close()


@contextlib.contextmanager
def postgres_store() -> Iterator[SqlStore]:
    from tests.support.postgres import fresh_schema, postgres_server

    with postgres_server() as server, fresh_schema(server) as url:
        store = PostgresStore(url, pool_size=2)
        try:
            yield store
        finally:
            store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sqlite", dest="which", action="store_const", const="sqlite")
    group.add_argument("--postgres", dest="which", action="store_const", const="postgres")
    group.add_argument("--both", dest="which", action="store_const", const="both")
    args = parser.parse_args(argv)
    which = args.which or "both"
    stores = {"sqlite": sqlite_store, "postgresql": postgres_store}
    for name, make in stores.items():
        if which not in ("both", name.removesuffix("ql")):
            continue
        with make() as store:
            result = measure(store, name, args.entries, args.runs, args.seed)
        print(f"{name}: {result['entries']} entries (filled in {result['fill_s']} s)")
        for key in ("top100", "rank", "histogram"):
            r = result[key]
            print(f"  {key:<10} median {r['median_ms']:>7} ms   p95 {r['p95_ms']:>7} ms")
        print(f"  rank of the player timed: {result['rank_of_middle_player']}")
        for key, lines in result["plans"].items():
            print(f"  plan {key}:")
            for line in lines:
                print(f"    {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
