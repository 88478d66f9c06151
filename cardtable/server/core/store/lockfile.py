"""Who is using a SQLite store: a lock file beside it (``cardtable.sqlite3.lock``).

Every `SqliteStore` (a server, from start to stop) holds a *shared* `flock` on the file;
`cardtable backup` holds one while it copies. `cardtable restore` takes it *exclusively*
without waiting: if anyone holds it, a server is using the store and the restore is refused.
Held by the kernel for an open file, so a server that crashed (SIGKILL, out of memory) holds
nothing: no stale pid file to clean up. The search processes are spawned, so they do not
inherit it. A store opening while a restore holds the lock waits for it (at most its busy
timeout). The file itself is never removed: removing a lock file that someone holds would
let a second holder lock a new file of the same name.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cardtable.server.core.store.base import StoreError

POLL = 0.05
"""Seconds between two tries of a lock that someone else holds."""


class StoreInUse(StoreError):
    """Someone holds the store's lock in a way that excludes the caller."""


def lock_path(store: Path) -> Path:
    return store.with_name(store.name + ".lock")


def _open(store: Path) -> int:
    return os.open(lock_path(store), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


class SharedLock:
    """A shared hold on the store's lock (a user of the store), released by `release`."""

    def __init__(self, store: Path, *, wait_s: float) -> None:
        self._fd: int | None = _open(store)
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    self.release()
                    raise StoreInUse(
                        f"{store} is being restored ({lock_path(store)} is held): "
                        "try again when the restore has finished"
                    ) from None
                time.sleep(POLL)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file releases its lock


@contextmanager
def exclusive(store: Path) -> Iterator[None]:
    """The store's lock held exclusively, for a restore; `StoreInUse` at once if anyone
    (a server, a backup) holds it."""
    fd = _open(store)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pids = holders(store)
            who = f" (process {', '.join(map(str, pids))})" if pids else ""
            raise StoreInUse(
                f"a server (or a backup) is using {store}{who}: it holds {lock_path(store)}. "
                "Stop it first"
            ) from None
        yield
    finally:
        os.close(fd)


def holders(store: Path) -> list[int]:
    """The processes holding the store's lock, as /proc/locks tells (empty if it cannot)."""
    try:
        inode = os.stat(lock_path(store)).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    pids: set[int] = set()
    for line in lines:
        # "1: FLOCK  ADVISORY  READ 12345 08:01:123456 0 EOF" (a blocked waiter has "->")
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        if fields[5].rsplit(":", 1)[-1] == str(inode) and fields[4].isdigit():
            pids.add(int(fields[4]))
    return sorted(pids)
