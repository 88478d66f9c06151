"""Kings Corner online: a table shared by several devices, live (docs/online.md).

Kept free of imports so that `cardtable.server.settings` can import `.config` without
pulling in the routes."""
