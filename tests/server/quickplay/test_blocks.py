"""Blocks (docs/quickplay.md, "Blocks"), on SQLite and PostgreSQL: a person who sat at a quick
table blocks another person of it; the queue never seats the pair together again, whoever
blocked whom, in 50 tries with a moved clock (each of them gets a computer instead); the
list is the player's own and undoing a block lets them meet again."""

from __future__ import annotations

import pytest

from .conftest import QP, Person, Site


def first_table(site: Site) -> tuple[Person, Person, str]:
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    b.join(2, "Bea")
    assert site.match() == 1
    token = a.token()
    assert b.token() == token
    return a, b, token


def seat_of(p: Person, token: str, name: str) -> int:
    seats = p.table(token)["seats"]
    return next(i for i, s in enumerate(seats) if s["name"] == name)


@pytest.mark.parametrize("blocker", ["first", "second"])
def test_a_blocked_pair_is_never_seated_together(site: Site, blocker: str) -> None:
    a, b, token = first_table(site)
    who, whom = (a, "Bea") if blocker == "first" else (b, "Ann")
    made = who.call("POST", f"{QP}/blocks", {"token": token, "seat": seat_of(who, token, whom)},
                    status=201)  # fmt: skip
    assert made["name"] == whom
    last = {"a": token, "b": token}
    tables = {token}
    fill = site.quick().settings.fill_seconds
    for _ in range(50):
        a.leave_table(last["a"])
        b.leave_table(last["b"])
        a.join(2, "Ann")
        b.join(2, "Bea")
        assert site.match() == 0  # they fit in every way but the block
        site.now += fill
        assert site.match() == 2  # each with a computer
        last = {"a": a.token(), "b": b.token()}
        assert last["a"] != last["b"]
        tables |= set(last.values())
        site.now += fill  # the join rate's tokens come back with the clock
    assert len(tables) == 101


def test_blocks_list_and_undo(site: Site) -> None:
    a, b, token = first_table(site)
    seat = seat_of(a, token, "Bea")
    made = a.call("POST", f"{QP}/blocks", {"token": token, "seat": seat}, status=201)
    again = a.call("POST", f"{QP}/blocks", {"token": token, "seat": seat}, status=201)
    assert again["id"] == made["id"]  # one block per pair
    listed = a.call("GET", f"{QP}/blocks")["blocks"]
    assert listed == [made]
    assert b.call("GET", f"{QP}/blocks")["blocks"] == []  # the list is the player's own
    b.call("DELETE", f"{QP}/blocks/{made['id']}", status=204)  # not b's: nothing happens
    assert len(a.call("GET", f"{QP}/blocks")["blocks"]) == 1
    a.call("DELETE", f"{QP}/blocks/{made['id']}", status=204)
    a.call("DELETE", f"{QP}/blocks/{made['id']}", status=204)
    assert a.call("GET", f"{QP}/blocks")["blocks"] == []
    # Undone: they meet again.
    a.leave_table(token)
    b.leave_table(token)
    a.join(2, "Ann")
    b.join(2, "Bea")
    assert site.match() == 1
    assert a.token() == b.token()


def test_only_someone_of_the_table_may_block(site: Site) -> None:
    a, _, token = first_table(site)
    stranger = site.person()
    err = stranger.call("POST", f"{QP}/blocks", {"token": token, "seat": 0}, status=404)
    assert err["code"] == "not_found"
    own = seat_of(a, token, "Ann")
    err = a.call("POST", f"{QP}/blocks", {"token": token, "seat": own}, status=422)
    assert err["code"] == "invalid_request"
    a.call("POST", f"{QP}/blocks", {"token": token, "seat": 3}, status=422)
    a.call("POST", f"{QP}/blocks", {"token": "x" * 24, "seat": 1}, status=404)


def test_a_computer_seat_cannot_be_blocked(site: Site) -> None:
    a = site.person()
    a.join(2, "Ann")
    site.now += site.quick().settings.fill_seconds
    site.match()
    token = a.token()
    computer = next(i for i, s in enumerate(a.table(token)["seats"]) if s["kind"] == "computer")
    a.call("POST", f"{QP}/blocks", {"token": token, "seat": computer}, status=422)


def test_deleting_the_record_takes_its_queue_row_and_blocks(site: Site) -> None:
    a, _, token = first_table(site)
    a.call("POST", f"{QP}/blocks", {"token": token, "seat": seat_of(a, token, "Bea")}, status=201)
    a.leave_table(token)
    a.join(2, "Ann")
    store = site.quick().store
    assert store._rows("SELECT COUNT(*) FROM quick_blocks")[0][0] == 1
    a.call("DELETE", "/api/stats/data", status=204)
    assert store._rows("SELECT COUNT(*) FROM quick_queue WHERE table_id IS NULL")[0][0] == 0
    assert store._rows("SELECT COUNT(*) FROM quick_blocks")[0][0] == 0
