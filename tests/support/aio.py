"""`run(main())`: asyncio.run in a thread of its own, so these tests also pass in a session
where Playwright's sync API keeps an event loop running in the main thread.

The thread is a daemon and is never waited for past ``timeout``: a coroutine that hangs fails
its test with a TimeoutError instead of hanging the run (a `with ThreadPoolExecutor()` block
would wait for it for ever on the way out)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """``main``'s result, or its exception, raised here."""
    failure: list[BaseException] = []
    result: list[T] = []

    def target() -> None:
        try:
            result.append(asyncio.run(main))
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    thread = threading.Thread(target=target, name="aio-run", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"the coroutine did not finish within {timeout} s")
    if failure:
        raise failure[0]
    return result[0]
