"""The fallback poll (cardtable/server/online/poll.py) with a fake store: it wakes exactly the
watched tables whose stored version is newer than the hub has heard of, takes a large set in
turns, and keeps going after a failure."""

from __future__ import annotations

import asyncio
import logging

import pytest

from cardtable.server.online.hub import Hub
from cardtable.server.online.poll import poll, tick
from tests.support.aio import run


def test_a_tick_wakes_only_tables_that_moved() -> None:
    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        asked: list[list[str]] = []
        stored = {"a": 3, "b": 1, "c": 7}

        def versions(keys: list[str]) -> dict[str, int]:
            asked.append(keys)
            return {k: stored[k] for k in keys if k in stored}

        with hub.watch("a") as a, hub.watch("b") as b, hub.watch("gone") as gone:
            hub.changed("b", 1)
            assert await b.wait(0.05)  # the save's own wake, consumed
            assert await tick(hub, versions, 0, 100) == 0
            assert asked == [["a", "b", "gone"]]  # one query, watched tables only ("c" is not)
            assert await a.wait(0.05) and not await b.wait(0.05) and not await gone.wait(0.05)
            assert hub.watched() == {"a": 3, "b": 1, "gone": -1}
            # Nothing new: the next tick wakes nobody.
            await tick(hub, versions, 0, 100)
            assert not await a.wait(0.05)
            stored["b"] = 2
            await tick(hub, versions, 0, 100)
            assert await b.wait(0.05) and not await a.wait(0.05)

    run(main())


def test_a_large_watch_set_is_taken_in_turns() -> None:
    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        asked: list[list[str]] = []

        def versions(keys: list[str]) -> dict[str, int]:
            asked.append(keys)
            return dict.fromkeys(keys, 1)

        with hub.watch("a"), hub.watch("b"), hub.watch("c"), hub.watch("d"), hub.watch("e"):
            start = 0
            for _ in range(3):
                start = await tick(hub, versions, start, 2)
        assert asked == [["a", "b"], ["c", "d"], ["e"]]
        assert start == 0

    run(main())


def test_the_poll_survives_failures_and_delivers(caplog: pytest.LogCaptureFixture) -> None:
    """A failing store is logged once and retried; the first working tick delivers."""

    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        calls = 0

        def versions(keys: list[str]) -> dict[str, int]:
            nonlocal calls
            calls += 1
            if calls <= 3:
                raise RuntimeError("the store is down")
            return dict.fromkeys(keys, 5)

        with hub.watch("t") as watch:
            task = asyncio.create_task(poll(hub, versions, 0.01))
            try:
                assert await watch.wait(5)
            finally:
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
        assert hub.watched() == {}
        assert calls >= 4

    with caplog.at_level(logging.INFO, logger="cardtable.server.online"):
        run(main())
    failures = [r for r in caplog.records if "poll failed" in r.getMessage()]
    assert len(failures) == 1
    assert any("works again" in r.getMessage() for r in caplog.records)


def test_the_poll_idles_without_watchers() -> None:
    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        asked: list[list[str]] = []

        def versions(keys: list[str]) -> dict[str, int]:
            asked.append(keys)
            return {}

        task = asyncio.create_task(poll(hub, versions, 0.01))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asked == []

    run(main())
