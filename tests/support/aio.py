"""`run(main())`: asyncio.run in a thread of its own, so these tests also pass in a session
where Playwright's sync API keeps an event loop running in the main thread."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(main: Coroutine[Any, Any, None], timeout: float = 60.0) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, main).result(timeout)
