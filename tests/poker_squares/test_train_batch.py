"""The batch (numpy) trainer: the same keys, policy and updates as the Python trainer."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_ADD,
    MS_EMPTY,
    MS_N,
    ValueTable,
    coarse_key,
    line_key,
    line_points,
)
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from training import train_batch as tb
from training.train import Trainer

Line = tuple[int, int, int, int, tuple[int, ...], tuple[int, ...], int, int]
"""is_col, tb, ms, st, ru, su, avail, mask: `line_key`'s arguments."""


def _lines_of_random_play(seed: int, deals: int) -> list[Line]:
    """Every incomplete line, and each with the card in hand added, at three time buckets,
    over positions reached by random play."""
    rng = random.Random(seed)
    pts = line_points("american")
    out: list[Line] = []
    for _ in range(deals):
        deck = list(range(52))
        rng.shuffle(deck)
        pos = Position()
        n = rng.randrange(25)
        for p in range(n):
            pos.see(deck[p])
            pos.put(pos.empties()[rng.randrange(25 - p)], deck[p], pts)
        pos.see(deck[n])  # the card in hand, as when the trainer values its placements
        r, s = deck[n] % 13 + 1, deck[n] // 13
        for li in range(10):
            ms, st = pos.lms[li], pos.lst[li]
            if MS_N[ms] == 5:
                continue
            ms2 = MS_ADD[ms * 14 + r]
            st2 = s if st == -1 else (st if st == s else MIXED)
            ru, su = tuple(pos.ru), tuple(pos.su)
            for t in (0, rng.randrange(25), 24):
                out.append((int(li >= 5), t, ms, st, ru, su, pos.avail, pos.mask))
                if MS_N[ms2] < 5:
                    out.append((int(li >= 5), t, ms2, st2, ru, su, pos.avail, pos.mask))
    return out


def test_line_keys_equal_line_key_bit_for_bit() -> None:
    rows = _lines_of_random_play(1, 400)
    is_col, tbs, ms, st = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(4))
    ru = np.array([r[4] for r in rows], dtype=np.int64)
    su = np.array([r[5] for r in rows], dtype=np.int64)
    avail = np.array([r[6] for r in rows], dtype=np.int64)
    mask = np.array([r[7] for r in rows], dtype=np.int64)
    want = [line_key(r[0], r[1], r[2], r[3], list(r[4]), list(r[5]), r[6], r[7]) for r in rows]
    got, coarse = tb.line_keys(is_col, tbs, ms, st, ru, su, avail, mask)
    assert got.dtype == np.int64 and got.tolist() == want
    assert coarse.tolist() == tb.coarse_keys(got).tolist() == [coarse_key(k) for k in want]
    # The sample covers every part of the key: empty lines, mixed suits, a suit with more
    # than 10 unseen cards (capped code) and fewer, no/some straight windows, and live
    # straight flushes and royal flushes.
    key = np.array(want)
    sf = key % 3
    sc = key // 3 % 6
    fc = key // 18 % 12
    assert (ms == MS_EMPTY).any() and (st == MIXED).any()
    assert {0, 1, 2} <= set(sf.tolist()) and {0, 1, 2, 3, 4, 5} <= set(sc.tolist())
    assert (fc == 0).any() and (fc == 11).any() and ((fc > 0) & (fc < 11)).any()
    assert len(rows) > 10_000


def test_line_keys_maps_lines_to_their_games() -> None:
    pos = Position()
    pts = line_points("british")
    # King and queen of suit 0 in row 0, a jack of suit 1 and a five of suit 2 elsewhere.
    for cell, card in ((0, 12), (1, 11), (6, 23), (12, 30)):
        pos.see(card)
        pos.put(cell, card, pts)
    ru = np.array([pos.ru, [0] + [4] * 13], dtype=np.int64)
    su = np.array([pos.su, [13] * 4], dtype=np.int64)
    avail = np.array([pos.avail, 0x1FFF], dtype=np.int64)
    mask = np.array([pos.mask, (1 << 52) - 1], dtype=np.int64)
    lines = np.arange(10)
    ms = np.array(pos.lms + [MS_EMPTY] * 10, dtype=np.int64)
    st = np.array(pos.lst + [-1] * 10, dtype=np.int64)
    game = np.repeat(np.arange(2), 10)
    is_col = np.tile((lines >= 5).astype(np.int64), 2)
    got, _ = tb.line_keys(is_col, 4, ms, st, ru, su, avail, mask, game)
    want = [
        line_key(int(li >= 5), 4, pos.lms[li], pos.lst[li], pos.ru, pos.su, pos.avail, pos.mask)
        for li in range(10)
    ]
    assert got[:10].tolist() == want
    assert got[0] % 3 == 2  # row 0: the ace, ten and jack of its suit are unseen: royal live
    assert len(set(got[10:15].tolist())) == 1 and got[10] != got[15]  # empty rows; columns


def _store(values: dict[int, float], counts: dict[int, int], horizon: int) -> tb.Store:
    store = tb.Store(horizon)
    keys = sorted(values)
    sl = store.insert(np.array(keys, dtype=np.int64))
    store.values[sl] = [values[k] for k in keys]
    store.counts[sl] = [counts[k] for k in keys]
    return store


def _python_trainer(seed: int, games: int) -> Trainer:
    tr = Trainer("american")
    rng = random.Random(seed)
    for _ in range(games):
        tr.play(rng, 0.5)
    tr.refresh()
    return tr


@pytest.mark.parametrize("learned", [0, 300])
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_greedy_play_and_updates_match_the_python_trainer(learned: int) -> None:
    """Greedy games from the same table: same placements (same totals), the same after-state
    keys recorded, and the same values after the update, as `Trainer.play` with epsilon 0.
    learned 0 is an empty table: every tie goes to the first empty cell."""
    base = _python_trainer(5, learned)
    pts = np.array(line_points("american"), dtype=np.int64)
    store = _store(base.values, base.counts, base.horizon)
    store.refresh()
    want_coarse = np.zeros(tb.N_COARSE)
    for ck, v in base.snapshot.coarse.items():
        want_coarse[ck] = v
    assert np.allclose(store.coarse, want_coarse, rtol=0, atol=1e-9)
    decks: list[list[int]] = []
    want_totals: list[int] = []
    for g in range(12):
        tr = Trainer("american")
        tr.values = dict(base.values)
        tr.counts = dict(base.counts)
        tr.refresh()
        deck = list(range(52))
        random.Random(100 + g).shuffle(deck)  # the deck `play` draws from this generator
        decks.append(deck)
        total = tr.play(random.Random(100 + g), 0.0)
        want_totals.append(total)
        zero = np.zeros((25, 1))
        totals, rec, finals = tb.play_batch(
            store, np.array([deck], dtype=np.int64), np.zeros(1), zero, zero, pts
        )
        assert totals.tolist() == [total]
        seen = Counter(rec[rec >= 0].tolist())
        added = {k: n - base.counts.get(k, 0) for k, n in tr.counts.items()}
        assert seen == {k: n for k, n in added.items() if n}
        one = _store(base.values, base.counts, base.horizon)
        keep = rec >= 0
        one.merge(rec[keep], np.broadcast_to(finals, rec.shape)[keep])
        keys, values, counts = one.items()
        assert keys.tolist() == sorted(tr.values)
        assert counts.tolist() == [tr.counts[k] for k in keys.tolist()]
        # Equal up to rounding, and to O(1/horizon^2) where a key passed the horizon (one
        # merged step against train.py's sequential ones: see `train_batch.merged`).
        want = np.array([tr.values[k] for k in keys.tolist()])
        assert np.abs(values - want).max() < 1e-4
    # The same games in one lock-step batch: the same totals.
    zeros = np.zeros((25, len(decks)))
    totals, _, _ = tb.play_batch(
        store, np.array(decks, dtype=np.int64), np.zeros(len(decks)), zeros, zeros, pts
    )
    assert totals.tolist() == want_totals


def test_exploration_takes_the_drawn_empty_cell_except_for_the_last_card() -> None:
    store = tb.Store(2000)
    store.refresh()
    pts = np.array(line_points("american"), dtype=np.int64)
    deck = np.array([list(range(25))], dtype=np.int64)
    # u_cell 0.999: the last empty cell every time (the greedy choice on an empty table
    # is the first); on the last card the single empty cell either way.
    u = np.full((25, 1), 0.999)
    _, rec, _ = tb.play_batch(store, deck, np.ones(1), np.zeros((25, 1)), u, pts)
    # Cards 0..24 fill cells 24, 23, ...: after the first placement only row 4 and column 9
    # hold a card; the other 8 lines are still empty (equal row keys, equal column keys).
    first = rec[0, 0]
    assert len(set(first[:4].tolist())) == 1 and first[4] != first[0]
    assert len(set(first[5:9].tolist())) == 1 and first[9] != first[5]


def test_epsilon_schedule_is_train_py_s() -> None:
    eps = tb.epsilons(0.5, 0, 1000, 1000)
    assert eps[0] == 0.5 and eps[400] == pytest.approx(0.5 * 0.5**2)
    assert eps[799] > 0 and (eps[800:] == 0).all()


def test_merge_rule_on_a_hand_made_example() -> None:
    # Exact mean while the count stays within the horizon: (3 * 10 + 2 * 4) / 5.
    assert tb.merged(np.array([10.0]), np.array([3]), np.array([4.0]), np.array([2]), 2000)[
        0
    ] == pytest.approx(7.6)
    # Crossing the horizon (4): one observation joins the mean (10 -> 8.5), the other two
    # move it (1 - (3/4)^2) = 0.4375 of the way to 4: 8.5 - 0.4375 * 4.5 = 6.53125.
    got = tb.merged(np.array([10.0]), np.array([3]), np.array([4.0]), np.array([3]), 4)
    assert got[0] == pytest.approx(6.53125)
    # Past the horizon, equal observations: exactly train.py's sequential 1/horizon steps.
    v = 10.0
    for _ in range(5):
        v += (2.0 - v) / 4
    got = tb.merged(np.array([10.0]), np.array([9]), np.array([2.0]), np.array([5]), 4)
    assert got[0] == pytest.approx(v)
    # Through the store: a known key and a new one.
    store = _store({5: 3.0}, {5: 1}, 2000)
    store.merge(np.array([5, 7, 5], dtype=np.int64), np.array([1, 9, 2], dtype=np.int64))
    keys, values, counts = store.items()
    assert keys.tolist() == [5, 7] and values.tolist() == [2.0, 9.0]
    assert counts.tolist() == [3, 1]


def test_the_store_grows_and_finds_every_key() -> None:
    store = tb.Store(2000, bits=4)
    store.coarse[:] = 7.0
    keys = np.random.default_rng(3).choice(1 << 40, 5000, replace=False).astype(np.int64)
    store.merge(keys, np.arange(5000, dtype=np.int64))
    assert (store.coarse == 7.0).all()  # growing keeps the fallback values
    store.merge(keys[:100], np.zeros(100, dtype=np.int64))
    assert store.size == 5000 and 4 * store.size <= store.slot_keys.size
    sl = store.find(keys)
    assert (sl >= 0).all() and (store.slot_keys[sl] == keys).all()
    assert (store.counts[sl[:100]] == 2).all() and (store.counts[sl[100:]] == 1).all()
    assert (store.find(keys + (1 << 41)) == -1).all()


def test_same_seed_same_bytes_and_the_table_plays_better_than_random(tmp_path: Path) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    run = ["--table", "american", "--games", "3000", "--seed", "4", "--batch", "500"]
    for out in (a, b):
        assert tb.main([*run, "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
    vt = ValueTable.from_bytes("american", a.read_bytes())
    assert vt.games == 3000 and vt.fine and vt.coarse
    other = tb.train("american", 3000, 5, batch=500)
    assert other.to_bytes() != a.read_bytes()
    loose = tb.train("american", 3000, 4, batch=500, min_count=1)
    assert set(vt.fine) < set(loose.fine)
    # Greedy play with the learned values (the engine's own budget-0 search) against random
    # placement on the same 20 deals.
    pts = line_points("american")
    rng = random.Random(9)
    greedy, rand = 0, 0
    for _ in range(20):
        deck = list(range(52))
        rng.shuffle(deck)
        pos, other_pos = Position(), Position()
        for card in deck[:25]:
            pos.see(card)
            _, best = analyse(pos, card, vt, pts, 0)
            pos.put(best, card, pts)
            other_pos.see(card)
            empties = other_pos.empties()
            other_pos.put(empties[rng.randrange(len(empties))], card, pts)
        greedy += pos.total
        rand += other_pos.total
    assert greedy > 2 * rand and greedy / 20 > 50


def test_the_cli_writes_only_where_out_says() -> None:
    with pytest.raises(SystemExit):
        tb.main(["--table", "american", "--games", "10"])
