"""The shipped systemd unit (deploy/systemd/cardtable@.service): systemd accepts it as it is,
and the command it starts is one `cardtable serve` takes, with the options docs/operating.md
says a process behind the proxy needs."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable.cli.main import build_parser

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "systemd" / "cardtable@.service"
INSTALLED = "/opt/cardtable/.venv/bin/cardtable"


def exec_start(text: str) -> list[str]:
    """The unit's ExecStart, continuation lines joined, split as systemd splits it."""
    joined = text.replace("\\\n", " ")
    [line] = [ln for ln in joined.splitlines() if ln.startswith("ExecStart=")]
    return shlex.split(line.removeprefix("ExecStart="))


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # The same unit, starting this checkout's command (systemd checks that it exists).
    here = str(Path(sys.executable).with_name("cardtable"))
    unit = tmp_path / "cardtable@.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, here))
    done = subprocess.run(
        [analyze, "verify", "--man=no", str(tmp_path / "cardtable@8001.service")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # systemd only warns about a key it does not know or a value it cannot parse.
    assert "cardtable@" not in done.stderr, done.stderr


def test_the_unit_starts_a_process_the_proxy_can_use() -> None:
    argv = exec_start(UNIT.read_text())
    assert argv[0] == INSTALLED
    args = build_parser().parse_args([a.replace("%i", "8001") for a in argv[1:]])
    assert args.command == "serve"
    assert (args.host, args.port) == ("127.0.0.1", 8001)
    assert args.data == Path("/var/lib/cardtable/8001")
    # The proxy's X-Forwarded-For is believed (the per-client limits see the client), and the
    # log lines carry the request id nginx logs too.
    assert args.forwarded_allow_ips == "127.0.0.1"
    assert args.log_format == "json"
