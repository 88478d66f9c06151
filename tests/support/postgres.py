"""A throwaway PostgreSQL server for tests, and a fresh schema per test.

`postgres_server()` yields a ``postgresql://`` URL. When ``DATABASE_URL`` is set it uses that
server; otherwise it runs Debian's PostgreSQL binaries (``make system-packages`` installs them)
on a free loopback port with its socket, data and log in a temporary folder, and removes them
afterwards. PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user
(created with ``useradd`` if missing). Each pytest-xdist worker gets its own server.

`fresh_schema(url)` yields a URL whose connections use a new, empty schema (dropped after),
so tests never see each other's rows, even on a shared server.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

PG_USER = "postgres"


class PostgresUnavailable(RuntimeError):
    """No DATABASE_URL and no PostgreSQL binaries to start a server with."""


def pg_bin_dir() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian layout), if any."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _ensure_user(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True,
            capture_output=True,
        )


def _as_user(argv: list[str], user: str | None) -> list[str]:
    return argv if user is None else ["runuser", "-u", user, "--", *argv]


@contextlib.contextmanager
def start_postgres(*, attempts: int = 3) -> Iterator[str]:
    """Run a private PostgreSQL server on 127.0.0.1; yield its URL; stop and delete it."""
    bindir = pg_bin_dir()
    if bindir is None:
        raise PostgresUnavailable(
            "PostgreSQL is not installed: run `make system-packages` or set DATABASE_URL"
        )
    user: str | None = None
    if os.geteuid() == 0:
        user = PG_USER
        _ensure_user(user)
    root = Path(tempfile.mkdtemp(prefix="cardtable-pg-", dir="/tmp"))
    data, log = root / "data", root / "server.log"
    try:
        if user is not None:
            info = pwd.getpwnam(user)
            os.chown(root, info.pw_uid, info.pw_gid)
        subprocess.run(
            _as_user(
                [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                 "-E", "UTF8", "--no-sync", "--no-instructions"],
                user,
            ),
            check=True,
            capture_output=True,
        )  # fmt: skip
        port = _start(bindir, data, root, log, user, attempts)
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                _as_user(
                    [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], user
                ),
                capture_output=True,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _start(bindir: Path, data: Path, root: Path, log: Path, user: str | None, attempts: int) -> int:
    last = ""
    for _ in range(attempts):
        port = free_port()
        opts = (
            f"-h 127.0.0.1 -p {port} -k {root} -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=60"
        )
        done = subprocess.run(
            _as_user(
                [str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(log), "-w",
                 "-t", "60", "start"],
                user,
            ),
            capture_output=True,
            text=True,
        )  # fmt: skip
        if done.returncode == 0:
            return port
        last = done.stderr + (log.read_text() if log.exists() else "")
        time.sleep(0.2)
    raise RuntimeError(f"PostgreSQL did not start:\n{last[-2000:]}")


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """``DATABASE_URL`` if set, else a private server for the duration."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    with start_postgres() as own:
        yield own


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on the search path; its connections are also named after
    the schema (``application_name``), so `fresh_schema` can find them when it drops it."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}&application_name={schema}"


DROP_ATTEMPTS = 5


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A URL on ``url``'s server whose tables live in a new schema, dropped afterwards.

    The drop never waits for ever: a connection still open on the schema (a server thread that
    outlived its test, an idle transaction) would block ``DROP SCHEMA`` without end, so the
    schema's own connections are ended first and each attempt gives up on locks after a few
    seconds."""
    import psycopg

    schema = f"test_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            conn.execute("SET lock_timeout = '5s'")
            for attempt in range(DROP_ATTEMPTS):
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = %s AND pid <> pg_backend_pid()",
                    (schema,),
                )
                try:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")
                    break
                except psycopg.errors.LockNotAvailable:
                    if attempt == DROP_ATTEMPTS - 1:
                        raise


_shared: contextlib.ExitStack | None = None
_shared_url: str | None = None


def shared_postgres() -> str:
    """One server per test process, however many test folders ask (stopped at exit), so the
    server and reliability suites on one xdist worker share it."""
    global _shared, _shared_url
    if _shared_url is None:
        import atexit

        stack = contextlib.ExitStack()
        _shared_url = stack.enter_context(postgres_server())
        _shared = stack
        atexit.register(stack.close)
    return _shared_url
