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
        ["bench", "poker-squares", "--table", "british", "--deals", str(deals), "--budget", "0"]
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
    assert main(["bench", "poker-squares", "--deals", str(deals), "--budget", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert reason in err and err.startswith("cardtable: error:")


def test_bench_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "poker-squares", "--deals", str(tmp_path / "none.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_compare_plays_the_baseline_on_the_same_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deals = tmp_path / "deals.txt"
    main(["bench", "poker-squares", "--generate", "4", "--seed", "2", "--deals", str(deals)])
    capsys.readouterr()
    run = ["bench", "poker-squares", "--deals", str(deals), "--budget", "0"]
    assert main([*run, "--compare", "baseline"]) == 0
    out = capsys.readouterr().out.splitlines()
    pairs = [(int(line.split()[1]), int(line.split()[2])) for line in out[:4]]
    summary = out[5].split()
    assert summary[:2] == ["compare", "baseline"]
    diff = sum(a - b for a, b in pairs) / 4
    assert float(summary[6]) == pytest.approx(diff, abs=0.01)
    # The baseline alone scores what it scored in the comparison, and against itself it
    # differs by nothing.
    assert main([*run, "--player", "baseline", "--compare", "baseline"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [int(line.split()[1]) for line in out[:4]] == [b for _, b in pairs]
    assert out[5].split()[5:9] == ["difference", "+0.00", "se", "0.00"]


def test_the_pairing_script_reads_compare_output(tmp_path: Path) -> None:
    from bench.poker_squares_hint import read_scores

    f = tmp_path / "run.txt"
    f.write_text("1 120 118\n2 -3 4\nmean 58.50 sd 1 games 2\ncompare baseline mean 61.00\n")
    assert read_scores(f) == {"1": 120, "2": -3}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--generate", "0"], "--generate needs a positive number of deals"),
        (["--limit", "0"], "--limit must be at least 1"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--budget", "-1"], "--budget must be 0 or more"),
        (["--move-ms", "0"], "--move-ms must be positive"),
        (["--player", "baseline", "--move-ms", "5"], "the baseline player takes --budget"),
        (["--compare", "baseline", "--move-ms", "5"], "--compare needs --budget"),
    ],
)
def test_bench_refuses_impossible_options_in_one_line(
    options: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deals = tmp_path / "deals.txt"
    main(["bench", "poker-squares", "--generate", "2", "--deals", str(deals)])
    capsys.readouterr()
    assert main(["bench", "poker-squares", "--deals", str(deals), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardtable: error: ") and message in err and err.count("\n") == 1


def test_bench_alone_shows_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench"]) == 2
    assert "poker-squares" in capsys.readouterr().out
