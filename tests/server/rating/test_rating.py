"""Ratings of rated matches (docs/rating.md) on both stores: a scripted series of matches
gives exactly the library's own figures; a person who left is rated last, also once a
computer has their seat, and so is one whose page was gone when the match ended; a match is
rated once however many saves or processes see its end; an unrated table changes nothing."""

from __future__ import annotations

import threading

from fastapi import FastAPI
from openskill.models import PlackettLuceRating

from cardtable.server import create_app
from cardtable.server.rating.computers import COMPUTERS
from cardtable.server.rating.public import computer_rating, rating_for_matching
from cardtable.server.rating.rate import Rater
from cardtable.server.rating.scale import points
from cardtable.server.rating.store import RatingStore

from .helpers import LIBRARY, Config, Table, away, computer, end, finish, leave, person

SCRIPT = [
    # (seats, penalty totals): lower totals finish higher, equal ones tie.
    (("ann", "bob"), (3, 12)),
    (("ann", "bob", "carl"), (20, 4, 9)),
    (("bob", "strong", "carl", "ann"), (0, 5, 5, 31)),
    (("carl", "easy"), (2, 8)),
    (("ann", "normal", "bob"), (7, 7, 15)),
    (("dora", "carl", "ann", "bob"), (11, 0, 6, 6)),
]


def library_series() -> dict[str, PlackettLuceRating]:
    """The script rated by the library itself, computers at their fixed ratings."""
    ratings: dict[str, PlackettLuceRating] = {}
    for names, totals in SCRIPT:
        teams = [
            [LIBRARY.rating(*COMPUTERS[n])] if n in COMPUTERS
            else [ratings.setdefault(n, LIBRARY.rating())]
            for n in names
        ]  # fmt: skip
        after = LIBRARY.rate(teams, ranks=[float(t) for t in totals])
        for n, team in zip(names, after, strict=True):
            if n not in COMPUTERS:
                ratings[n] = team[0]
    return ratings


def test_a_scripted_series_equals_the_library(rater: Rater, app: FastAPI) -> None:
    for i, (names, totals) in enumerate(SCRIPT):
        seats = tuple(computer(n) if n in COMPUTERS else person(n) for n in names)
        finish(rater, f"table-{i}", seats, totals)
    stored = RatingStore(app.state.runtime.store).ratings(["ann", "bob", "carl", "dora"])
    expected = library_series()
    assert set(stored) == set(expected)
    for name, want in expected.items():
        assert stored[name].mu == want.mu and stored[name].sigma == want.sigma, name
    assert {n: r.matches for n, r in stored.items()} == {"ann": 5, "bob": 5, "carl": 4, "dora": 1}
    # The queue's scale: points of mu; a new player 1500; computers at theirs.
    matching = rating_for_matching(app.state.runtime.store, ["ann", "zed"])
    assert matching == {"ann": points(expected["ann"].mu), "zed": 1500.0}
    assert computer_rating("easy") < computer_rating("normal") < computer_rating("strong")


def test_a_leaver_counts_last_even_once_a_computer_has_their_seat(
    rater: Rater, app: FastAPI
) -> None:
    store = RatingStore(app.state.runtime.store)
    # Ann leaves with the best total; her seat goes on with the stand-in and ends first.
    table = Table((person("ann"), person("bob"), person("carl")), (0, 0, 0))
    table = leave(rater, "t1", table, 0)
    end(rater, "t1", table, (1, 9, 4))
    # Erin closed her page: the stand-in finished first for her, she counts last.
    finish(rater, "t3", (away("erin"), person("fay")), (0, 12))
    # Dora's seat is given to a computer after she left; that computer is not rated.
    table = Table((person("dora"), person("bob")), (0, 0))
    table = leave(rater, "t2", table, 0, to_computer=True)
    end(rater, "t2", table, (0, 30))
    one = LIBRARY.rate(
        [[LIBRARY.rating()], [LIBRARY.rating()], [LIBRARY.rating()]], ranks=[10.0, 9.0, 4.0]
    )
    bob = one[1][0]
    two = LIBRARY.rate([[LIBRARY.rating()], [bob]], ranks=[31.0, 30.0])
    got = store.ratings(["ann", "bob", "carl", "dora"])
    assert (got["ann"].mu, got["ann"].sigma) == (one[0][0].mu, one[0][0].sigma)
    assert (got["carl"].mu, got["carl"].sigma) == (one[2][0].mu, one[2][0].sigma)
    assert (got["dora"].mu, got["dora"].sigma) == (two[0][0].mu, two[0][0].sigma)
    assert (got["bob"].mu, got["bob"].sigma) == (two[1][0].mu, two[1][0].sigma)
    three = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[13.0, 12.0])
    erin = store.ratings(["erin"])["erin"]
    assert (erin.mu, erin.sigma) == (three[0][0].mu, three[0][0].sigma)
    places = [(p.place, p.players) for p in store.history("ann")]
    assert places == [(3, 3)]
    assert [(p.place, p.players) for p in store.history("dora")] == [(2, 2)]


def test_an_unrated_table_changes_nothing(rater: Rater, app: FastAPI) -> None:
    finish(rater, "t", (person("ann"), person("bob")), (0, 10), rated=False)
    table = Table((person("ann"), person("bob")), (0, 0), Config(rated=False))
    table = leave(rater, "u", table, 1)
    end(rater, "u", table, (0, 10))
    store = app.state.runtime.store
    with store.reading() as tx:
        for name in ("ratings", "rating_history", "rated_matches", "rating_leavers"):
            tx.execute(f"SELECT COUNT(*) FROM {name}")
            assert tx.fetchone()[0] == 0, name


def test_a_match_is_rated_once_by_two_processes(rater: Rater, app: FastAPI) -> None:
    """Two apps over one store (two processes) both see the same match end, at once and
    again later: one rating."""
    second = create_app(app.state.runtime.settings)
    raters: list[Rater] = [rater, second.state.rater]
    gate = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(r: Rater) -> None:
        try:
            gate.wait(10)
            finish(r, "shared", (person("ann"), person("bob")), (2, 8))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(r,)) for r in raters]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    finish(rater, "shared", (person("ann"), person("bob")), (2, 8))
    second.state.runtime.close()
    assert not errors
    got = RatingStore(app.state.runtime.store).ratings(["ann", "bob"])
    after = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[2.0, 8.0])
    assert got["ann"].matches == 1 and got["ann"].mu == after[0][0].mu
    assert len(RatingStore(app.state.runtime.store).history("bob")) == 1
    # The table's next match is a new one, rated too.
    finish(rater, "shared", (person("ann"), person("bob")), (8, 2), matches=2)
    assert RatingStore(app.state.runtime.store).ratings(["ann"])["ann"].matches == 2
