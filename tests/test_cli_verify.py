"""`cardtable verify`: a fair deal checked offline from the values the page shows."""

from __future__ import annotations

import json

import pytest

from cardtable import fairness
from cardtable.cli.main import main

SEED = bytes(range(32)).hex()
SALT = bytes(range(16)).hex()
COMMIT = fairness.commitment(SEED, SALT)
DECK = [str(c) for c in fairness.fair_deck(SEED)]


def test_a_poker_squares_deal_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", SEED, SALT, COMMIT, "--cards", " ".join(DECK[:25])]) == 0
    out = capsys.readouterr().out
    assert "commitment: matches" in out and "cards:      matches" in out
    assert out.strip().endswith("VERIFIED") and "NOT" not in out
    assert f"deck:       {' '.join(DECK)}" in out
    # The grid's cards in any order (the page may not know the order they were turned).
    grid = ",".join(sorted(DECK[:25]))
    assert main(["verify", SEED, SALT, COMMIT.upper(), "--cards", grid, "--any-order"]) == 0


def test_wrong_values_do_not_verify(capsys: pytest.CaptureFixture[str]) -> None:
    swapped = [DECK[1], DECK[0], *DECK[2:25]]
    assert main(["verify", SEED, SALT, COMMIT, "--cards", " ".join(swapped)]) == 1
    out = capsys.readouterr().out
    assert "cards:      DOES NOT MATCH" in out and f"card 1 is {DECK[1]}" in out
    assert "NOT VERIFIED" in out
    other = fairness.commitment(SEED, "ff" * 16)
    assert main(["verify", SEED, SALT, other, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["commitment_ok"] is False and data["ok"] is False and data["deck"] == DECK
    wrong = ",".join([*DECK[1:25], DECK[30]])
    assert main(["verify", SEED, SALT, COMMIT, "--cards", wrong, "--any-order"]) == 1


def test_a_kings_corner_round_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    hand = [*DECK[7:14], DECK[30]]  # seat 1 as dealt, plus a first-turn draw
    args = ["verify", SEED, SALT, COMMIT, "--players", "3", "--seat", "1", "--json"]
    assert main([*args, "--hand", " ".join(hand)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dealt_hand"] == DECK[7:14] and data["centre"] == DECK[21:25]
    assert data["hand_ok"] is True
    assert main([*args, "--hand", " ".join(DECK[:7])]) == 1
    assert json.loads(capsys.readouterr().out)["hand_ok"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["abc", SALT, COMMIT], "seed must be 64 lowercase hex digits"),
        ([SEED, "00", COMMIT], "salt must be 32 lowercase hex digits"),
        ([SEED, SALT, COMMIT, "--cards", "XX"], "not a card"),
        ([SEED, SALT, COMMIT, "--hand", "AS"], "--hand needs --players"),
        ([SEED, SALT, COMMIT, "--players", "2", "--seat", "2"], "--seat must be 0-1"),
    ],
)
def test_bad_input_is_a_usage_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", *args]) == 2
    assert message in capsys.readouterr().err
