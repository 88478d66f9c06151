"""The online feature's entry for the other features: the only module of `online` that they
may import (`make contracts` holds them to it).

The app assembles the tables itself (`routes.router` and the per-process
`tables.OnlineTables`), and the app is the one importer the contract lets past this entry.
What others use:

- the quick-play queue (`quickplay`) makes its tables here and asks after them
  (quick.py): `OnlineTables` (the per-process tables the app hands it), `QuickSeat`,
  `QuickOptions`, `QuickTable`, `create_quick`, `playing`, `opened`, `display_name`,
  `table_key`.
"""

from cardtable.server.online.codes import table_key
from cardtable.server.online.quick import (
    QuickOptions,
    QuickSeat,
    QuickTable,
    create_quick,
    display_name,
    opened,
    playing,
)
from cardtable.server.online.tables import OnlineTables

__all__ = [
    "OnlineTables",
    "QuickOptions",
    "QuickSeat",
    "QuickTable",
    "create_quick",
    "display_name",
    "opened",
    "playing",
    "table_key",
]
