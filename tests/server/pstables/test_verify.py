"""`cardtable verify` checks a Poker Squares table's revealed deal (docs/fairness.md): the
commitment shown from the lobby on, the 25 cards of ``result.cards`` as the first 25 of the
fair deck, and any player's grid as those cards in any order."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from cardtable.cli.main import main as cli

from .helpers import Device, cell, table_of


def test_the_revealed_deal_verifies(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    ann, bea = Device(client, "Ann"), Device(client, "Bea")
    token = table_of([ann, bea])
    committed = ann.get(token)["fairness"]["commitment"]  # shown in the lobby already
    ann.act(token, "start")
    for k in range(25):
        ann.act(token, "place", card=k, cell=cell(k))
        bea.act(token, "place", card=k, cell=cell(24 - k))
    over = bea.get(token)
    fair = over["fairness"]
    assert fair["commitment"] == committed
    cards = " ".join(over["result"]["cards"])
    args = ["--seed", fair["seed"], "--salt", fair["salt"], "--commitment", committed]
    assert cli(["verify", *args, "--cards", cards]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    assert cli(["verify", fair["seed"], fair["salt"], committed, "--cards", cards]) == 0
    for ranked in over["result"]["ranking"]:
        grid = " ".join(c for row in ranked["game"]["grid"] for c in row)
        assert cli(["verify", *args, "--cards", grid, "--any-order"]) == 0
    swapped = over["result"]["cards"]
    swapped[3], swapped[4] = swapped[4], swapped[3]
    assert cli(["verify", *args, "--cards", " ".join(swapped)]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out
    other = "0" * 64
    assert (
        cli(["verify", "--seed", fair["seed"], "--salt", fair["salt"], "--commitment", other]) == 1
    )
    assert cli(["verify", fair["seed"], fair["salt"], committed, "--seed", fair["seed"]]) == 2
