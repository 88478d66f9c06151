"""What the schema fuzzers (tests/server/test_schemathesis.py, tests/reliability/
test_fuzz_stateful.py) share."""

from __future__ import annotations

REFUSED_BY_RULE = (
    "/api/kings-corner/online",
    "/api/push/subscriptions",
    "/api/quick-play",
    "/api/poker-squares/tables",
)
"""Routes that refuse some schema-valid bodies with 422 by rule, so the fuzzers do not ask
them to accept every valid body: the online tables (a display name empty after NFKC or
holding a control character, "me" beyond seat 0, a turn timer the server does not offer), a
push subscription whose endpoint is no known push service (a setting, not the schema), quick
play's name checks and blocks of one's own seat, and the Poker Squares tables' names and QR
origins. Their own API tests cover those answers (tests/server/online/, push/, quickplay/,
pstables/)."""
