"""nginx with the shipped configuration (deploy/nginx/) in front of server processes, on a
free loopback port: for the proxy tests (tests/proxy/, tests/online_multi/'s ``proxied``
cluster) and `python -m bench.abuse --proxy`.

The files are used as they ship: `cardtable/` (site, proxy and http-level settings) is linked
into a temporary folder unchanged; `nginx.conf` and `cardtable.conf` (the host-specific
parts: paths, the listening address, the upstream's processes) are copied with exact
substitutions, each of which must match, so a change to the shipped files that the test no
longer covers fails here rather than going untested. nginx runs in the foreground as a child
process (``daemon off``), with one worker (requests are balanced over the upstream in turn),
and is stopped with SIGQUIT (graceful) or SIGTERM.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from bench.server_load import free_port

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy" / "nginx"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class ConfigDrift(AssertionError):
    """A substitution the test makes no longer matches the shipped file."""


def substitute(text: str, changes: Sequence[tuple[str, str]], name: str) -> str:
    for old, new in changes:
        if old not in text:
            raise ConfigDrift(f"{name}: {old!r} is no longer in the shipped file")
        text = text.replace(old, new)
    return text


class Nginx:
    """The shipped site on ``127.0.0.1:<port>``, balancing over ``upstreams`` (``host:port``)."""

    def __init__(self, folder: Path, upstreams: Sequence[str]) -> None:
        self.folder = folder
        self.upstreams = list(upstreams)
        self.port = 0
        self.base = ""
        self.proc: subprocess.Popen[bytes] | None = None

    def write(self, extra: str = "") -> Path:
        """Write the configuration (``extra``: more of the site file, such as its TLS
        server); its main file's path."""
        f = self.folder
        for sub in ("conf.d", "cache", "temp", "logs"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        link = f / "cardtable"
        if not link.exists():
            link.symlink_to(DEPLOY / "cardtable", target_is_directory=True)
        self.port = self.port or free_port()
        user = "user root;" if os.geteuid() == 0 else ""
        main = substitute(
            (DEPLOY / "nginx.conf").read_text(),
            [
                ("user www-data;", user),
                ("worker_processes auto;", "worker_processes 1;"),
                ("pid /run/nginx.pid;", f"pid {f}/nginx.pid;"),
                ("error_log /var/log/nginx/error.log;", f"error_log {f}/logs/error.log warn;"),
                ("worker_connections 16384;", "worker_connections 8192;"),
                ("include /etc/nginx/cardtable/", f"include {f}/cardtable/"),
                ("include /etc/nginx/conf.d/", f"include {f}/conf.d/"),
                (
                    "http {\n",
                    "http {\n"
                    + "".join(
                        f"    {kind}_temp_path {f}/temp/{kind};\n"
                        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
                    ),
                ),
            ],
            "nginx.conf",
        )
        servers = "".join(f"    server {u} max_fails=1 fail_timeout=10s;\n" for u in self.upstreams)
        site = substitute(
            (DEPLOY / "cardtable.conf").read_text(),
            [
                (
                    "    server 127.0.0.1:8001 max_fails=1 fail_timeout=10s;\n"
                    "    server 127.0.0.1:8002 max_fails=1 fail_timeout=10s;\n",
                    servers,
                ),
                ("/var/cache/nginx/cardtable", f"{f}/cache"),
                ("    listen 80;\n    listen [::]:80;\n", f"    listen 127.0.0.1:{self.port};\n"),
                ("/var/log/nginx/cardtable.log", f"{f}/logs/access.log"),
            ],
            "cardtable.conf",
        )
        (f / "conf.d" / "cardtable.conf").write_text(site + extra)
        path = f / "nginx.conf"
        path.write_text(main)
        return path

    def check(self, extra: str = "") -> str:
        """``nginx -t`` on the written configuration; its report (raises if it fails)."""
        conf = self.write(extra)
        done = subprocess.run(
            [NGINX, "-t", "-p", str(self.folder), "-c", str(conf)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done.stderr

    def start(self, timeout: float = 30.0) -> str:
        conf = self.write()
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.folder), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "logs" / "stderr.log").open("ab"),
            start_new_session=True,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return self.base
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited:\n{self.errors()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nginx did not answer:\n{self.errors()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(15)

    def errors(self) -> str:
        logs = self.folder / "logs"
        return "".join(
            p.read_text(errors="replace")
            for p in (logs / "error.log", logs / "stderr.log")
            if p.exists()
        )

    def access_log(self) -> list[str]:
        path = self.folder / "logs" / "access.log"
        return path.read_text().splitlines() if path.exists() else []
