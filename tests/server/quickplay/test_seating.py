"""Seating from the stored queue (docs/quickplay.md), on SQLite and PostgreSQL: people asking
for 2, 3 and 4 players and "any" are seated together at one dealt quick table, with the names
they queued with; the fill with computers after the stored deadline (a moved clock); two apps
over one store seat two players exactly once; a player is in at most one queue and at one
unfinished quick table; the seated notice; and no answer carries a card."""

from __future__ import annotations

import threading
import time

import pytest
from starlette.testclient import TestClient

from cardtable.kings_corner.cpu import STRENGTHS
from cardtable.server import Settings
from cardtable.server.core.rude_words import ANYWHERE
from cardtable.server.online.public import table_key
from cardtable.server.quickplay.matching import Group
from cardtable.server.rating.public import computer_rating

from .conftest import Person, Site


def seated_together(people: list[Person]) -> str:
    tokens = {p.token() for p in people}
    assert len(tokens) == 1, tokens
    return tokens.pop()


def check_table(p: Person, token: str, names: list[str], computers: int = 0) -> dict:
    table = p.table(token)
    assert table["settings"]["quick"] is True
    assert table["phase"] == "play"  # dealt at once
    persons = [s["name"] for s in table["seats"] if s["kind"] == "person"]
    assert sorted(persons) == sorted(names)
    assert sum(s["kind"] == "computer" for s in table["seats"]) == computers
    assert len(table["seats"]) == len(names) + computers
    return dict(table)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_people_asking_for_a_size_sit_together(site: Site, size: int) -> None:
    people = [site.person() for _ in range(size)]
    names = [f"P{i}" for i in range(size)]
    for p, name in zip(people[:-1], names, strict=False):
        p.join(size, name)
    assert site.match() == 0  # one short: they wait
    waiting = people[0].status()
    assert waiting["state"] == "waiting" and waiting["players"] == size
    assert waiting["waiting"] == size - 1
    people[-1].join(size, names[-1])
    assert site.match() == 1
    token = seated_together(people)
    table = check_table(people[0], token, names)
    assert table["settings"]["rated"] is True  # separate addresses, first time together
    assert table["settings"]["players"] == size


def test_any_fits_every_size(site: Site) -> None:
    two, anyone = site.person(), site.person()
    two.join(2, "Two")
    anyone.join(None, "Any")
    assert site.match() == 1
    check_table(two, seated_together([two, anyone]), ["Two", "Any"])
    # Four of "any" at once: a table of four at once.
    four = [site.person() for _ in range(4)]
    for i, p in enumerate(four):
        p.join(None, f"A{i}")
    assert site.match() == 1
    check_table(four[0], seated_together(four), [f"A{i}" for i in range(4)])


def test_two_of_any_wait_a_moment_for_a_bigger_table(site: Site) -> None:
    a, b, c = site.person(), site.person(), site.person()
    a.join(None, "A")
    b.join(None, "B")
    assert site.match() == 0
    site.now += 2
    c.join(None, "C")
    site.now += 3  # the first has waited 5 s: a full three will do
    assert site.match() == 1
    check_table(a, seated_together([a, b, c]), ["A", "B", "C"])


def test_empty_seats_go_to_computers_at_the_stored_deadline(site: Site) -> None:
    a, b = site.person(), site.person()
    a.join(4, "Ann")
    site.now += 5
    b.join(4, "Bea")
    fill = site.quick().settings.fill_seconds
    site.now += fill - 5 - 0.5
    assert site.match() == 0
    status = a.status()
    assert status["state"] == "waiting" and status["waiting"] == 2
    site.now += 0.5  # Ann has waited the fill time
    assert site.match() == 1
    token = seated_together([a, b])
    table = check_table(a, token, ["Ann", "Bea"], computers=2)
    strengths = {s["strength"] for s in table["seats"] if s["kind"] == "computer"}
    # New players are rated alike: the strength nearest a new player's rating.
    nearest = min(STRENGTHS, key=lambda st: abs(computer_rating(st) - 1500.0))
    assert strengths == {nearest}


def test_a_lone_player_of_any_gets_the_smallest_table(site: Site) -> None:
    a = site.person()
    a.join(None, "Solo")
    site.now += site.quick().settings.fill_seconds
    assert site.match() == 1
    check_table(a, a.token(), ["Solo"], computers=1)


def test_ratings_far_apart_wait_until_the_gap_has_widened(site: Site) -> None:
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    b.join(2, "Bea")
    quick = site.quick()
    store = quick.store
    # Bea's snapshot 500 points above Ann's: apart until the gap reaches 500.
    with store.sql.transaction() as tx:
        store._exec(tx, "UPDATE quick_queue SET rating = rating + 500 WHERE name = ?", ("Bea",))
    assert site.match() == 0
    s = quick.settings
    site.now += (500 - s.gap_points) / s.gap_per_second - 0.5
    assert site.match() == 0
    site.now += 0.5
    assert site.match() == 1
    seated_together([a, b])


def race(site: Site) -> list[int]:
    """A matcher round of each app at the same moment: how many tables each made."""
    barrier = threading.Barrier(2)
    made = [0, 0]

    def run(i: int) -> None:
        barrier.wait()
        made[i] = site.match(app=i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return made


def test_two_apps_over_one_store_seat_two_players_once(database: Settings) -> None:
    site = Site(database, apps=2)
    try:
        for _ in range(3):
            a, b = site.person(app=0), site.person(app=1)
            a.join(2, "Ann")
            b.join(2, "Bea")
            made = race(site)
            assert sum(made) == 1, made
            token = seated_together([a, b])
            store = site.quick().store
            assert a.table(token)["settings"]["quick"] is True
            assert len(store.sat(table_key(token))) == 2
        tables = store._rows("SELECT COUNT(*) FROM online_tables")[0][0]
        assert tables == 3
    finally:
        site.close()


def test_one_queue_and_one_unfinished_table_per_player(site: Site) -> None:
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    err = a.join(3, "Ann", status=409)
    assert err["code"] == "already_queued"
    b.join(2, "Bea")
    site.match()
    token = seated_together([a, b])
    err = a.join(2, "Ann", status=409)
    assert err["code"] == "already_seated" and err["token"] == token
    a.leave_table(token)
    a.join(2, "Ann")  # left that table: free to queue again
    assert a.status()["state"] == "waiting"
    err = b.join(2, "Bea", status=409)
    assert err["code"] == "already_seated"


def test_leaving_is_idempotent_and_the_seated_notice_ends(site: Site) -> None:
    a, b = site.person(), site.person()
    a.leave()
    assert a.status() == {"state": "idle"}
    a.join(2, "Ann")
    a.leave()
    a.leave()
    assert a.status() == {"state": "idle"}
    a.join(2, "Ann")
    b.join(2, "Bea")
    site.match()
    seated_together([a, b])
    site.now += site.quick().settings.seated_seconds + 1
    assert a.status() == {"state": "idle"}


def test_waiting_answer(site: Site) -> None:
    a = site.person()
    w = a.join(None, "Ann", preset="simple")
    assert w["state"] == "waiting" and w["players"] is None and w["preset"] == "simple"
    assert w["waiting"] == 1
    assert w["since"].endswith("Z") and w["fill_at"].endswith("Z")
    assert a.status() == w


def test_names_are_checked(site: Site) -> None:
    a = site.person()
    rude = ANYWHERE[0]
    for name in ["   ", "x" * 30, "a\u0007b", rude, f"Big {rude.upper()} 7"]:
        err = a.join(2, name, status=422)
        assert err["code"] == "name_refused" and err["message"]
    assert a.status() == {"state": "idle"}


def test_no_answer_carries_a_card(site: Site) -> None:
    people = [site.person() for _ in range(3)]
    for p in people:
        p.join(3, "Kim")
    site.match()
    token = seated_together(people)
    for p in people:
        p.status()
    assert site.answers >= 9  # every one scanned by Person.call
    assert token


def test_the_seated_notice_ends_when_the_table_is_opened(site: Site) -> None:
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    b.join(2, "Bea")
    site.match()
    token = seated_together([a, b])
    # Ann's page opens the table: its live channel's hello connects her seat (live.py).
    online = site.apps[0].state.online
    key = table_key(token)
    player = next(s.player for s in site.quick().store.sat(key) if s.name == "Ann")
    online.change(key, lambda room: room.connected(player, site.now))
    assert a.status() == {"state": "idle"}
    assert b.status() == {"state": "seated", "token": token}


def test_the_running_matcher_seats_a_join_without_being_asked(site: Site) -> None:
    """The app's own matcher (started with it, woken by the join) seats them."""
    app = site.apps[0]
    quick = site.quick()
    quick.clock = time.time  # the background rounds read the real clock
    made = threading.Event()
    seat = quick.matcher.seat

    def seated(group: Group, now: float) -> bool:
        won = seat(group, now)
        made.set()
        return won

    quick.matcher.seat = seated  # type: ignore[method-assign]
    with TestClient(app):
        a, b = site.person(), site.person()
        a.join(2, "Ann")
        b.join(2, "Bea")
        assert made.wait(30), "never seated"
        seated_together([a, b])
    assert quick.matcher.made == 1
