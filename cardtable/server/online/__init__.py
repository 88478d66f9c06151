"""Kings Corner online: a table shared by several devices, live (docs/online.md). Its limits
and timings are `cardtable.server.core.online_config.OnlineSettings`."""
