"""What quick play does (docs/quickplay.md), for the routes: join and leave the queue, say
where a player stands, block and unblock. `QuickPlay` is what one app instance holds for it:
the store, the clock (tests move it), the per-process rate limits and the matcher
(matcher.py). Nothing in it changes what a player sees: the queue, the seats, the blocks and
the cool-downs are all in the store.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cardtable.server.core import names
from cardtable.server.core.errors import ApiError, invalid, not_found, rate_limited
from cardtable.server.core.limits_store import StoredLimits
from cardtable.server.core.metrics import count_refusal
from cardtable.server.core.ratelimit import TokenBuckets, retry_after
from cardtable.server.devices.public import FORGOTTEN, Credential
from cardtable.server.online.public import OnlineTables, display_name, opened, playing, table_key
from cardtable.server.quickplay import store as quick_store
from cardtable.server.quickplay.matcher import Matcher
from cardtable.server.quickplay.matching import Waiter
from cardtable.server.quickplay.models import BlockOut, Blocks, Idle, JoinQueue, Seated, Status
from cardtable.server.quickplay.models import Waiting as WaitingOut
from cardtable.server.quickplay.store import AlreadyQueued, CoolingDown, QuickStore, TooManyHere
from cardtable.server.rating.public import rating_for_matching

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

if quick_store.forget not in FORGOTTEN:
    FORGOTTEN.append(quick_store.forget)

JOIN_LIMIT = "quick-join"
LEAVE_LIMIT = "quick-leave"


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def address_key(address: str) -> str:
    """What the queue keeps of a client address (`ratelimit.request_key`'s): a hash."""
    return hashlib.sha256(("cardtable-quick:" + address).encode()).hexdigest()


class QuickPlay:
    def __init__(self, runtime: Runtime, online: OnlineTables) -> None:
        self.runtime = runtime
        self.online = online
        self.settings = runtime.settings.quick
        self.clock: Callable[[], float] = time.time
        """Now, epoch seconds: what joins, fills and deadlines read (tests move it)."""
        s = self.settings
        now = self.now
        self.address_limit = TokenBuckets(s.address_rate, s.address_burst, clock=now,
                                          reason="quick_address_rate")  # fmt: skip
        self.read_limit = TokenBuckets(s.read_rate, s.read_burst, clock=now,
                                       reason="quick_read_rate")  # fmt: skip
        self.matcher = Matcher(self)

    def now(self) -> float:
        return self.clock()

    @property
    def store(self) -> QuickStore:
        return QuickStore(self.runtime.store)

    def _stored_limit(self, name: str, key: str, rate: float, burst: int) -> float:
        return StoredLimits(self.runtime.store).take(name, key, rate, burst, self.clock())

    # -- the queue -----------------------------------------------------------------------
    def join(self, device: Credential, body: JoinQueue, address: str) -> WaitingOut:
        """Put the caller in the queue (module docstring of routes.py has the answers)."""
        s = self.settings
        self.runtime.limit(self.address_limit, address)
        player = device.player
        wait = self._stored_limit(JOIN_LIMIT, player, s.join_rate, s.join_burst)
        if wait > 0:
            count_refusal("quick_join_rate")
            raise rate_limited(retry_after(wait))
        name = polite_name(body.name)
        now = self.clock()
        seated = self.seated_at(player, now)
        if seated is not None:
            message = "you are at a quick-play table that is not finished"
            raise ApiError(409, "already_seated", message, token=seated)
        rating = rating_for_matching(self.store.sql, [player])[player]
        w = Waiter(player=player, ticket=secrets.token_hex(8), cred=device.cred,
                   players=body.players, preset=body.preset, rating=rating, name=name,
                   address=address_key(address), joined_at=now)  # fmt: skip
        try:
            self.store.join(w, per_address=s.per_address, now=now)
        except AlreadyQueued:
            raise ApiError(409, "already_queued", "you are waiting for a table already") from None
        except CoolingDown as exc:
            count_refusal("quick_cooldown")
            raise rate_limited(retry_after(exc.until - now)) from None
        except TooManyHere:
            count_refusal("quick_per_address")
            raise rate_limited(retry_after(s.fill_seconds)) from None
        self.matcher.wake()
        return self._waiting(w, now)

    def seated_at(self, player: str, now: float) -> str | None:
        """The token of the unfinished quick table ``player`` sits at (not left), if any."""
        recent = self.store.recent_tables(player, now - self.settings.history_hours * 3600)
        if not recent:
            return None
        tokens = dict(recent)
        found = playing(self.online, player, list(tokens))
        return tokens[found[0]] if found else None

    def leave(self, player: str) -> None:
        """Out of the queue (idempotent); leaving too often in a row starts a cool-down."""
        s = self.settings
        if not self.store.leave(player):
            return
        wait = self._stored_limit(LEAVE_LIMIT, player, s.leave_rate, s.leave_burst)
        if wait > 0:
            self.store.cool_down(player, self.clock() + s.cooldown_seconds)

    def status(self, player: str) -> Status:
        self.runtime.limit(self.read_limit, player)
        entry = self.store.entry(player)
        if entry is None:
            return Idle()
        now = self.clock()
        if entry.table is None:
            if now - entry.seen_at >= self.settings.seen_every:
                self.store.seen(player, now)
            return self._waiting(entry.waiter, now)
        at = entry.seated_at or 0.0
        if now > at + self.settings.seated_seconds or opened(self.online, entry.table, player):
            self.store.forget_seated(player, entry.table)
            return Idle()
        return Seated(token=entry.token or "")

    def _waiting(self, w: Waiter, now: float) -> WaitingOut:
        seen_after = now - self.settings.stale_seconds
        return WaitingOut(
            players=w.players,  # type: ignore[arg-type]
            preset=w.preset,  # type: ignore[arg-type]
            waiting=self.store.count_waiting(w.preset, w.players, seen_after),
            since=iso(w.joined_at),
            fill_at=iso(w.joined_at + self.settings.fill_seconds),
        )

    # -- blocks --------------------------------------------------------------------------
    def blocks(self, player: str) -> Blocks:
        self.runtime.limit(self.read_limit, player)
        return Blocks(
            blocks=[
                BlockOut(id=b.id, name=b.name, since=iso(b.since))
                for b in self.store.blocks(player)
            ]
        )

    def block(self, player: str, token: str, seat: int) -> BlockOut:
        """The caller, who sat at quick table ``token``, blocks the person of ``seat``."""
        self.runtime.limit(self.read_limit, player)
        sat = self.store.sat(table_key(token))
        if not any(s.player == player for s in sat):
            raise not_found("quick-play table")
        other = next((s for s in sat if s.seat == seat), None)
        if other is None:
            raise invalid("seat: no person sat there")
        if other.player == player:
            raise invalid("seat: that is your own seat")
        b = self.store.block(player, other.player, other.name, self.clock(),
                             self.settings.max_blocks)  # fmt: skip
        return BlockOut(id=b.id, name=b.name, since=iso(b.since))

    def unblock(self, player: str, ident: str) -> None:
        self.store.unblock(player, ident)


def polite_name(text: str) -> str:
    """The display name as tables show it, refused (422 ``name_refused``, with the reason)
    by the usual checks and the word list (`names.check_polite`)."""
    try:
        name = display_name(text)
    except ApiError as exc:
        raise ApiError(422, "name_refused", exc.message) from None
    try:
        names.check_polite(name)
    except names.NameRefused as exc:
        raise ApiError(422, "name_refused", f"name: {exc}") from None
    return name
