"""The daily feature's entry for the other features: the only module of `daily` that they
import (`make contracts` holds them to it).

- `settle`: settle a player's open daily entries (statistics and history settle first, so
  a finished daily deal is counted before it is shown).
- `DailyStore`: the player's daily entries, for their history, export and deletion.
- `fairplay`, `fairplay_reading`: the fair-play check and what it reads of a deal, for its
  benchmark (bench/daily_fairplay.py).
"""

from cardtable.server.daily import fairplay, fairplay_reading
from cardtable.server.daily.service import settle
from cardtable.server.daily.store import DailyStore

__all__ = ["DailyStore", "fairplay", "fairplay_reading", "settle"]
