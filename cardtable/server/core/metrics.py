"""What the server counts, in `prometheus_client`'s default registry (the names end in
``_total`` as the Prometheus text format gives them).

- ``cardtable_live_closed_total{reason}``: live connections the server closed, by the close
  frame's reason (docs/online.md "Closing codes"): a message budget spent (``too many
  messages``), a cap, a hello not said, a table gone.
- ``cardtable_waits_refused_total{what,reason}``: requests refused instead of waiting for
  work being computed for someone else (``replay``; ``player``: the caller already has
  `kc_replay.WAITING_PER_PLAYER` waiting, ``total``: the process has `kc_replay.WAITING`).
"""

from __future__ import annotations

from prometheus_client import Counter

LIVE_CLOSED = Counter(
    "cardtable_live_closed", "Live connections the server closed, by reason", ["reason"]
)
WAITS_REFUSED = Counter(
    "cardtable_waits_refused",
    "Requests refused rather than wait for work being computed, by what and why",
    ["what", "reason"],
)
