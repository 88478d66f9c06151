"""`cardtable simulate` and the simulator behind it, on tiny runs."""

from __future__ import annotations

import json

import pytest

from cardtable.cli.main import main
from cardtable.kings_corner.cpu.simulate import IDLE_CAP, run


def test_simulate_json_heads_up(capsys: pytest.CaptureFixture[str]) -> None:
    args = "simulate --players 2 --seats strong,greedy --rules standard --rounds 6 --seed 4"
    assert main([*args.split(), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["rounds"] == 6 and out["players"] == 2 and out["rules"] == "standard"
    assert [e["player"] for e in out["seats"]] == ["strong", "greedy"]
    assert sum(e["win_share"] for e in out["seats"]) == pytest.approx(1.0, abs=1e-3)
    for e in out["seats"]:
        lo, hi = e["ci95"]
        assert 0.0 <= lo <= e["win_share"] <= hi <= 1.0
        assert e["mean_penalty"] >= 0
    assert out["blocked"] >= 0 and out["capped"] >= 0
    assert "rounds" in captured.err  # the progress bar goes to stderr


def test_simulate_table_four_players(capsys: pytest.CaptureFixture[str]) -> None:
    argv = "simulate --players 4 --seats easy,normal,oracle,greedy --rules draw-last --rounds 4"
    assert main(argv.split()) == 0
    out = capsys.readouterr().out
    for name in ("easy", "normal", "oracle", "greedy", "win share", "capped"):
        assert name in out


@pytest.mark.parametrize(
    "argv",
    [
        "simulate --players 2 --seats strong,hard --rounds 2",
        "simulate --players 3 --seats strong,greedy --rounds 2",
        "simulate --players 2 --seats strong,greedy --rounds 3",
        "simulate --players 5 --seats a,b,c,d,e --rounds 2",
        "simulate --players 2 --seats strong,greedy --rounds 2 --rules fancy",
    ],
)
def test_simulate_bad_input_is_a_usage_error(argv: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(argv.split())
    except SystemExit as e:  # argparse's own checks (an unknown --rules choice)
        status = int(e.code or 0)
    assert status == 2
    assert "error" in capsys.readouterr().err


def test_heads_up_plays_each_deal_twice_with_hands_swapped() -> None:
    report = run(["normal", "greedy"], "simple", 4, seed=2)
    deals = [r.deal for r in report.results]
    assert deals == [0, 0, 1, 1]
    first, second = report.results[0], report.results[1]
    assert first.seats == (0, 1) and second.seats == (1, 0)
    assert all(sum(r.shares) == pytest.approx(1.0) for r in report.results)
    assert IDLE_CAP == 200


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_same_seed_same_results() -> None:
    a = run(["strong", "easy", "greedy"], "standard", 3, seed=9).summary()
    b = run(["strong", "easy", "greedy"], "standard", 3, seed=9).summary()
    for d in (a, b):
        d.pop("seconds")
        d.pop("strong_ms_per_move", None)
    assert a == b
