"""One server process's push sender, alone, for the tests that run several at once over one
store: ``python -m tests.support.push_senders DATABASE_URL DATA_DIR`` sends what the outbox
holds (the push service on loopback named in the subscriptions) until the outbox is empty,
then prints how many this process delivered."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cardtable.server import Settings
from cardtable.server.core.push_config import PushSettings
from cardtable.server.core.runtime import Runtime
from cardtable.server.push.service import Push


def settings(url: str | None, data: Path) -> Settings:
    return Settings(
        data_dir=data,
        database_url=url,
        push=PushSettings(
            endpoint_hosts=("127.0.0.1",), allow_http=True, poll_seconds=0.02, retry_seconds=0.05
        ),
    )


async def drain(push: Push) -> int:
    task = asyncio.create_task(push.sender.run())
    try:
        while await asyncio.to_thread(push.store.waiting) > 0:
            await asyncio.sleep(0.02)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return push.sender.sent


def main() -> None:
    url, data = sys.argv[1], Path(sys.argv[2])
    runtime = Runtime(settings(url or None, data))
    try:
        print(asyncio.run(drain(Push(runtime))), flush=True)
    finally:
        runtime.close()


if __name__ == "__main__":
    main()
