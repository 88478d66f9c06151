"""`cardtable serve` as a real process on a free loopback port, for the crash and log tests:
its stdout and stderr go to a file the test reads afterwards; it can be killed with SIGKILL
and started again on the same store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from .postgres import free_port

ROOT = Path(__file__).resolve().parents[2]


class ServeProcess:
    def __init__(
        self,
        data: Path,
        log: Path,
        database_url: str | None = None,
        *,
        workers: int = 1,
        args: Sequence[str] = (),
    ) -> None:
        self.data, self.log, self.database_url = data, log, database_url
        self.workers = workers
        self.args = tuple(args)
        """More `cardtable serve` options (``--forwarded-allow-ips 127.0.0.1``, ...)."""
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        """The port of the last start."""
        self.base = ""

    def start(self, timeout: float | None = None, *, same_port: bool = False) -> str:
        """Start the process and wait for its /healthz; ``same_port``: on the port of the
        last start (a proxy in front of it knows it by its port), else on a free one."""
        # Workers import the site side by side: on a busy machine that takes a while.
        timeout = timeout or (60.0 if self.workers == 1 else 150.0)
        port = self.port = self.port if same_port and self.port else free_port()
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        if self.database_url is not None:
            env["DATABASE_URL"] = self.database_url
        cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--data", str(self.data),
               "--workers", str(self.workers), *self.args]  # fmt: skip
        with self.log.open("ab") as out:
            # Its own process group: with workers, a crash kills the supervisor and every
            # worker at once (`kill`).
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
            )
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return self.base
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"cardtable serve exited:\n{self.log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("cardtable serve did not start")
            time.sleep(0.1)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash or an OOM kill. With workers, the
        supervisor and its workers together (the whole machine or container going down)."""
        if self.proc is not None and self.proc.poll() is None:
            if self.workers > 1:
                os.killpg(self.proc.pid, signal.SIGKILL)
            else:
                os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
