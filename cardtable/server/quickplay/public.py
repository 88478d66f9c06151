"""The quick-play feature's entry for the other features: the only module of `quickplay`
that they may import (`make contracts` holds them to it).

It exports nothing: the app assembles the feature itself (`routes.router` and the
per-process `service.QuickPlay`, whose matcher it starts and stops).
"""

__all__: list[str] = []
