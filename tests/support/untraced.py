"""Threads that coverage does not trace, with every thread they start.

Coverage traces a new thread through the hook it gives `threading.settrace`: the hook runs once,
as the thread's first call, and installs the thread's tracer. `untraced_tree()` puts a wrapper
in front of that hook. A thread started while the block is open, and every thread such a thread
starts later (the thread pools of the server it runs), begins untraced; any other thread goes
to coverage's hook as before. Only the first call of a thread passes through the wrapper.

The browser tests' live server runs this way (docs/checks.md, "Untraced checks"): a browser
test spends most of its time in Chromium and the server, its server-side lines are the API
tests' lines, and tracing that server cost about 20% of the browser tests' time.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

_FLAG = "_cardtable_untraced"
_start = threading.Thread.start
_installed = False


def _flagged() -> bool:
    return bool(getattr(threading.current_thread(), _FLAG, False))


def _start_marked(self: threading.Thread) -> None:
    """`Thread.start` that passes the starting thread's untraced flag on to the new one."""
    if _flagged():
        setattr(self, _FLAG, True)
    _start(self)


def _install() -> None:
    """Wrap coverage's thread hook (once per process, while coverage runs)."""
    global _installed
    hook = threading.gettrace()
    if _installed or hook is None:
        return

    def first_call(frame: FrameType, event: str, arg: Any) -> Any:
        if _flagged():
            sys.settrace(None)
            return None
        return hook(frame, event, arg)  # coverage's hook installs the thread's tracer

    threading.Thread.start = _start_marked  # type: ignore[method-assign]
    threading.settrace(first_call)
    _installed = True


@contextlib.contextmanager
def untraced_tree() -> Iterator[None]:
    """Threads started inside the block, and their descendants, run untraced. Without coverage
    (no thread hook) it does nothing."""
    _install()
    me = threading.current_thread()
    had = getattr(me, _FLAG, False)
    setattr(me, _FLAG, True)
    try:
        yield
    finally:
        setattr(me, _FLAG, had)
