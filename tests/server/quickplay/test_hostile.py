"""Hostile clients (docs/quickplay.md, "Hostile clients"), on SQLite and PostgreSQL: joining
and leaving in a loop starts a cool-down (stored, so every process sees it; the join rate:
test_join_rate.py); many records from one address wait at most `per_address` at once; a
table whose persons share an address, or two persons seated together too often in a day,
is not rated (and is still played)."""

from __future__ import annotations

from .conftest import Site


def test_joining_and_leaving_in_a_loop_cools_down(site: Site) -> None:
    s = site.quick().settings
    a = site.person()
    for _ in range(s.leave_burst):
        a.join(2, "Ann")
        a.leave()
    a.join(2, "Ann")
    a.leave()  # one leave too many in a row: a cool-down starts
    err = a.join(2, "Ann", status=429)
    assert err["code"] == "rate_limited"
    site.now += s.cooldown_seconds - 1
    a.join(2, "Ann", status=429)
    site.now += 1
    a.join(2, "Ann")


def test_one_address_has_at_most_n_waiting(site: Site) -> None:
    n = site.quick().settings.per_address
    home = [site.person(address="192.0.2.7") for _ in range(n + 1)]
    for p in home[:n]:
        p.join(4, "Kim")
    err = home[n].join(4, "Kim", status=429)
    assert err["code"] == "rate_limited"
    home[0].leave()
    home[n].join(4, "Kim")


def test_a_shared_address_is_not_rated(site: Site) -> None:
    a, b = site.person(address="198.51.100.1"), site.person(address="198.51.100.1")
    a.join(2, "Ann")
    b.join(2, "Bea")
    assert site.match() == 1
    token = a.token()
    assert b.token() == token
    table = a.table(token)
    assert table["settings"]["rated"] is False
    assert table["phase"] == "play"  # still played


def test_the_same_two_seated_too_often_are_not_rated(site: Site) -> None:
    a, b = site.person(), site.person()
    most = site.quick().settings.repeat_pairs
    rated = []
    token = None
    for _ in range(most + 2):
        if token is not None:
            a.leave_table(token)
            b.leave_table(token)
        a.join(2, "Ann")
        b.join(2, "Bea")
        assert site.match() == 1
        token = a.token()
        rated.append(a.table(token)["settings"]["rated"])
        site.now += 60
    assert rated == [True] * most + [False, False]
    site.now += 86400  # a day later: rated again
    a.leave_table(token)
    b.leave_table(token)
    a.join(2, "Ann")
    b.join(2, "Bea")
    site.match()
    assert a.table(a.token())["settings"]["rated"] is True
