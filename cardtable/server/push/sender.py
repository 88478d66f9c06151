"""The sender: a background task per server process that delivers the outbox.

Admitted work, off every request path: at most `PushSettings.sends` notifications in flight
per process and `PushSettings.per_player` of one player's devices (a player with 50
subscriptions waits their turn; the others are not starved). Each row is claimed in the
store first (store.py), so two processes never send the same row. A POST has a short
timeout; 429, 5xx, a timeout or a refused connection put the row back with a doubling
delay (at most `PushSettings.attempts` sends); 404 and 410 mean the browser dropped the
subscription, so it is deleted with everything waiting for it. A device signed out, or a
record deleted, is checked again just before sending (`DeviceStore.standing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import requests
from pywebpush import WebPushException, webpush

from cardtable.server.core.metrics import PUSH_SENT
from cardtable.server.devices.public import DeviceStore
from cardtable.server.push.store import Claimed, PushStore

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

log = logging.getLogger("cardtable.server.push")
OK = "ok"


class Sender:
    def __init__(self, runtime: Runtime, me: str, vapid: Callable[[], Any]) -> None:
        self.runtime = runtime
        self.settings = runtime.settings.push
        self.me = me
        """This process's name on the rows it claims."""
        self.vapid = vapid
        """The VAPID private key (`py_vapid.Vapid02`), read once from the store."""
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inflight: Counter[str] = Counter()
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0
        """Rows this process delivered (tests and the benchmark)."""

    def wake(self) -> None:
        """Look at the outbox soon (from any thread): called after a save wrote to it."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.call_later, 0.02, self._wake.set)

    async def run(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.poll_seconds)
                self._wake.clear()
                try:
                    await self._pump()
                except RuntimeError:  # the threads are shut down: the app is stopping
                    return
                except Exception:  # the store is down: try again at the next poll
                    log.exception("push: claiming notifications failed")
        finally:
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _pump(self) -> None:
        store = PushStore(self.runtime.store)
        while True:
            free = self.settings.sends - len(self._tasks)
            if free <= 0:
                return
            # A player with sends in flight waits for them: a batch takes at most `per_player`
            # rows of any one player, so no player ever has more than that in flight.
            busy = sorted(self._inflight)
            claimed = await asyncio.to_thread(
                store.claim, self.me, time.time(), free, self.settings.per_player, busy,
                self.settings.lease_seconds,
            )  # fmt: skip
            if not claimed:
                return
            creds = sorted({c.cred for c in claimed if c.endpoint is not None})
            standing = await asyncio.to_thread(DeviceStore(self.runtime.store).standing, creds)
            gone = sorted(c for c, s in standing.items() if s != OK)
            if gone:
                await asyncio.to_thread(store.remove, gone)
                PUSH_SENT.labels(outcome="signed_out").inc(
                    sum(1 for c in claimed if c.cred in gone)
                )
            for row in claimed:
                if row.cred in gone:
                    continue
                if row.endpoint is None:
                    await asyncio.to_thread(store.delivered, row.id, self.me)
                    continue
                self._inflight[row.player] += 1
                task = asyncio.create_task(self._send(store, row))
                self._tasks.add(task)
                task.add_done_callback(self._done(row.player))

    def _done(self, player: str) -> Any:
        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            self._inflight[player] -= 1
            if self._inflight[player] <= 0:
                del self._inflight[player]
            self._wake.set()  # a slot is free: more may be waiting

        return done

    async def _send(self, store: PushStore, row: Claimed) -> None:
        outcome = await asyncio.to_thread(self._post, row)
        PUSH_SENT.labels(outcome=outcome).inc()
        me = self.me
        if outcome == "delivered":
            self.sent += 1
            await asyncio.to_thread(store.delivered, row.id, me)
        elif outcome == "gone":
            await asyncio.to_thread(store.remove, [row.cred])
        elif outcome == "retry":
            delay = min(self.settings.retry_seconds * 2**row.attempts,
                        self.settings.retry_most_seconds)  # fmt: skip
            await asyncio.to_thread(store.later, row.id, me, time.time() + delay)
        else:  # dropped (too many attempts) or failed (refused for good)
            await asyncio.to_thread(store.delivered, row.id, me)

    def _post(self, row: Claimed) -> str:
        """One POST (in a worker thread): its outcome for the metric and the row."""
        private = self.vapid()
        info = {"endpoint": row.endpoint, "keys": {"p256dh": row.p256dh, "auth": row.auth}}
        last = row.attempts + 1 >= self.settings.attempts
        try:
            webpush(
                info,
                data=row.payload,
                vapid_private_key=private,
                vapid_claims={"sub": self.settings.vapid_subject},
                timeout=self.settings.timeout_seconds,
                ttl=self.settings.ttl_seconds,
                headers={"Urgency": "normal"},
            )
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):
                return "gone"
            if status is not None and (status == 429 or status >= 500):
                return "dropped" if last else "retry"
            log.warning("push: %s refused a notification (%s)", _host(row), status)
            return "failed"
        except (requests.Timeout, requests.ConnectionError):
            return "dropped" if last else "retry"
        except Exception:
            log.exception("push: a notification could not be sent")
            return "failed"
        return "delivered"


def _host(row: Claimed) -> str:
    return (row.endpoint or "").split("/")[2] if "//" in (row.endpoint or "") else "?"
