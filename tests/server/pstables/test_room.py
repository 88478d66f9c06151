"""The table's logic, pure (cardtable/server/pstables/room.py): the lobby, placing, the next
card, the timer and away seats, the ranking, the rematch, saving; and a property: whoever
places (the player or the hint), every grid holds exactly the deal's cards, each where it
was placed, in the order they came."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.fairness import Fair, fair_deck
from cardtable.server.pstables.room import (
    AWAY,
    HERE,
    OVER,
    PLAYING,
    RECONNECTING,
    Placed,
    Refused,
    Room,
    Settings,
    ranking,
)

FAIR = Fair("ab" * 32, "cd" * 16)


def lobby(players: int = 3, timer: int | None = None, most: int = 8) -> Room:
    room = Room.create(Settings("american", timer, most, 60.0), "p0", "Ann", 0.0, FAIR, "tok")
    for i in range(1, players):
        joined = room.join(f"p{i}", f"P{i}", 0.0)
        assert joined is not None
        room = joined
    return room


def refused(code: str, change: object, *args: object) -> None:
    with pytest.raises(Refused) as caught:
        change(*args)  # type: ignore[operator]
    assert caught.value.code == code


def test_the_lobby() -> None:
    room = lobby(2, most=2)
    assert [s.seat for s in room.seats] == [0, 1] and room.host == 0
    assert room.join("p1", "Again", 1.0) is None  # the same device: unchanged
    refused("table_full", room.join, "p9", "Late", 1.0)
    refused("not_host", room.start, "p1", 1.0)
    refused("not_seated", room.start, "p9", 1.0)
    refused("wrong_phase", lobby(1).start, "p0", 1.0)
    left = room.leave("p0", 1.0)
    assert left is not None and left.host == 1 and [s.seat for s in left.seats] == [1]
    rejoined = left.join("p2", "Cy", 1.0)
    assert rejoined is not None and [s.seat for s in rejoined.seats] == [0, 1]
    empty = left.leave("p1", 2.0)
    assert empty is not None and empty.closed and not empty.is_open and empty.invite is None


def test_placing_and_the_next_card() -> None:
    room = lobby(2).start("p0", 10.0)
    assert room.phase == PLAYING and room.card == 0 and room.deadline is None
    refused("wrong_phase", room.join, "p9", "Late", 11.0)
    placed = Placed({})
    seat, index = room.check_place("p0", 0, "c4", placed)
    assert (seat, index) == (0, 17)
    refused("stale_card", room.check_place, "p0", 1, "c4", placed)
    refused("illegal_move", room.check_place, "p0", 0, "z9", placed)
    refused("not_seated", room.check_place, "p9", 0, "a1", placed)
    placed = Placed({0: [17]})
    refused("already_placed", room.check_place, "p0", 0, "a1", placed)
    assert room.after_placing(placed, 11.0) is None  # the other seat has not placed
    placed = Placed({0: [17], 1: [0]})
    after = room.after_placing(placed, 12.0)
    assert after is not None and after.card == 1 and after.shown_at == 12.0
    refused("illegal_move", after.check_place, "p0", 1, "c4", placed)  # c4 is taken


def test_the_timer_and_away_seats() -> None:
    room = lobby(3, timer=15).start("p0", 100.0)
    assert room.deadline == 115.0
    placed = Placed({0: [0]})
    # A seat whose device never connected is reconnecting until its grace ends.
    assert room.due_at(placed, 100.0) == 115.0
    assert room.due(114.0, placed).hints == ()
    due = room.due(115.0, placed)
    assert due.hints == ((1, "timer"), (2, "timer")) and due.room is None
    here = room.connected("p1", 110.0)
    assert here is not None
    gone = here.disconnected("p1", 120.0)
    assert gone is not None and gone.seats[1].presence == RECONNECTING
    assert gone.seats[1].deadline == 180.0
    due = gone.due(181.0, placed)
    assert due.room is not None and due.room.seats[1].presence == AWAY
    assert (1, "away") in due.hints
    back = due.room.connected("p1", 110.0)
    assert back is not None and back.seats[1].presence == HERE
    left = room.leave("p2", 101.0)
    assert left is not None and left.seats[2].left
    assert left.due_at(placed, 101.0) == 101.0  # the hint places for it at once
    assert left.due(101.0, placed).hints == ((2, "away"),)
    refused("not_seated", left.check_place, "p2", 0, "a1", placed)


def test_no_timer_looks_once_after_each_card() -> None:
    room = lobby(2).start("p0", 100.0)
    for seat in room.seats:
        room = room.connected(seat.player, 100.0) or room
    assert room.due_at(Placed({}), 100.0) == 130.0
    assert room.due_at(Placed({}), 131.0) is None
    assert room.due(131.0, Placed({})).room is None


def play_out(room: Room) -> tuple[Room, Placed]:
    """Every seat fills its grid row by row."""
    cells: dict[int, list[int]] = {s.seat: [] for s in room.seats}
    for k in range(25):
        for s in room.seats:
            seat, index = room.check_place(s.player, k, f"{'abcde'[k % 5]}{k // 5 + 1}",
                                           Placed(cells))  # fmt: skip
            cells[seat].append(index)
        after = room.after_placing(Placed(cells), float(k))
        assert after is not None
        room = after
    return room, Placed(cells)


def test_the_end_the_ranking_and_the_rematch() -> None:
    room, placed = play_out(lobby(3).start("p0", 0.0))
    assert room.phase == OVER and room.card is None and not room.is_open
    ranked = ranking(room, placed)
    assert [p for p, _, _ in ranked] == [1, 1, 1]  # the same grid: the same place
    refused("wrong_phase", room.check_place, "p0", 0, "a1", placed)
    ready = room.rematch("p0", 1.0)
    assert ready.seats[0].ready and ready.deal == 1
    gone = ready.leave("p2", 2.0)
    assert gone is not None
    both = gone.rematch("p1", 3.0)
    assert both.deal == 2 and both.wants_deal(gone)
    dealt = both.new_deal(Fair.new(), 3.0)
    assert dealt.phase == PLAYING and dealt.card == 0 and [s.seat for s in dealt.seats] == [0, 1]
    assert not any(s.ready for s in dealt.seats)


def test_ties_share_a_place() -> None:
    room, _ = play_out(lobby(3).start("p0", 0.0))
    deck = [c for c in range(25)]
    placed = Placed({0: deck, 1: deck[::-1], 2: deck})
    places = {seat.seat: place for place, seat, _ in ranking(room, placed)}
    totals = {seat.seat: game.total for _, seat, game in ranking(room, placed)}
    assert places[0] == places[2]
    assert places[1] == (1 if totals[1] >= totals[0] else 3)


def test_saving_and_loading() -> None:
    room = lobby(4, timer=30).start("p0", 5.0)
    assert Room.from_dict(room.to_dict()) == room


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(2, 8),
    data=st.data(),
)
def test_every_grid_holds_the_cards_that_came_in_their_order(
    players: int, data: st.DataObject
) -> None:
    room = lobby(players, timer=15).start("p0", 0.0)
    cells: dict[int, list[int]] = {s.seat: [] for s in room.seats}
    now = 0.0
    for k in range(25):
        for s in room.seats:
            free = sorted(set(range(25)) - set(cells[s.seat]))
            if data.draw(st.booleans()):  # the player places
                target = data.draw(st.sampled_from(free))
                cell = f"{'abcde'[target % 5]}{target // 5 + 1}"
                seat, index = room.check_place(s.player, k, cell, Placed(cells))
                cells[seat].append(index)
        now = (room.deadline or now) + 1  # the timer runs out: the hint places for the rest
        due = room.due(now, Placed(cells))
        if due.hints and due.room is not None:
            room = due.room  # a seat that never connected is away once its grace is over
        for seat, reason in due.hints:
            assert reason in ("timer", "away")
            cells[seat].append(
                data.draw(st.sampled_from(sorted(set(range(25)) - set(cells[seat]))))
            )
        after = room.after_placing(Placed(cells), now)
        assert after is not None
        room = after
    assert room.phase == OVER
    cards = fair_deck(FAIR.seed)[:25]
    for s in room.seats:
        game = room.game(cells[s.seat])
        assert game.is_over
        assert [game.cells[c] for c in cells[s.seat]] == cards
        assert sorted(map(str, game.cells)) == sorted(map(str, cards))
