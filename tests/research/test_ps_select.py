"""Ranking value tables by greedy play on random deals (`research/ps_select.py`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardtable.poker_squares.hint.abstract import ValueTable, coarse_key, load_values
from research import ps_select


def test_the_store_holds_the_table_s_fine_and_coarse_values() -> None:
    vt = load_values("american")
    store = ps_select.store_of(vt)
    fine = sorted(vt.fine)[::97]
    keys = np.array(fine, dtype=np.int64)
    got = store.lookup(keys, np.array([coarse_key(k) for k in fine], dtype=np.int64))
    assert np.allclose(got, [vt.fine[k] for k in fine])
    # A key the table has not learned falls back on its coarse key's value.
    known = set(vt.fine)
    unknown = next(k for k in (f + 1 for f in fine) if k not in known)
    got = store.lookup(np.array([unknown]), np.array([coarse_key(unknown)]))
    assert got[0] == pytest.approx(vt.value(unknown))


def test_greedy_scores_are_reproducible_and_learned_values_beat_none() -> None:
    vt = load_values("british")
    a = ps_select.greedy_scores(vt, 300, seed=5)
    assert a.shape == (300,)
    assert np.array_equal(a, ps_select.greedy_scores(vt, 300, seed=5))
    assert not np.array_equal(a, ps_select.greedy_scores(vt, 300, seed=6))
    blind = ps_select.greedy_scores(ValueTable("british", {}, {}), 300, seed=5)
    assert a.mean() > 40 > 20 > blind.mean()


def test_the_command_pairs_each_table_with_the_shipped_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = tmp_path / "same.npz"
    same.write_bytes(load_values("american").to_bytes())
    empty = tmp_path / "empty.npz"
    empty.write_bytes(ValueTable("american", {}, {}).to_bytes())
    args = ["--table", "american", "--deals", "500", str(same), str(empty)]
    assert ps_select.main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("shipped mean ")
    assert out[1] == f"{same} mean {out[0].split()[-1]} paired difference +0.00 se 0.00"
    assert float(out[2].split("paired difference ")[1].split()[0]) < -50
