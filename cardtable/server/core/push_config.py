"""Web Push settings (part of `cardtable.server.Settings`; docs/online.md, "Notifications").

The server's VAPID key pair is made on first start and kept in the store; an operator who
wants their own sets ``CARDTABLE_VAPID_PRIVATE_KEY`` (the private key as 32 raw bytes in
URL-safe base64, or a PEM / base64 DER EC P-256 key), and ``CARDTABLE_VAPID_SUBJECT`` (the
``mailto:`` or ``https:`` contact the push services may use)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

PUSH_HOSTS = (
    "fcm.googleapis.com",
    "updates.push.services.mozilla.com",
    "push.services.mozilla.com",
    "notify.windows.com",
    "push.apple.com",
)
"""The push services a subscription's endpoint may name (a host or a parent domain of it):
the server POSTs to the endpoint a browser gave it, so only to these."""


def _hosts() -> tuple[str, ...]:
    text = os.environ.get("CARDTABLE_PUSH_HOSTS")
    if not text:
        return PUSH_HOSTS
    return tuple(h.strip().lower() for h in text.split(",") if h.strip())


@dataclass(frozen=True)
class PushSettings:
    enabled: bool = True
    """Send notifications (the routes and the sender); off: subscriptions are refused."""
    vapid_private_key: str | None = field(
        default_factory=lambda: os.environ.get("CARDTABLE_VAPID_PRIVATE_KEY") or None
    )
    """The operator's own VAPID private key; None: the one made and kept in the store."""
    vapid_subject: str = field(
        default_factory=lambda: (
            os.environ.get("CARDTABLE_VAPID_SUBJECT") or "mailto:push@cardtable.invalid"
        )
    )
    """The VAPID ``sub`` claim: how a push service reaches the operator."""
    endpoint_hosts: tuple[str, ...] = field(default_factory=_hosts)
    """Hosts a subscription's endpoint may name (``CARDTABLE_PUSH_HOSTS``, comma-separated)."""
    allow_http: bool = field(
        default_factory=lambda: os.environ.get("CARDTABLE_PUSH_ALLOW_HTTP") == "1"
    )
    """Accept ``http:`` endpoints (``CARDTABLE_PUSH_ALLOW_HTTP=1``): a push service on a
    private network, or the test push service on loopback; real ones are ``https:``."""
    sends: int = 4
    """Notifications being sent at once by one server process."""
    per_player: int = 2
    """Of those, at most this many for one player's devices."""
    timeout_seconds: float = 5.0
    """One POST to a push service."""
    poll_seconds: float = 0.5
    """How often a process looks for due notifications when nothing woke it."""
    retry_seconds: float = 5.0
    """The first retry's delay after a 429, 5xx or timeout; doubled each time."""
    retry_most_seconds: float = 900.0
    attempts: int = 8
    """Sends of one notification before it is dropped."""
    lease_seconds: float = 60.0
    """A claimed notification another process may take over after this (its sender died)."""
    ttl_seconds: int = 43200
    """How long a push service keeps a notification for a device that is offline."""
