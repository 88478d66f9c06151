"""bench.abuse end to end with tiny numbers: a real `cardtable serve`, the baselines and two
attacks (one beside the Poker Squares player, one beside the online player), a row each with
figures, and no process of the server left afterwards."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def group_members(pgid: int) -> list[int]:
    """Processes whose process group is ``pgid`` (/proc/<pid>/stat, field 5)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


@pytest.mark.deep  # the benchmark's own smoke test: bench/ is not the product
def test_abuse_prints_a_row_per_attack_with_figures(tmp_path: Path) -> None:
    rows_file = tmp_path / "rows.json"
    cmd = [sys.executable, "-m", "bench.abuse", "--seconds", "2", "--scale", "0.01",
           "--big-mib", "0.05", "--pace", "0.1", "--one-server",
           "--only", "big-frames", "--only", "spectator", "--json", str(rows_file)]  # fmt: skip
    done = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=360, env=os.environ.copy()
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    out = done.stdout
    # The final table: a header, then one row per baseline and attack.
    table = out[out.index("with the baseline of the same run") :].splitlines()
    names = [line.split()[0] for line in table[2:] if line.strip()]
    assert names == ["baseline", "baseline-online", "big-frames", "spectator"], out

    rows = {r["row"]: r for r in json.loads(rows_file.read_text()) if r}
    base, ps_row = rows["baseline"], rows["big-frames"]
    for r in (base, ps_row):
        assert r["moves"] >= 3, r
        assert 0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"], r
        assert r["rss_peak_mib"] > 30, r  # a Python server and its search worker
        assert re.fullmatch(r"[1-9]\d*/[1-9]\d*", r["new_clients"]), r
    assert ps_row["base_p99_ms"] == base["p99_ms"]
    assert ps_row["ratio"] == round(ps_row["p99_ms"] / base["p99_ms"], 2)
    assert isinstance(ps_row["goal"], bool)
    # The attacker really sent its messages (the server may refuse them: that is measured).
    assert (
        ps_row["attacker"].get("messages sent", 0)
        + ps_row["attacker"].get("upgrade refused 403", 0)
        >= 1
    ), ps_row["attacker"]
    big_line = next(line for line in table if line.startswith("big-frames"))
    assert f"{ps_row['p99_ms']}" in big_line and f"{base['p99_ms']}" in big_line

    spectator = rows["spectator"]
    assert spectator["online"] and rows["baseline-online"]["online"]
    assert spectator["attacker"].get("visits", 0) >= 1, spectator["attacker"]
    assert isinstance(spectator["stale"], int) and spectator["stale"] <= spectator["moves"]
    assert (
        "stale" in next(line for line in table if line.startswith("spectator"))
        or not (spectator["moves"])
    )

    # Nothing of the server is left: neither it nor its search worker (its process group).
    assert group_members(base["server_pid"]) == []
