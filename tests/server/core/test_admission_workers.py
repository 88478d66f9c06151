"""The search pool's worker lifecycle (server/core/admission.py, "Lifecycle"), in this process so
that coverage sees it: a worker that dies mid-search costs that request a 503 and the next
search runs in a fresh pool; a stop kills workers that do not finish in time; what a new
worker installs (Ctrl-C ignored, the quick exit handler, the parent watch); the parent watch
ends the worker when the server's end of the pipe closes or the parent changes."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cardtable.server import Settings
from cardtable.server.core import admission
from cardtable.server.core.admission import Admission
from cardtable.server.core.errors import ApiError


def die_in_worker() -> None:
    """A search whose worker process dies (as if killed or out of memory)."""
    os._exit(3)


class Exited(Exception):
    """Raised by a patched ``os._exit`` instead of ending the test process."""


@pytest.fixture
def exits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``os._exit`` records its code and raises `Exited` (a SystemExit in a thread ends it)."""
    codes: list[int] = []

    def fake_exit(code: int) -> None:
        codes.append(code)
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", fake_exit)
    return codes


@pytest.fixture
def own_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pools of this test alone, stopped when their last user closes: the suite's kept pool
    (tests/conftest.py, `admission.kept`) is neither used nor stopped."""
    monkeypatch.setattr(admission, "_POOLS", {})
    monkeypatch.setattr(admission, "_USERS", {})
    monkeypatch.setattr(admission, "_WATCH", {})
    monkeypatch.setattr(admission, "_KEPT", 0)


@pytest.mark.usefixtures("own_pools")
def test_a_worker_dying_mid_search_gives_503_and_a_fresh_pool(tmp_path: Path) -> None:
    """Two worker starts (each preloads the engines: about 4 s of CPU in the worker)."""
    searches = Admission(Settings(data_dir=tmp_path, database_url=None, search_processes=1))
    try:
        with pytest.raises(ApiError) as refused:
            searches.run(die_in_worker)
        assert refused.value.status == 503 and refused.value.code == "unavailable"
        assert refused.value.headers == {"Retry-After": "1"}
        # The broken pool is forgotten and its watch pipe closed (ending any live worker).
        assert admission._POOLS == {} and admission._WATCH == {}
        # The next search gets a fresh pool, and the right answer.
        assert searches.run(pow, 2, 10) == 1024
        pool = admission._POOLS[1]
        assert isinstance(pool, ProcessPoolExecutor)
        workers = list(pool._processes.values())
        assert len(workers) == 1 and workers[0].is_alive()
        reader, writer = admission._WATCH[id(pool)]
    finally:
        searches.close()  # the last user: the pool stops, its worker exits
    assert admission._POOLS == {} and admission._USERS == {} and admission._WATCH == {}
    assert not workers[0].is_alive() and workers[0].exitcode == 0
    assert reader.closed and writer.closed


def test_stop_kills_workers_that_do_not_finish_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "SHUTDOWN_WAIT", 0.3)
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    pid = pool.submit(os.getpid).result(30)  # the worker is up
    running = pool.submit(time.sleep, 60)  # a search that would run a minute
    deadline = time.monotonic() + 30
    while not running.running():
        assert time.monotonic() < deadline, "the worker never took its task"
        time.sleep(0.01)
    (worker,) = pool._processes.values()
    assert worker.pid == pid
    started = time.monotonic()
    admission._stop(pool)
    assert time.monotonic() - started < 3  # 0.3 s of grace, then killed: not a minute
    assert not worker.is_alive() and worker.exitcode == -signal.SIGKILL
    with pytest.raises(RuntimeError):
        pool.submit(int)  # stopped for good


def test_a_new_worker_ignores_ctrl_c_exits_quickly_and_watches_its_parent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    signals: list[tuple[int, Any]] = []
    handlers: list[Any] = []
    threads: list[dict[str, Any]] = []
    preloaded: list[bool] = []

    class Thread:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def start(self) -> None:
            threads.append(self.kwargs)

    monkeypatch.setattr(signal, "signal", lambda sig, handler: signals.append((sig, handler)))
    monkeypatch.setattr(atexit, "register", handlers.append)
    monkeypatch.setattr(threading, "Thread", Thread)
    monkeypatch.setattr(admission, "_preload_engines", lambda: preloaded.append(True))
    pipe = object()
    admission._start_worker(pipe, 4321)
    assert signals == [(signal.SIGINT, signal.SIG_IGN)]
    assert handlers == [admission._exit_now]
    assert threads == [
        {
            "target": admission._watch_parent,
            "args": (pipe, 4321),
            "name": "parent-watch",
            "daemon": True,
        }
    ]
    assert preloaded == [True]


def test_the_exit_handler_flushes_and_ends_at_once(
    monkeypatch: pytest.MonkeyPatch, exits: list[int]
) -> None:
    flushed: list[str] = []

    class Stream:
        def __init__(self, name: str) -> None:
            self.name = name

        def flush(self) -> None:
            flushed.append(self.name)

    monkeypatch.setattr(sys, "stdout", Stream("stdout"))
    monkeypatch.setattr(sys, "stderr", Stream("stderr"))
    with pytest.raises(Exited):
        admission._exit_now()
    assert flushed == ["stdout", "stderr"] and exits == [0]


def test_the_parent_watch_ends_the_worker_when_the_pipe_closes(exits: list[int]) -> None:
    reader, writer = multiprocessing.Pipe(duplex=False)
    ended = threading.Event()

    def watch() -> None:
        try:
            admission._watch_parent(reader, os.getppid())
        except Exited:
            ended.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # The parent is alive and holds the pipe: the worker stays (one poll is 0.5 s).
        assert not ended.wait(0.7) and exits == []
    finally:
        writer.close()  # the server's end goes (its process ended)
    assert ended.wait(3) and exits == [0]
    watcher.join(3)
    reader.close()


def test_the_parent_watch_ends_the_worker_on_a_closed_pipe_or_a_new_parent(
    exits: list[int],
) -> None:
    reader, writer = multiprocessing.Pipe(duplex=False)
    reader.close()  # polling it raises OSError
    with pytest.raises(Exited):
        admission._watch_parent(reader, os.getppid())
    writer.close()
    reader, writer = multiprocessing.Pipe(duplex=False)
    try:
        started = time.monotonic()
        with pytest.raises(Exited):
            # The pipe stays open, but the worker's parent is no longer the server.
            admission._watch_parent(reader, os.getppid() + 1)
        assert 0.4 < time.monotonic() - started < 3  # after one half-second poll
    finally:
        reader.close()
        writer.close()
    assert exits == [0, 0]


def test_a_worker_preloads_both_value_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.poker_squares.hands import TABLES
    from cardtable.poker_squares.hint import abstract

    loaded: list[str] = []
    monkeypatch.setattr(abstract, "load_values", loaded.append)
    admission._preload_engines()
    assert loaded == list(TABLES) and len(TABLES) == 2
    assert "cardtable.kings_corner.cpu" in sys.modules


def test_reset_forgets_only_the_broken_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    broken, healthy = ProcessPoolExecutor(max_workers=1), ProcessPoolExecutor(max_workers=1)
    reader, writer = multiprocessing.Pipe(duplex=False)
    monkeypatch.setattr(admission, "_POOLS", {1: broken, 2: healthy})
    monkeypatch.setattr(admission, "_WATCH", {id(broken): (reader, writer)})
    try:
        admission._reset(broken)
        pools, watched = admission._POOLS, admission._WATCH
        assert pools == {2: healthy} and watched == {}
        assert reader.closed and writer.closed
        with pytest.raises(RuntimeError):
            broken.submit(int)
    finally:
        broken.shutdown()
        healthy.shutdown()
