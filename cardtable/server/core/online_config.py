"""The online tables' limits and timings (part of `cardtable.server.Settings`; docs/online.md).

Rates are per second and per server process (`TokenBuckets`); None turns a limit off."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class OnlineSettings:
    grace_seconds: float = 60.0
    """How long a dropped person's seat waits before a computer plays it."""
    computer_step_seconds: float = 0.7
    """The pause before each computer move at an online table (others watch it happen)."""
    max_spectators: int = 20
    """Live connections without a seat, per table."""
    turn_timers: tuple[float, ...] = (30, 60, 120)
    """The turn-timer lengths a host may choose (seconds; or none)."""
    turn_paces: tuple[float, ...] = (43200, 86400, 259200)
    """The turn lengths of a turn-based table (12 hours, a day, three days)."""
    code_hours: float = 24.0
    """How long a room code leads to its table (it also ends with the match)."""
    lookup_rate: float | None = 0.2
    """Room-code lookups per second from one client address, sustained."""
    lookup_burst: int = 10
    lookups_rate: float | None = 5.0
    """Room-code lookups per second for the whole process, sustained: what bounds a guesser
    with many addresses (docs/online.md "Abuse limits")."""
    lookups_burst: int = 50
    join_rate: float | None = 0.2
    """Joins per second from one client address, sustained."""
    join_burst: int = 10
    table_rate: float | None = 1.0
    """Code lookups and joins per second aimed at one table (or code), sustained."""
    table_burst: int = 20
    qr_rate: float | None = 1.0
    """QR drawings per second per client address (an `<img>` request: no player id)."""
    qr_burst: int = 20
    hello_seconds: float = 10.0
    """How long a new live connection has to say hello."""
    live_max_bytes: int = 4096
    """The largest live message (one WebSocket frame) the server reads. uvicorn checks a
    frame's length in its header, before the body is read: a longer one closes the
    connection with 1009 (docs/online.md "Live channel limits"). Every real message is well
    under 200 bytes."""
    max_live: int | None = None
    """Live connections this process keeps open (None: half of the connection limit,
    `serving.connection_budgets`; HTTP keeps the other half, so live sockets never lock out
    requests). At the limit a new connection closes the oldest one of the client address that
    has the most."""
    live_per_address: int = 64
    """Live connections from one client address (an IPv6 client by its /64) in this process;
    a new one beyond it closes that address's oldest one (1013). Generous: a school or a
    carrier's NAT puts many people behind one address."""
    live_per_device: int = 8
    """Live connections of one player id in this process (every table together); a new one
    beyond it closes the device's oldest one (4429): a device reconnecting is never locked
    out by its own half-open sockets, and one id cannot pile up connections."""
    live_per_table: int = 40
    """Live connections to one table in this process, after their hello. Beyond it a
    spectator is refused (4409); a device holding a seat there is let in and the table's
    oldest spectator connection is closed instead."""
    hello_per_address: int = 16
    """Connections from one client address still waiting for their hello; a new one beyond
    it closes that address's oldest waiting one (4408)."""
    live_handshake_rate: float | None = 1.0
    """Live-channel handshakes (WebSocket upgrades) per second from one client address (an
    IPv6 client by its /64) in this process, sustained, after `live_handshake_burst`; beyond
    it the upgrade is answered HTTP 429 with ``Retry-After`` before anything else is done
    (core/serving.py; None: no limit). A page opens one socket and reconnects after 0.5 s
    doubling to 10 s, so a person with a few tabs, or a phone that keeps dropping its
    connection, stays far below it; what it stops is a client whose sockets the caps above
    evict reconnecting in a loop (each handshake, hello and first push costs the server CPU:
    docs/online-limits.md)."""
    live_handshake_burst: int = 20
    """Handshakes one client address may make at once before `live_handshake_rate` applies
    (a household or a classroom behind one address opening their tables together)."""
    live_message_rate: float | None = 2.0
    """Messages per second one live connection may send, sustained, after
    `live_message_burst` (None: no limit); past it the connection is closed with 1008
    ``too many messages`` (counted in ``cardtable_live_closed_total``). A page sends its hello
    and then a ping every 20 s: a hundredth of this."""
    live_message_burst: int = 8
    hello_total: int = 256
    """Connections of this process still waiting for their hello; a new one beyond it closes
    the oldest waiting one (4408). A real page says hello as soon as the socket opens."""
    live_origins: tuple[str, ...] = ()
    """Origins (``https://example.org``) allowed to open the live channel besides the site's
    own (the ``Host`` the request came to). A browser's request from any other origin is
    refused with HTTP 403 before the upgrade; a request with no ``Origin`` (not a browser)
    is let in."""
    presence_refresh_seconds: float = 10.0
    """How often a process marks its live connections as still open."""
    presence_stale_seconds: float = 30.0
    """A presence row older than this counts as gone (its process stopped)."""
    poll_seconds: float = 2.0
    """The fallback poll: how often watched tables' versions are read from the store."""
    driver_idle_seconds: float = 1.0
    """The driver looks for due tables at least this often (other processes' deadlines, and
    deadlines left by a process that stopped)."""
    computer_steps_rate: float | None = 100.0
    """Table advances (nearly all computer steps) one process's driver makes per second,
    sustained, over all tables (None: no cap); a table beyond it waits for its turn, the
    longest-waiting first (docs/abuse.md, "Admission of expensive work"). A step costs the
    server its store write, render and pushes; the cap keeps them to about a quarter of a
    core (the cost per step and its command: docs/online-limits.md)."""
    computer_steps_burst: int = 50
    create_rate: float | None = 1 / 30
    """Tables one client address may create per second, sustained, after `create_burst`
    (an IPv6 client by its /64; None: no limit): with `max_open_tables` per player alone,
    an address that makes many player ids could open tables without end."""
    create_burst: int = 30
    """Tables one client address may create at once (a classroom behind one address)."""
    max_open_tables: int | None = 10
    """Unfinished tables (in the lobby or playing) one player may have created at once; the
    next create is refused with 429 ``rate_limited`` (None: no cap)."""
    max_finished_tables: int = 20
    """Finished tables (match over, or everyone left the lobby) kept per creator: a create
    deletes the creator's oldest finished ones beyond this."""
    lobby_hours: float = 24.0
    """A table whose match never started is deleted this long after it was created (its
    room code lasts `code_hours`)."""
    finished_hours: float = 24.0
    """A finished table is deleted this long after its last change."""
    idle_hours: float = 48.0
    """Any table unchanged for this long (a match everyone left) is deleted."""
    check_views: bool = field(
        default_factory=lambda: os.environ.get("CARDTABLE_CHECK_VIEWS") == "1"
    )
    """Validate every rendered view against the `OnlineTable` schema as well and fail on any
    difference (`render.Views`; ``CARDTABLE_CHECK_VIEWS=1``, which the test suite sets).
    Production encodes the views directly, without the schema's model: the same JSON at a
    fraction of the CPU (docs/online.md "Render once")."""
