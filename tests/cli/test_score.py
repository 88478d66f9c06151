"""`cardtable poker-squares score`: the quick check from the command line."""

import pytest

from cardtable.cli.main import main


def test_score_prints_hand_and_points(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["poker-squares", "score", "TH", "JH", "QH", "KH", "AH"]) == 0
    assert capsys.readouterr().out == "Royal flush: 100 points (american)\n"
    assert main(["poker-squares", "score", "2H", "3D", "4H", "5D", "6H", "--table", "british"]) == 0
    assert capsys.readouterr().out == "Straight: 12 points (british)\n"
    assert main(["poker-squares", "score", "10S", "10D", "4H", "4D", "10C"]) == 0
    assert capsys.readouterr().out == "Full house: 25 points (american)\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["TH", "JH", "QH", "KH"], "exactly 5 cards, got 4"),
        (["TH", "JH", "QH", "KH", "XX"], "not a card: 'XX'"),
        (["TH", "TH", "QH", "KH", "AH"], "duplicate card TH"),
        (["TH", "JH", "QH", "KH", "AH", "--table", "french"], "unknown table 'french'"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["poker-squares", "score", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_unknown_action_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["poker-squares", "scroe"])
    assert info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
