"""`cardtable verify`: a fair deal checked offline from the values the page shows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable.cli.main import main
from cardtable.server.online.render import device_view
from cardtable.server.online.room import Config, Room

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


def _online_round() -> tuple[dict[str, Any], list[str]]:
    """A 2-person online table whose match seed is SEED, played to the round's end through
    the room (`Room`, pure): the fairness its end view publishes and Bob's first hand as his
    device saw it."""
    ann, bob, now = "a" * 32, "b" * 32, 1000.0
    config = Config(players=2, rules=kc.Rules.preset("standard"), rounds=1, turn_timer=None,
                    grace=60.0, stand_in="easy", step=0.5)  # fmt: skip
    room = Room.create(config, [("me", None, None), ("invite", None, None)], ann, "Ann", now)
    joined = room.join(bob, "Bob", None, now)
    assert joined is not None
    room = joined.start(ann, 5, now, fair_seed=SEED)

    def seen(player: str) -> dict[str, Any]:
        view = device_view(room, player, token="t", code=None, now=now)["view"]
        assert isinstance(view, dict)
        return view

    first = seen(bob)
    assert first["fairness"]["seed"] is None and first["fairness"]["commitment"]
    players = {0: ann, 1: bob}
    for _ in range(1000):
        if room.to_play is None:
            break
        player = players[room.to_play]
        moves = seen(player)["legal_moves"]
        room = room.move(player, next((m for m in moves if m != "end"), "end"), now)
    last = seen(bob)
    assert last["is_over"] and last["fairness"]["seed"] is not None
    assert last["fairness"]["commitment"] == first["fairness"]["commitment"]
    return last["fairness"], first["hand"]


def test_an_online_round_verifies_and_a_tampered_one_does_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The values an online table's end view publishes check like a local round's: the
    commitment, and the hand Bob's device was dealt (seat 1: cards 8-14 of the deck)."""
    fair, hand = _online_round()
    round_one = fairness.round_fair(SEED, 1)
    assert (fair["seed"], fair["salt"]) == (round_one.seed, round_one.salt)
    seed, salt, committed = fair["seed"], fair["salt"], fair["commitment"]
    deck = [str(c) for c in fairness.fair_deck(seed)]
    assert set(deck[7:14]) <= set(hand)
    args = ["--players", "2", "--seat", "1", "--json"]
    assert main(["verify", seed, salt, committed, *args, "--hand", " ".join(hand)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["hand_ok"] is True and data["dealt_hand"] == deck[7:14]

    # A changed card: one of Bob's dealt cards swapped for a card he was not dealt.
    other = next(c for c in deck[14:] if c not in hand)
    changed = [other if c == deck[7] else c for c in hand]
    assert main(["verify", seed, salt, committed, *args, "--hand", " ".join(changed)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["hand_ok"] is False and deck[7] in data["mismatch"]
    # A changed seed (last hex digit) or salt: the commitment no longer matches.
    flip = {"0": "1"}
    bad_seed = seed[:-1] + flip.get(seed[-1], "0")
    bad_salt = salt[:-1] + flip.get(salt[-1], "0")
    for s, t in ((bad_seed, salt), (seed, bad_salt)):
        assert main(["verify", s, t, committed, *args, "--hand", " ".join(hand)]) == 1
        data = json.loads(capsys.readouterr().out)
        assert data["commitment_ok"] is False and data["ok"] is False
    # Another round's values do not pass for this one.
    two = fairness.round_fair(SEED, 2)
    assert main(["verify", two.seed, two.salt, committed, *args]) == 1
