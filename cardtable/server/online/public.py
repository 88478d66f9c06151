"""The online feature's entry for the other features: the only module of `online` that they
may import (`make contracts` holds them to it).

The app assembles the tables itself (`routes.router` and the per-process
`tables.OnlineTables`), and the app is the one importer the contract lets past this entry.
What others use:

- the quick-play queue (`quickplay`) makes its tables here and asks after them
  (quick.py): `OnlineTables` (the per-process tables the app hands it), `QuickSeat`,
  `QuickOptions`, `QuickTable`, `create_quick`, `playing`, `opened`, `display_name`,
  `table_key`.
- the Poker Squares tables (`pstables`) reuse the generic parts of these tables: the codes
  and names (`codes`), the store's rows (`OnlineStore` over tables of their own, `RoomRecord`,
  `load_state`), the deadline driver (`Driver`), the fallback poll (`poll`), the live
  channel's connection, its caps and its ending (`Connection`, `live_slot`, `Refusal`,
  `ending`, `until_first`), the QR code (`check_origin`, `qr_svg`) and the HTTP status of
  a refused change (`refused_code`), the code lookup (`code_token`), the token's key
  (`token_key`), the open-tables refusal (`too_many_tables`) and presence (`arrive`,
  `reseat`, `reseated`, `depart`, `left`, `presence_upkeep`); the per-process
  `OnlineTables` lends them its hub, caps, guard, fan-out, rate limits and background
  tasks (`OnlineTables.beside`).
"""

from cardtable.server.online import codes
from cardtable.server.online.codes import table_key
from cardtable.server.online.driver import Driver
from cardtable.server.online.hub import Slot
from cardtable.server.online.live import Connection, Refusal, ending, live_slot, until_first
from cardtable.server.online.poll import poll
from cardtable.server.online.quick import (
    QuickOptions,
    QuickSeat,
    QuickTable,
    create_quick,
    display_name,
    opened,
    playing,
)
from cardtable.server.online.service import (
    arrive,
    check_origin,
    code_token,
    depart,
    qr_svg,
    refused_code,
    reseat,
    reseated,
    token_key,
    too_many_tables,
)
from cardtable.server.online.store import (
    OnlineStore,
    RoomRecord,
    TooManyTables,
    expire_tables,
    load_state,
)
from cardtable.server.online.tables import OnlineTables, left, presence_upkeep

__all__ = [
    "Connection",
    "Driver",
    "OnlineStore",
    "OnlineTables",
    "QuickOptions",
    "QuickSeat",
    "QuickTable",
    "Refusal",
    "RoomRecord",
    "Slot",
    "TooManyTables",
    "arrive",
    "check_origin",
    "code_token",
    "codes",
    "create_quick",
    "depart",
    "display_name",
    "ending",
    "expire_tables",
    "left",
    "live_slot",
    "load_state",
    "opened",
    "playing",
    "poll",
    "presence_upkeep",
    "qr_svg",
    "refused_code",
    "reseat",
    "reseated",
    "table_key",
    "token_key",
    "too_many_tables",
    "until_first",
]
