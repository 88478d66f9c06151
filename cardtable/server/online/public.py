"""The online feature's entry for the other features: the only module of `online` that they
may import (`make contracts` holds them to it).

It exports nothing: no other feature uses the online tables. The app assembles them itself
(`routes.router` and the per-process `tables.OnlineTables`), and the app is the one importer
the contract lets past this entry.
"""

__all__: list[str] = []
