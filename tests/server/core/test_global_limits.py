"""Guessing limits that hold together (issue 27): one ceiling for the whole site, kept in the
store, for room-code lookups and transfer-code claims, shared by every server process (two
apps over one data dir here, as two processes); and client addresses keyed by network for
every per-address limit: an IPv6 client by its /64, an IPv4-mapped IPv6 address as the IPv4
address it carries (`client_key`).

A test app reads its client's address from an ``X-Test-Client`` header (`as_client`), so one
test client can stand for many addresses."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.ratelimit import client_key
from cardtable.server.devices import service as devices
from cardtable.server.online import codes
from tests.server.helpers import Clock

T0 = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)
BASE = "/api/kings-corner/online"


def as_client(app: ASGIApp) -> ASGIApp:
    """``app`` with the client address taken from the ``X-Test-Client`` header (when sent)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            for name, value in scope["headers"]:
                if name == b"x-test-client":
                    scope = {**scope, "client": (value.decode(), 40000)}
        await app(scope, receive, send)

    return wrapped


@contextmanager
def servers(settings: Settings, count: int = 2) -> Iterator[list[tuple[FastAPI, TestClient]]]:
    """``count`` apps over the same store (as that many server processes), each with its
    client and the same injected devices clock (at T0)."""
    clock = Clock(T0)
    with ExitStack() as stack:
        out = []
        for _ in range(count):
            app = create_app(settings)
            app.state.devices_clock = clock
            out.append((app, stack.enter_context(TestClient(as_client(app)))))
        yield out


def base_settings(tmp_path: Path, **options: Any) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=None, hint_budget=0, search_processes=0,
        **options,
    )  # fmt: skip


def claim(client: TestClient, address: str, code: str = "2345-6789") -> Any:
    return client.post(
        "/api/devices/claim", json={"code": code}, headers={"X-Test-Client": address}
    )


def random_code(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


# -- client_key ------------------------------------------------------------------------------
def test_client_key_groups_an_ipv6_64_and_unwraps_ipv4_mapped_addresses() -> None:
    assert client_key("192.0.2.7") == "192.0.2.7/32"
    assert client_key("192.0.2.8") == "192.0.2.8/32"
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7/32"
    assert client_key("::FFFF:c000:0207") == "192.0.2.7/32"
    one = client_key("2001:db8:1:2::1")
    assert one == "2001:db8:1:2::/64"
    # Any address of the /64, in any spelling, is the same client...
    for same in (
        "2001:db8:1:2:ffff:ffff:ffff:ffff",
        "2001:0DB8:0001:0002:0000:0000:0000:abcd",
        "2001:db8:1:2:a:b:c:d",
    ):
        assert client_key(same) == one
    # ... and the next /64 (or another site) is another one.
    assert client_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert client_key("2001:db8:1:1:ffff:ffff:ffff:ffff") == "2001:db8:1:1::/64"
    assert client_key("fe80::1%eth0") == client_key("fe80::2") == "fe80::/64"
    assert client_key("::1") == "::/64"
    assert client_key("testclient") == "testclient"
    assert client_key("unknown") == "unknown"
    assert client_key("999.1.1.1") == "999.1.1.1"


# -- per-address limits by /64 ------------------------------------------------------------------
def test_one_ipv6_64_shares_each_per_address_limit(tmp_path: Path) -> None:
    """Claims and restores (stored), signups and room-code lookups (in-process): every
    address of one /64 takes from one bucket, another /64 has its own, and an IPv4-mapped
    address is its IPv4 address."""
    settings = base_settings(
        tmp_path, claim_burst=3, signup_burst=2,
        online=OnlineSettings(lookup_rate=0.001, lookup_burst=2),
    )  # fmt: skip
    with servers(settings, count=1) as [(_, client)]:
        # Claims: 3 guesses from one address of the /64, the 4th from another one of it.
        assert [claim(client, "2001:db8:1:2::1").status_code for _ in range(3)] == [404] * 3
        refused = claim(client, "2001:db8:1:2:8a3f:ff:fe12:3456")
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) == 6  # 10 a minute: a guess back in 6 s
        r = client.post(
            "/api/devices/restore", json={"recovery_key": "k" * 43},
            headers={"X-Test-Client": "2001:db8:1:2:ffff:ffff:ffff:ffff"},
        )  # fmt: skip
        assert r.status_code == 429  # restores share the claims' bucket
        assert claim(client, "2001:db8:1:3::1").status_code == 404  # the next /64
        assert claim(client, "2001:db8:1:1:ffff:ffff:ffff:ffff").status_code == 404
        # IPv4 and IPv4-mapped IPv6: one client.
        assert [claim(client, "198.51.100.9").status_code for _ in range(3)] == [404] * 3
        assert claim(client, "::ffff:198.51.100.9").status_code == 429
        assert claim(client, "198.51.100.10").status_code == 404

        # Signups: a burst of 2 per client.
        def signup(address: str) -> int:
            r = client.post("/api/players", headers={"X-Test-Client": address})
            return r.status_code

        assert [signup("2001:db8:5:6::1"), signup("2001:db8:5:6::2")] == [201, 201]
        assert signup("2001:db8:5:6:1:2:3:4") == 429
        assert signup("2001:db8:5:7::1") == 201
        assert [signup("::ffff:203.0.113.5"), signup("203.0.113.5")] == [201, 201]
        assert signup("203.0.113.5") == 429

        # Room-code lookups: a burst of 2 per client.
        player = client.post("/api/players", headers={"X-Test-Client": "192.0.2.1"}).json()
        headers = {"X-Player-Id": player["player_id"]}

        def lookup(address: str) -> int:
            code = random_code(codes.CODE_ALPHABET, codes.CODE_LENGTH)
            r = client.get(f"{BASE}/codes/{code}", headers={**headers, "X-Test-Client": address})
            return r.status_code

        assert [lookup("2001:db8:9:9::1"), lookup("2001:db8:9:9::2")] == [404, 404]
        assert lookup("2001:db8:9:9:abcd::1") == 429
        assert lookup("2001:db8:9:a::1") == 404


# -- the site-wide ceilings -------------------------------------------------------------------
def test_two_processes_share_the_site_wide_claim_ceiling(tmp_path: Path) -> None:
    """Claims from ever new addresses (so no per-address limit bites) through two apps over
    one store: together they get the burst of 4, then 429 with Retry-After from both; one
    claim comes back per 1 / rate seconds on the shared clock. A malformed code costs the
    ceiling nothing, and a real claim waits for the ceiling like a guess."""
    settings = base_settings(tmp_path, site_claim_rate=0.01, site_claim_burst=4)
    with servers(settings) as [(first, a), (_, b)]:
        clients = [a, b]
        answers = [claim(clients[i % 2], f"198.51.100.{i}").status_code for i in range(4)]
        assert answers == [404] * 4
        for i, client in enumerate(clients):
            r = claim(client, f"203.0.113.{i}")
            assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
            assert r.headers["Retry-After"] == "100"  # 1 / 0.01 s
            assert claim(client, f"203.0.113.{10 + i}", code="x").status_code == 404
        # A real code (made by a player) is refused too while the ceiling is spent.
        player = a.post("/api/players", headers={"X-Test-Client": "192.0.2.50"}).json()
        made = b.post("/api/devices/transfer", headers={"X-Player-Id": player["player_id"]})
        assert made.status_code == 201, made.text
        assert claim(a, "192.0.2.51", made.json()["code"]).status_code == 429
        first.state.devices_clock.at += timedelta(seconds=100)  # one token back, for both
        taken = claim(b, "192.0.2.52", made.json()["code"])
        assert taken.status_code == 201 and taken.json()["player_id"], taken.text
        assert claim(a, "192.0.2.53").status_code == 429


def test_concurrent_claims_through_two_processes_never_pass_the_ceiling(tmp_path: Path) -> None:
    """40 claims at once from 40 addresses, 8 threads over two apps on one SQLite store:
    exactly the burst of 10 are answered (404), the other 30 are refused (429)."""
    settings = base_settings(tmp_path, site_claim_rate=0.001, site_claim_burst=10)
    with servers(settings) as [(_, a), (_, b)]:
        statuses: list[int] = []
        lock = threading.Lock()
        start = threading.Barrier(8, timeout=10)

        def worker(w: int) -> None:
            start.wait()
            for i in range(5):
                status = claim((a, b)[w % 2], f"2001:db8:{w}:{i}::1").status_code
                with lock:
                    statuses.append(status)

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads)
        assert sorted(statuses) == [404] * 10 + [429] * 30


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_two_processes_share_the_site_wide_lookup_ceiling(tmp_path: Path) -> None:
    """Room-code lookups of different codes from different addresses through two apps over
    one store share one burst of 6; beyond it even a real code is refused (429, Retry-After),
    while the table's invite link keeps working."""
    settings = base_settings(tmp_path, site_lookup_rate=1 / 3600, site_lookup_burst=6)
    with servers(settings) as [(_, a), (_, b)]:
        player = a.post("/api/players", headers={"X-Test-Client": "192.0.2.1"}).json()
        headers = {"X-Player-Id": player["player_id"]}
        body = {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}]}
        made = a.post(BASE, json=body, headers=headers)
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]

        def lookup(client: TestClient, address: str, wanted: str) -> Any:
            return client.get(
                f"{BASE}/codes/{wanted}", headers={**headers, "X-Test-Client": address}
            )

        found = lookup(b, "2001:db8::1", code)
        assert found.status_code == 200 and found.json() == {"token": token}
        for i in range(5):
            wrong = random_code(codes.CODE_ALPHABET, codes.CODE_LENGTH)
            assert lookup((a, b)[i % 2], f"2001:db8:{i + 1}::1", wrong).status_code == 404
        for i, client in enumerate((a, b)):
            r = lookup(client, f"198.51.100.{i}", code)
            assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
            assert r.headers["Retry-After"] == "3600"
        assert lookup(a, "198.51.100.9", "not a code").status_code == 404  # costs nothing
        invite = b.get(f"{BASE}/{token}", headers=headers)
        assert invite.status_code == 200 and invite.json()["code"] == code


# -- the arithmetic behind the defaults -------------------------------------------------------
def test_the_default_ceilings_make_guessing_a_chosen_code_hopeless() -> None:
    """With the default ceilings, the guesses the whole site answers in one code's lifetime
    (the burst plus the rate times the lifetime) cover under 1e-9 of the transfer codes and
    1e-4 of the room codes; a real site's use (3,600 claims and 3,600 lookups an hour) stays
    under them (docs/devices.md, "Limits"; docs/online.md, "Abuse limits")."""
    s = Settings()
    assert devices.CODE_SPACE == 31**8 == 852_891_037_441
    assert codes.CODE_SPACE == 31**6 == 887_503_681
    assert s.site_claim_rate is not None and s.site_lookup_rate is not None
    claims_in_a_life = s.site_claim_burst + s.site_claim_rate * devices.CODE_SECONDS
    assert claims_in_a_life == 660
    assert claims_in_a_life / devices.CODE_SPACE < 1e-9  # 7.7e-10
    lookups_in_a_life = s.site_lookup_burst + s.site_lookup_rate * s.online.code_hours * 3600
    assert lookups_in_a_life == 86_460
    assert lookups_in_a_life / codes.CODE_SPACE < 1e-4  # 9.7e-5
    # Expected guesses to find one chosen code: half the codes; at the ceiling, in years.
    year = 365.25 * 86400
    assert devices.CODE_SPACE / 2 / s.site_claim_rate / year > 13_000
    assert codes.CODE_SPACE / 2 / s.site_lookup_rate / year > 14
    assert s.site_claim_rate * 3600 >= 3600 and s.site_lookup_rate * 3600 >= 3600
