"""The paired value-table comparison (`research/ps_tables.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.poker_squares.hint.abstract import ValueTable, load_values
from research import ps_tables

DEALS = Path(__file__).parents[2] / "bench" / "deals" / "ps-1000.txt"
DATA = Path(__file__).parents[2] / "cardtable" / "poker_squares" / "data"


def test_summary_numbers() -> None:
    line = ps_tables.summary("t", [10, 20, 30], [8, 20, 26])
    # Differences 2, 0, 4: mean 2, sd 2, se 2 / sqrt(3).
    assert line == "t games 3 A mean 18.00 B mean 20.00 paired difference +2.00 se 1.15"


def test_same_table_is_level_and_an_empty_table_plays_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = tmp_path / "shipped.npz"
    shipped.write_bytes(load_values("american").to_bytes())
    args = ["--table", "american", "--deals", str(DEALS), "--limit", "3"]
    assert ps_tables.main([*args, "--values", str(shipped)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:3]] == ["1", "2", "3"]
    assert all(line.split()[1] == line.split()[2] for line in out[:3])
    assert out[-1].endswith("paired difference +0.00 se 0.00")

    empty = tmp_path / "empty.npz"
    empty.write_bytes(ValueTable("american", {}, {}).to_bytes())
    assert (
        ps_tables.main([*args, "--values", str(empty), "--baseline", str(_lines(tmp_path, out))])
        == 0
    )
    last = capsys.readouterr().out.splitlines()[-1]
    b_mean = float(last.split("B mean ")[1].split()[0])
    a_mean = float(last.split("A mean ")[1].split()[0])
    assert b_mean < a_mean  # no learned values: the greedy placement is blind


def _lines(tmp_path: Path, out: list[str]) -> Path:
    path = tmp_path / "earlier.txt"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def test_a_fullness_file_joins_b_s_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """British ships line values plus a fullness correction: the same two files given as B
    play exactly as the shipped A, and the line values alone do not (on these deals)."""
    lines = tmp_path / "british.npz"
    lines.write_bytes(load_values("british").to_bytes())
    corr = DATA / "fullness-british.npz"
    args = ["--table", "british", "--deals", str(DEALS), "--limit", "6", "--budget", "0"]
    assert ps_tables.main([*args, "--values", str(lines), "--fullness", str(corr)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("paired difference +0.00 se 0.00")
    assert ps_tables.main([*args, "--values", str(lines)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.split()[1] != line.split()[2] for line in out[:-1])
