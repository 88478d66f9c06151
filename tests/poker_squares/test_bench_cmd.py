"""`cardtable bench poker-squares`: deal files in, one score per deal and a summary out."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.cli.main import main


def test_bench_plays_a_three_deal_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deals = tmp_path / "deals.txt"
    assert (
        main(["bench", "poker-squares", "--generate", "3", "--seed", "4", "--deals", str(deals)])
        == 0
    )
    lines = deals.read_text().splitlines()
    assert len(lines) == 3 and all(len(line.split()) == 26 for line in lines)
    capsys.readouterr()
    status = main(
        ["bench", "poker-squares", "--table", "british", "--deals", str(deals), "--budget", "3"]
    )
    assert status == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:3]] == ["1", "2", "3"]
    scores = [int(line.split()[1]) for line in out[:3]]
    last = out[3].split()
    assert last[0::2] == ["mean", "sd", "games", "ms_per_move", "se", "load"]
    assert float(last[1]) == pytest.approx(sum(scores) / 3, abs=0.01)
    assert last[5] == "3"


def test_bench_limit_and_generated_file_are_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    main(["bench", "poker-squares", "--generate", "5", "--seed", "9", "--deals", str(a)])
    main(["bench", "poker-squares", "--generate", "5", "--seed", "9", "--deals", str(b)])
    assert a.read_text() == b.read_text()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1 AS 2S 3S\n", "has 3 cards"),
        ("1 " + " ".join(["AS"] * 25) + "\n", "repeats a card"),
        ("1 XX" + " 2S" * 24 + "\n", "not a card"),
        ("", "no deals"),
    ],
)
def test_bench_rejects_a_malformed_file_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    deals = tmp_path / "bad.txt"
    deals.write_text(text)
    assert main(["bench", "poker-squares", "--deals", str(deals), "--budget", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert reason in err and err.startswith("cardtable: error:")


def test_bench_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "poker-squares", "--deals", str(tmp_path / "none.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
